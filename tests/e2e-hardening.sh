# End-to-end tests of the hardening (bounded memory for any input, nothing left behind by a
# kill, no number that turns into NaN), sourced by tests/e2e.sh, whose helpers (run, ok, not_ok,
# first_line, sanitizer_report, check_bmp) and variables ($bin, $tmp, $root, $img512) they use.
# One function per point of the hardening; part_f runs them all.
#
# Peak memory, wall time and the way a run ended come from tests/measure.c, built here with
# ${CC:-cc}: getrusage's ru_maxrss of the run, and signals sent at a chosen moment.

# bytes N...: the bytes N (0..255), as they are.
bytes() {
    for b in "$@"; do
        # shellcheck disable=SC2059  # the format is the escape being built
        printf "\\$(printf %03o "$b")"
    done
}

le16() { bytes $(($1 & 255)) $(($1 >> 8 & 255)); }
le32() { bytes $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }

# make_rle_bomb FILE BPP KIND [W H]: an RLE8 (BPP 8) or RLE4 (BPP 4) BMP that declares W x H
# (default 16384 x 16384) and holds almost nothing: KIND eob ends the bitmap at once; delta
# moves 255 rows up 64 times (past most of the image), then ends; absolute ends the file with
# an absolute run of 3 pixels and no end-of-bitmap. Two palette entries, black and white.
make_rle_bomb() {
    file=$1 bpp=$2 kind=$3 w=${4:-16384} h=${5:-16384}
    case $kind in
        eob) data="0 1" ;;
        delta)
            data=
            i=0
            while [ $i -lt 64 ]; do
                data="$data 0 2 255 255"
                i=$((i + 1))
            done
            data="$data 0 1"
            ;;
        absolute) data="0 3 1 2 3 0" ;;
    esac
    # shellcheck disable=SC2086  # the data is a list of numbers
    set -- $data
    len=$# off=$((14 + 40 + 8))
    {
        printf BM
        le32 $((off + len))
        le32 0
        le32 $off
        le32 40
        le32 "$w"
        le32 "$h"
        le16 1
        le16 "$bpp"
        le32 $((bpp == 8 ? 1 : 2))
        le32 "$len"
        le32 2835
        le32 2835
        le32 2
        le32 0
        bytes 0 0 0 0 255 255 255 0
        bytes "$@"
    } >"$file"
}

# make_bombs DIR: the five bombs of the tests, as DIR/bomb-rle8-eob.bmp and so on.
make_bombs() {
    bomb_dir=$1
    for spec in "8 eob" "8 delta" "8 absolute" "4 eob" "4 delta"; do
        # shellcheck disable=SC2086
        set -- $spec
        make_rle_bomb "$bomb_dir/bomb-rle$1-$2.bmp" "$1" "$2"
    done
}

# The measuring helper, built once.
measure=
build_measure() {
    if [ -z "$measure" ]; then
        measure=$tmp/measure
        ${CC:-cc} -std=c11 -O1 -o "$measure" "$root/tests/measure.c" 2>"$tmp/measure.log" ||
            measure=
    fi
    [ -n "$measure" ]
}

# measured ARGS...: the tool with ARGS under measure; stdout and stderr as run() leaves them,
# and $m_status, $m_rss (KB), $m_ms.
measured() {
    "$measure" -r "$tmp/report" -- "$bin" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    # shellcheck disable=SC2046
    set -- $(sed 's/[a-z_]*=//g' "$tmp/report")
    m_status=$1 m_rss=$2 m_ms=$3
}

# lines FILE: its number of lines.
lines() {
    wc -l <"$1" | tr -d ' '
}

# said_one_line STATUS GREP-ARGS...: ok "$name" when the last run exited STATUS with one line on
# stderr that grep GREP-ARGS finds.
said_one_line() {
    status=$1
    shift
    if [ "$rc" -ne "$status" ] || [ "$(lines "$tmp/stderr")" -ne 1 ] ||
        ! grep -q "$@" "$tmp/stderr"; then
        not_ok "$name" "exit status $rc; stderr: $(tr '\n' '|' <"$tmp/stderr")"
    else
        ok "$name"
    fi
}

# ulimit_sweep "KB..." ARGS...: "$bin" ARGS -o $tmp/ulimit.bmp -q under each ulimit -v; $bad
# collects the runs that ended other than exit 0, or exit 1 with one line and no sanitizer
# report (never a signal).
ulimit_sweep() {
    limits=$1
    shift
    bad=
    for v in $limits; do
        (ulimit -v "$v" && exec "$bin" "$@" -o "$tmp/ulimit.bmp" -q) >"$tmp/stdout" 2>"$tmp/stderr"
        rc=$?
        rm -f "$tmp/ulimit.bmp"
        if [ "$rc" -eq 0 ]; then
            continue
        elif [ "$rc" -ne 1 ] || [ "$(lines "$tmp/stderr")" -ne 1 ] || why=$(sanitizer_report); then
            bad="$bad $v: exit $rc, $(tr '\n' '|' <"$tmp/stderr" | cut -c1-120);"
        fi
    done
}

# --- 1 and 2: decompression bombs and endless inputs, in bounded memory and time ------------
part_f_bombs() {
    d=$tmp/bombs
    mkdir -p "$d"
    make_bombs "$d"
    for f in "$d"/bomb-*.bmp; do
        b=$(basename "$f" .bmp)
        name="f: $b (16384 x 16384 in $(wc -c <"$f" | tr -d ' ') bytes): exit 2, one line, at most 64 MB above the baseline"
        measured -s "$f" -o "$d/out.bmp"
        if [ "$m_status" -ne 2 ]; then
            not_ok "$name" "status $m_status; stderr: $(first_line "$tmp/stderr")"
        elif [ "$(lines "$tmp/stderr")" -ne 1 ] ||
            ! grep -q 'a likely decompression bomb (--allow-high-ratio accepts it)$' "$tmp/stderr"; then
            not_ok "$name" "stderr: $(tr '\n' '|' <"$tmp/stderr")"
        elif [ "$m_rss" -gt $((base + 65536)) ]; then
            not_ok "$name" "peak $m_rss KB, baseline $base KB"
        elif [ -e "$d/out.bmp" ]; then
            not_ok "$name" "an output was written"
        else
            ok "$name (peak $m_rss KB, $m_ms ms)"
        fi
    done
    # In a batch each bomb is that image's refusal, before it is allocated; the others are
    # written, and the run's peak stays as bounded.
    # The baseline is the same batch without the bombs: a batch opens its own lanes (on a GPU
    # two contexts, each with the driver's memory), which a one-image run does not.
    mkdir -p "$d/out" "$d/out0"
    measured -O "$d/out0" "$img512"
    batch_base=$m_rss
    rm -rf "$d/out0"
    name="f: a batch of the bundled image and two bombs: exit 2, the image written, a line per bomb and the summary"
    measured -O "$d/out" "$img512" "$d/bomb-rle8-eob.bmp" "$d/bomb-rle4-delta.bmp"
    if [ "$m_status" -ne 2 ] || [ "$(lines "$tmp/stderr")" -ne 3 ] ||
        [ "$(grep -c 'a likely decompression bomb' "$tmp/stderr")" -ne 2 ] ||
        ! grep -q '^tiledconv: 1 of 3 images written; 2 refused; 0 failed$' "$tmp/stderr"; then
        not_ok "$name" "status $m_status; stderr: $(tr '\n' '|' <"$tmp/stderr")"
    elif [ "$(ls "$d/out")" != "TiledConv_Input512x512.bmp" ]; then
        not_ok "$name" "the output folder holds: $(ls -A "$d/out" | tr '\n' ' ')"
    elif [ "$m_rss" -gt $((batch_base + 65536)) ]; then
        not_ok "$name" "peak $m_rss KB, the same batch without the bombs $batch_base KB"
    else
        ok "$name (peak $m_rss KB, without the bombs $batch_base KB)"
    fi
    # The flag accepts a smaller one, which decodes to palette entry 0 everywhere (black).
    make_rle_bomb "$d/small.bmp" 8 eob 2048 1024
    name="f: a 2048 x 1024 RLE8 file of 2 bytes is refused, and decoded with --allow-high-ratio"
    run "$bin" -s "$d/small.bmp" --no-output -q
    rc1=$rc
    run "$bin" -s "$d/small.bmp" --allow-high-ratio -o "$d/small-out.bmp" -q
    if [ "$rc1" -ne 2 ] || [ "$rc" -ne 0 ]; then
        not_ok "$name" "exit statuses $rc1 and $rc; stderr: $(first_line "$tmp/stderr")"
    elif [ "$(distinct_pixels "$d/small-out.bmp")" != "0 " ]; then
        not_ok "$name" "the decoded image is not all 0"
    else
        ok "$name"
    fi

    for dev in /dev/zero /dev/urandom; do
        name="f: -s $dev: exit 2, one line, within a second, at most 64 MB above the baseline"
        measured -s "$dev" --no-output
        if [ "$m_status" -ne 2 ] || [ "$(lines "$tmp/stderr")" -ne 1 ]; then
            not_ok "$name" "status $m_status; stderr: $(tr '\n' '|' <"$tmp/stderr")"
        elif [ "$m_ms" -ge 1000 ] || [ "$m_rss" -gt $((base + 65536)) ]; then
            not_ok "$name" "$m_ms ms, peak $m_rss KB"
        else
            ok "$name ($m_ms ms, $m_rss KB)"
        fi
    done
    # Pipes are read: their header first. Endless zeros through a FIFO and through standard
    # input are refused after their first bytes.
    fifo=$d/fifo
    mkfifo "$fifo"
    cat /dev/zero >"$fifo" 2>/dev/null &
    writer=$!
    # (Its first bytes are judged against every format the tool reads.)
    name="f: -s FIFO fed by /dev/zero: exit 2 'not an image in a format ...', within a second"
    measured -s "$fifo" --no-output
    wait "$writer" 2>/dev/null
    if [ "$m_status" -ne 2 ] || ! grep -q "not an image in a format tiledconv" "$tmp/stderr" ||
        [ "$(lines "$tmp/stderr")" -ne 1 ]; then
        not_ok "$name" "status $m_status; stderr: $(tr '\n' '|' <"$tmp/stderr")"
    elif [ "$m_ms" -ge 1000 ] || [ "$m_rss" -gt $((base + 65536)) ]; then
        not_ok "$name" "$m_ms ms, peak $m_rss KB"
    else
        ok "$name ($m_ms ms)"
    fi
    name="f: -s /dev/stdin from /dev/urandom through a pipe: exit 2 within a second"
    head -c 100000000 /dev/urandom 2>/dev/null |
        "$measure" -r "$tmp/report" -- "$bin" -s /dev/stdin --no-output >"$tmp/stdout" 2>"$tmp/stderr"
    # shellcheck disable=SC2046
    set -- $(sed 's/[a-z_]*=//g' "$tmp/report")
    if [ "$1" -ne 2 ] || [ "$(lines "$tmp/stderr")" -ne 1 ] || [ "$3" -ge 1000 ]; then
        not_ok "$name" "status $1, $3 ms; stderr: $(first_line "$tmp/stderr")"
    else
        ok "$name ($3 ms)"
    fi
    rm -rf "$d"
}

# --- 3: the memory plan -----------------------------------------------------------------------
part_f_plan() {
    name="f: -g 65536x16384 is refused by --max-pixels before anything is allocated"
    measured -g 65536x16384 --no-output
    if [ "$m_status" -ne 2 ] || [ "$(lines "$tmp/stderr")" -ne 1 ] ||
        ! grep -q '^tiledconv: -g 65536x16384: image size 65536 x 16384 (1073741824 pixels) exceeds the limit of 268435456 pixels (--max-pixels raises it)$' "$tmp/stderr"; then
        not_ok "$name" "status $m_status; stderr: $(tr '\n' '|' <"$tmp/stderr")"
    elif [ "$m_rss" -gt $((base + 65536)) ]; then
        not_ok "$name" "peak $m_rss KB"
    else
        ok "$name ($m_ms ms, $m_rss KB)"
    fi
    name="f: -l --json: one record a device with its limits in bytes, one of them the default"
    run "$bin" -l --json
    n_default=$(grep -c '"default": true' "$tmp/stdout")
    if [ "$rc" -ne 0 ] || [ "$n_default" -ne 1 ] ||
        grep -v '^{"type": "device", .*"global_mem_bytes": [1-9][0-9]*, "max_alloc_bytes": [1-9][0-9]*, ' "$tmp/stdout" | grep -q .; then
        not_ok "$name" "exit status $rc, $n_default defaults; stdout: $(tr '\n' '|' <"$tmp/stdout" | cut -c1-300)"
    else
        ok "$name (the size over the default device's limits: ${too_big:-none})"
    fi
    if [ -z "$too_big" ]; then
        echo "skip - f: an image over the device's limits: the default device holds every image of up to 2^30 pixels"
    else
        name="f: -g $too_big --max-pixels $too_big: the device's limit, named, before any allocation"
        measured -g "$too_big" --max-pixels "$too_big" --no-output
        if [ "$m_status" -ne 2 ] || [ "$(lines "$tmp/stderr")" -ne 1 ] ||
            ! grep -q 'needs [0-9.]* MB .*(CL_DEVICE_\(MAX_MEM_ALLOC\|GLOBAL_MEM\)_SIZE)$' "$tmp/stderr"; then
            not_ok "$name" "status $m_status; stderr: $(tr '\n' '|' <"$tmp/stderr")"
        elif [ "$m_rss" -gt $((base + 65536)) ] || [ "$m_ms" -ge 5000 ]; then
            not_ok "$name" "peak $m_rss KB, $m_ms ms: the image was made"
        else
            ok "$name ($(sed 's/.*: one plane/one plane/; s/.*: the run/the run/' "$tmp/stderr"))"
        fi
    fi
    # Under an address-space limit the run ends with exit 1 and one line, never SIGABRT from
    # the platform: below PoCL's start, between its start and the plan's need, and above.
    # PoCL starts a worker thread a core when its platform loads (whatever device the run
    # asks for) and aborts when it cannot (pthread_scheduler_init): on a machine of many cores
    # the limits below would test that, not the tool, so PoCL's threads are held to two, as on
    # the 2-core machine these limits were chosen on (docs/safety.md, "Memory").
    POCL_MAX_PTHREAD_COUNT=2
    export POCL_MAX_PTHREAD_COUNT
    name="f: -g 16384x16384 under ulimit -v 3000000: exit 1, one line naming RLIMIT_AS"
    (ulimit -v 3000000 && exec "$bin" -g 16384x16384 --no-output) >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    said_one_line 1 'the run needs [0-9.]* MB of host memory.*(RLIMIT_AS, ulimit -v)$'
    name="f: -g 4096x4096 under ulimit -v from 200 MB to 1.2 GB: exit 0, or 1 with one line; never a signal"
    ulimit_sweep "200000 245000 250000 300000 400000 500000 600000 700000 900000 1200000" \
        -g 4096x4096
    verdict "$name"
    # The batch pipeline, which a plain one-file run takes, under the same limits: each image's
    # host memory is checked before it is read (exit 1 with one line), and the library checks
    # the CPU device's buffers before PoCL could abort.
    "$bin" -g 4096x4096 -o "$tmp/in4096.bmp" -q
    name="f: -s 4096x4096.bmp -o (the batch path) under ulimit -v from 400 MB to 1.2 GB: exit 0, or 1 with one line; never a signal"
    ulimit_sweep "400000 500000 600000 700000 800000 1000000 1200000" -s "$tmp/in4096.bmp"
    rm -f "$tmp/in4096.bmp"
    unset POCL_MAX_PTHREAD_COUNT
    verdict "$name"
    # One algorithm filters in place: -g 8192x8192 holds its input plane and the CPU device's
    # two buffers, 3 x 256 MiB, not a fourth for an output plane (1.2 GB before).
    name="f: -g 8192x8192 peaks below the baseline + 3.25 planes of 256 MiB on the CPU device"
    measured -g 8192x8192 --device cpu --no-output -q
    limit=$((base + 13 * 65536))
    if [ "$m_status" -ne 0 ]; then
        not_ok "$name" "status $m_status; stderr: $(first_line "$tmp/stderr")"
    elif [ "$m_rss" -gt "$limit" ]; then
        not_ok "$name" "peak $m_rss KB, more than $limit KB"
    else
        ok "$name ($m_rss KB)"
    fi
}

# --- 4: numbers -------------------------------------------------------------------------------
part_f_numbers() {
    name="f: -c 1e19,1e19,1e19 -e: exit 2, one line naming -c (no 'expected inf, actual inf')"
    run "$bin" -g 16x16 -c 1e19,1e19,1e19 -e -o "$tmp/n.bmp"
    if [ "$rc" -ne 2 ] || [ "$(lines "$tmp/stderr")" -ne 1 ] ||
        ! grep -q "^tiledconv: -c: sum|kx| x sum|ky| is 9e+38" "$tmp/stderr" || [ -e "$tmp/n.bmp" ]; then
        not_ok "$name" "exit status $rc; stderr: $(tr '\n' '|' <"$tmp/stderr")"
    else
        ok "$name"
    fi
    for sigma in 1e-200 1e-310; do
        name="f: --filter gauss --sigma $sigma: exit 2, 'too small', not 'not a finite number'"
        run "$bin" -g 16x16 --filter gauss --sigma "$sigma" -o "$tmp/n.bmp"
        if [ "$rc" -ne 2 ] || ! grep -q "^tiledconv: --sigma $sigma: too small" "$tmp/stderr" ||
            grep -q "finite number" "$tmp/stderr"; then
            not_ok "$name" "exit status $rc; stderr: $(first_line "$tmp/stderr")"
        else
            ok "$name"
        fi
    done
    # The largest gain that fits: sum|kx| x sum|ky| x 255 just below FLT_MAX, -e passes.
    name="f: -c 3.3e17,3.3e17,3.3e17 (sums up to 2.5e38): -e PASSED, exit 0"
    run "$bin" -g 16x16 -c 3.3e17,3.3e17,3.3e17 -e --no-output
    if [ "$rc" -ne 0 ] || ! grep -q PASSED "$tmp/stdout"; then
        not_ok "$name" "exit status $rc; stderr: $(first_line "$tmp/stderr")"
    else
        ok "$name"
    fi
}

# --- 5: nothing left behind -------------------------------------------------------------------
# kill_runs SIGNAL COUNT EXISTING [INPUT...]: COUNT runs writing $k/out.bmp from INPUT (default
# -g $size), each sent SIGNAL at a random moment of the run (0 .. 1.2 x the reference run's
# time, $ref_ms); EXISTING 1 starts each with an old out.bmp in place. After each: no other
# file in $k, and out.bmp absent, the old one, or the complete new one ($ref_sum). Sets
# $kills_bad (the failures) and $kills_hit (runs the signal ended).
kill_runs() {
    sig=$1 count=$2 existing=$3
    shift 3
    # The input: "-s FILE" when given, else -g $size.
    [ $# -eq 0 ] && set -- -g "$size"
    i=0
    while [ "$i" -lt "$count" ]; do
        i=$((i + 1))
        delay=$(awk -v s="$seed$sig$i" -v t="$ref_ms" 'BEGIN { srand(s); printf "%d", rand() * t * 1200 }')
        [ "$existing" -eq 1 ] && echo "old output" >"$k/out.bmp"
        "$measure" -k "$sig" -d "$delay" -r "$tmp/report" -- "$bin" "$@" -o "$k/out.bmp" -q \
            >/dev/null 2>"$tmp/stderr"
        status=$(sed 's/status=\([0-9]*\).*/\1/' "$tmp/report")
        left=$(ls -A "$k" | grep -v '^out\.bmp$' | tr '\n' ' ')
        if [ "$status" -eq $((128 + sig)) ]; then
            kills_hit=$((kills_hit + 1))
        elif [ "$status" -ne 0 ]; then
            kills_bad="$kills_bad signal $sig at $delay us: status $status;"
        fi
        if [ -n "$left" ]; then
            kills_bad="$kills_bad signal $sig at $delay us: left $left;"
        elif [ -e "$k/out.bmp" ]; then
            sum=$(cksum <"$k/out.bmp")
            if [ "$sum" != "$ref_sum" ] && { [ "$existing" -eq 0 ] || [ "$sum" != "$old_sum" ]; }; then
                kills_bad="$kills_bad signal $sig at $delay us: a partial out.bmp;"
            fi
        fi
        rm -f "$k/out.bmp"
    done
}

part_f_kills() {
    k=$tmp/kills
    mkdir -p "$k"
    # The image written: 4096 x 4096 in make test (each run about a second on the 2-core
    # machine's PoCL), 8192 x 8192 in `make full-sweeps` (KILL_SIZE). The moments are drawn
    # over the run's own length, so either size meets every phase of the run. 12 moments in
    # make test, 20 in full-sweeps (KILL_MOMENTS); each run draws new ones (the seed is printed).
    size=${KILL_SIZE:-4096x4096}
    moments=${KILL_MOMENTS:-12}
    name="f: kill -9 at $moments random moments of a -g $size write leaves no temporary and no partial file"
    if ! "$measure" --tmpfile "$k"; then
        ok "$name # SKIP this file system has no O_TMPFILE: a kill -9 can leave .out.bmp.XXXXXX"
    else
        "$measure" -r "$tmp/report" -- "$bin" -g "$size" -o "$k/ref.bmp" -q
        ref_ms=$(sed 's/.*wall_ms=//' "$tmp/report")
        ref_sum=$(cksum <"$k/ref.bmp")
        old_sum=$(echo "old output" | cksum)
        rm -f "$k/ref.bmp"
        seed=$(date +%s)
        kills_bad= kills_hit=0
        kill_runs 9 "$moments" 0
        if [ -n "$kills_bad" ]; then not_ok "$name" "seed $seed:$kills_bad"; else
            ok "$name ($kills_hit of $moments ended by the signal; run $ref_ms ms, seed $seed)"; fi
        # The same through the batch pipeline (a plain -s FILE -o FILE run), whose writers
        # stage the file the same way.
        "$bin" -g "$size" -o "$tmp/kill-in.bmp" -q
        "$measure" -r "$tmp/report" -- "$bin" -s "$tmp/kill-in.bmp" -o "$k/ref.bmp" -q
        batch_ms=$(sed 's/.*wall_ms=//' "$tmp/report")
        batch_sum=$(cksum <"$k/ref.bmp")
        rm -f "$k/ref.bmp"
        name="f: kill -9 at 10 random moments of a -s FILE -o FILE run (the batch path) leaves nothing"
        saved_sum=$ref_sum saved_ms=$ref_ms
        ref_sum=$batch_sum ref_ms=$batch_ms
        kills_bad= kills_hit=0
        kill_runs 9 10 0 -s "$tmp/kill-in.bmp"
        ref_sum=$saved_sum ref_ms=$saved_ms
        rm -f "$tmp/kill-in.bmp"
        if [ -n "$kills_bad" ]; then not_ok "$name" "seed $seed:$kills_bad"; else
            ok "$name ($kills_hit of 10 ended by the signal; run $batch_ms ms)"; fi
        name="f: SIGINT and SIGTERM at 10 random moments (5 over an existing output): 128 + the signal, nothing left"
        kills_bad= kills_hit=0
        kill_runs 2 3 0
        kill_runs 15 2 0
        kill_runs 2 2 1
        kill_runs 15 3 1
        if [ -n "$kills_bad" ]; then not_ok "$name" "seed $seed:$kills_bad"; else
            ok "$name ($kills_hit of 10 ended by the signal)"; fi
    fi
    rm -rf "$k"
}

# replaced_modes "OLD:NEW...": for each, an output of mode OLD replaced by a run; $bad collects
# the runs that failed or left another mode than NEW.
replaced_modes() {
    bad=
    for mode in $1; do
        echo old >"$d/out.bmp"
        chmod "${mode%:*}" "$d/out.bmp"
        run "$bin" -g 16x16 -o "$d/out.bmp" -q
        got=$(stat -c %a "$d/out.bmp")
        [ "$rc" -eq 0 ] && [ "$got" = "${mode#*:}" ] || bad="$bad ${mode%:*} became $got (exit $rc);"
    done
}

part_f_files() {
    d=$tmp/files
    mkdir -p "$d"
    name="f: replacing an output keeps its mode (0600 stays 0600, 0640 stays 0640)"
    replaced_modes "600:600 640:640"
    verdict "$name"
    # Replacing gives the name a new file: the setuid and setgid bits go; a symbolic link at -o
    # is itself replaced (its target untouched); another hard link keeps the old contents;
    # extended attributes are not carried over (checked where the file system takes them).
    name="f: replacing an output: setuid/setgid cleared, a symlink at -o replaced, a hard link and the link's target keep the old contents"
    replaced_modes "4755:755 2750:750 6711:711"
    echo target >"$d/target.bmp"
    ln -s target.bmp "$d/link.bmp"
    ln "$d/target.bmp" "$d/hard.bmp"
    run "$bin" -g 16x16 -o "$d/link.bmp" -q
    if [ "$rc" -ne 0 ] || [ -L "$d/link.bmp" ] || ! check_bmp "$d/link.bmp" 16 16 >/dev/null; then
        bad="$bad the link: exit $rc, $(ls -l "$d/link.bmp");"
    elif [ "$(cat "$d/target.bmp")" != target ]; then
        bad="$bad the link's target changed;"
    fi
    run "$bin" -g 16x16 -o "$d/target.bmp" -q
    if [ "$rc" -ne 0 ] || [ "$(cat "$d/hard.bmp")" != target ] || ! check_bmp "$d/target.bmp" 16 16 >/dev/null; then
        bad="$bad the hard link: exit $rc, hard.bmp holds $(head -c 20 "$d/hard.bmp");"
    fi
    verdict "$name"
    if python3 -c "import os, sys; os.setxattr(sys.argv[1], 'user.tiledconv', b'1')" "$d/hard.bmp" 2>/dev/null; then
        name="f: replacing an output does not carry its extended attributes over"
        run "$bin" -g 16x16 -o "$d/hard.bmp" -q
        if [ "$rc" -ne 0 ] || python3 -c "import os, sys; os.getxattr(sys.argv[1], 'user.tiledconv')" "$d/hard.bmp" 2>/dev/null; then
            not_ok "$name" "exit $rc, the attribute is still there"
        else
            ok "$name"
        fi
    else
        echo "skip - f: extended attributes: this file system takes no user attributes"
    fi
    rm -f "$d/target.bmp" "$d/link.bmp" "$d/hard.bmp" "$d/out.bmp"
    name="f: a read-only output is refused (exit 2, untouched) and replaced with --force"
    echo old >"$d/ro.bmp"
    chmod 444 "$d/ro.bmp"
    run "$bin" -g 16x16 -o "$d/ro.bmp" -q
    rc1=$rc
    msg=$(first_line "$tmp/stderr")
    if [ "$rc1" -ne 2 ] || [ "$(cat "$d/ro.bmp")" != old ] ||
        [ "$msg" != "tiledconv: -o $d/ro.bmp: the file is read-only; refusing to replace it (--force replaces it)" ]; then
        not_ok "$name" "exit status $rc1; stderr: $msg"
    else
        run "$bin" -g 16x16 -o "$d/ro.bmp" -q --force
        if [ "$rc" -ne 0 ] || ! why=$(check_bmp "$d/ro.bmp" 16 16); then
            not_ok "$name" "with --force: exit status $rc; $why"
        elif [ "$(stat -c %a "$d/ro.bmp")" != 444 ]; then
            not_ok "$name" "with --force the mode became $(stat -c %a "$d/ro.bmp")"
        else
            ok "$name"
        fi
    fi
    # An output folder that takes no new files is refused before the work: -e on 8192 x 8192
    # takes seconds; the refusal comes at once.
    name="f: an unwritable output folder is refused before any work (exit 2, at once)"
    measured -g 8192x8192 -e -o /proc/tiledconv-out.bmp
    if [ "$m_status" -ne 2 ] || [ "$m_ms" -ge 1500 ] ||
        ! grep -q "^tiledconv: -o /proc/tiledconv-out.bmp: cannot create files in the folder /proc" "$tmp/stderr"; then
        not_ok "$name" "status $m_status, $m_ms ms; stderr: $(first_line "$tmp/stderr")"
    else
        ok "$name ($m_ms ms)"
    fi
    if [ "$(id -u)" -eq 0 ] && mkdir "$d/locked" && chattr +i "$d/locked" 2>/dev/null; then
        name="f: an immutable output folder (chattr +i) is refused before any work"
        run "$bin" -g 16x16 -o "$d/locked/out.bmp"
        chattr -i "$d/locked"
        if [ "$rc" -ne 2 ] || ! grep -q "cannot create files in the folder $d/locked" "$tmp/stderr"; then
            not_ok "$name" "exit status $rc; stderr: $(first_line "$tmp/stderr")"
        else
            ok "$name"
        fi
    elif [ "$(id -u)" -ne 0 ] && mkdir -p "$d/locked" && chmod 555 "$d/locked"; then
        name="f: an output folder without write permission is refused before any work"
        run "$bin" -g 16x16 -o "$d/locked/out.bmp"
        chmod 755 "$d/locked"
        if [ "$rc" -ne 2 ] || ! grep -q "cannot create files in the folder" "$tmp/stderr"; then
            not_ok "$name" "exit status $rc; stderr: $(first_line "$tmp/stderr")"
        else
            ok "$name"
        fi
    fi
    # The folder is synced after the rename: seen in the system calls, where strace exists.
    name="f: the output is synced, linked into place, and then its folder synced"
    if ! command -v strace >/dev/null 2>&1; then
        ok "$name # SKIP strace is not installed (tests/test_outputs.c checks the order)"
    else
        strace -f -e trace=fsync,linkat,renameat,renameat2,rename -o "$tmp/strace" \
            "$bin" -g 16x16 -o "$d/synced.bmp" -q >/dev/null 2>&1
        # The last three such calls (PoCL may sync its kernel cache before).
        calls=$(grep -o -e 'fsync(' -e 'linkat(.*synced.bmp' -e 'rename[a-z0-9]*(' "$tmp/strace" |
            sed 's/(.*//' | tail -3 | tr '\n' ' ')
        if [ "$calls" != "fsync linkat fsync " ]; then
            not_ok "$name" "calls: $calls"
        else
            ok "$name"
        fi
    fi
    rm -rf "$d"
}

# --- 6: one line, always ----------------------------------------------------------------------
part_f_messages() {
    name="f: a newline in a file name is shown escaped: one line"
    nl='
'
    run "$bin" -s "$tmp/two${nl}lines.bmp" -o "$tmp/m.bmp"
    said_one_line 2 -F "two\\nlines.bmp: No such file or directory"
    name="f: a 3000-byte path is shortened in the middle and the reason kept"
    long=$tmp
    while [ ${#long} -lt 3000 ]; do long=$long/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done
    run "$bin" -s "$long/picture.bmp" -o "$tmp/m.bmp"
    msg=$(cat "$tmp/stderr")
    if [ "$rc" -ne 2 ] || [ "$(lines "$tmp/stderr")" -ne 1 ] || [ ${#msg} -gt 300 ]; then
        not_ok "$name" "exit status $rc, ${#msg} bytes: $(cut -c1-200 "$tmp/stderr")"
    elif ! echo "$msg" | grep -q '^tiledconv: .*\.\.\.[a/]*/picture\.bmp: No such file or directory$'; then
        not_ok "$name" "$msg"
    else
        ok "$name"
    fi
    name="f: -s '' names the flag"
    run "$bin" -s '' -o "$tmp/m.bmp"
    if [ "$rc" -ne 2 ] || [ "$(cat "$tmp/stderr")" != "tiledconv: -s: the file name is empty" ]; then
        not_ok "$name" "exit status $rc; stderr: $(first_line "$tmp/stderr")"
    else
        ok "$name"
    fi
    # The AMD sample's flags with the value attached give the same image as with a space.
    name="f: -sL3 -sT3 -tL2 -tT2 -W100 -H80 writes what -sL 3 -sT 3 -tL 2 -tT 2 -W 100 -H 80 writes"
    run "$bin" -s "$img512" -sL 3 -sT 3 -tL 2 -tT 2 -W 100 -H 80 -e -o "$tmp/spaced.bmp" -q
    rc1=$rc
    run "$bin" -s "$img512" -sL3 -sT3 -tL2 -tT2 -W100 -H80 -e -o "$tmp/attached.bmp" -q
    if [ "$rc1" -ne 0 ] || [ "$rc" -ne 0 ]; then
        not_ok "$name" "exit statuses $rc1 and $rc; stderr: $(first_line "$tmp/stderr")"
    elif ! cmp -s "$tmp/spaced.bmp" "$tmp/attached.bmp"; then
        not_ok "$name" "the images differ"
    elif cmp -s "$tmp/spaced.bmp" "$img512"; then
        not_ok "$name" "nothing was filtered"
    else
        ok "$name"
    fi
    rm -f "$tmp/spaced.bmp" "$tmp/attached.bmp"
}

# --- lists: --files-from within its caps ------------------------------------------------------
# measured_list NAME WANT_STDERR MAX_MS PRODUCER...: PRODUCER's output as the list of
# `--files-from - -O DIR`; exit 2 with exactly WANT_STDERR, within MAX_MS, at most 64 MB above
# the baseline, nothing written. The producer is ended by SIGPIPE when the tool stops reading.
measured_list() {
    name=$1 want=$2 max_ms=$3
    shift 3
    mkdir -p "$tmp/list-out"
    "$@" 2>/dev/null | "$measure" -r "$tmp/report" -- "$bin" --files-from - -O "$tmp/list-out" \
        >"$tmp/stdout" 2>"$tmp/stderr"
    # shellcheck disable=SC2046
    set -- $(sed 's/[a-z_]*=//g' "$tmp/report")
    if [ "$1" -ne 2 ] || [ "$(cat "$tmp/stderr")" != "$want" ]; then
        not_ok "$name" "status $1; stderr: $(tr '\n' '|' <"$tmp/stderr" | cut -c1-300)"
    elif [ "$3" -ge "$max_ms" ] || [ "$2" -gt $((base + 65536)) ]; then
        not_ok "$name" "$3 ms (at most $max_ms), peak $2 KB (baseline $base KB)"
    elif [ -n "$(ls -A "$tmp/list-out")" ]; then
        not_ok "$name" "the output folder holds: $(ls -A "$tmp/list-out" | tr '\n' ' ')"
    else
        ok "$name ($3 ms, peak $2 KB)"
    fi
}

part_f_lists() {
    measured_list "f: yes x | --files-from -: exit 2 at the 10000001st name, within 5 s, at most 64 MB above the baseline" \
        "tiledconv: --files-from -: line 10000001: more than 10000000 names, the most a list may hold" \
        5000 yes x
    measured_list "f: yes '' | --files-from - (1 GiB of empty lines): exit 2 at the byte cap, within 10 s, bounded" \
        "tiledconv: --files-from -: line 1073741825: the list passes 1073741824 bytes, the most it may hold" \
        10000 yes ''
    measured_list "f: an endless line: exit 2 'line 1: longer than 4095 bytes', at once" \
        "tiledconv: --files-from -: line 1: longer than 4095 bytes, more than a path can have (PATH_MAX)" \
        2000 sh -c "yes | tr -d '\\n'"
    measured_list "f: --files-from - of /dev/zero: exit 2 'line 1: a NUL byte', at once" \
        "tiledconv: --files-from -: line 1: a NUL byte (a list is text, one name a line)" \
        1000 cat /dev/zero
    name="f: --files-from /dev/zero: exit 2 'line 1: a NUL byte' within a second"
    measured --files-from /dev/zero -O "$tmp/list-out"
    if [ "$m_status" -ne 2 ] || [ "$m_ms" -ge 1000 ] ||
        [ "$(cat "$tmp/stderr")" != "tiledconv: --files-from /dev/zero: line 1: a NUL byte (a list is text, one name a line)" ]; then
        not_ok "$name" "status $m_status, $m_ms ms; stderr: $(first_line "$tmp/stderr")"
    else
        ok "$name ($m_ms ms)"
    fi
    # A NUL in the middle of a list refuses the whole list, at its line, before any image.
    name="f: a NUL byte on line 3 of a list of real images: exit 2 naming line 3, nothing written"
    { printf '%s\n\n' "$img512"; printf 'x\000y\n%s\n' "$img512"; } >"$tmp/nul-list"
    run "$bin" --files-from "$tmp/nul-list" -O "$tmp/list-out"
    if [ "$rc" -ne 2 ] || [ -n "$(ls -A "$tmp/list-out")" ] ||
        [ "$(cat "$tmp/stderr")" != "tiledconv: --files-from $tmp/nul-list: line 3: a NUL byte (a list is text, one name a line)" ]; then
        not_ok "$name" "exit status $rc; stderr: $(first_line "$tmp/stderr"); out: $(ls -A "$tmp/list-out")"
    else
        ok "$name"
    fi
    # A folder named as the list is a usage error, as a folder named as an input is.
    name="f: --files-from DIR and -s DIR: both exit 2, one line each"
    run "$bin" --files-from "$tmp/list-out" -O "$tmp/list-out"
    rc1=$rc msg1=$(cat "$tmp/stderr")
    run "$bin" -s "$tmp/list-out" -o "$tmp/dir.bmp"
    if [ "$rc1" -ne 2 ] || [ "$msg1" != "tiledconv: --files-from $tmp/list-out: a folder, not a list of file names" ]; then
        not_ok "$name" "--files-from: exit status $rc1; stderr: $msg1"
    elif [ "$rc" -ne 2 ] || [ "$(lines "$tmp/stderr")" -ne 1 ] || [ -e "$tmp/dir.bmp" ]; then
        not_ok "$name" "-s: exit status $rc; stderr: $(first_line "$tmp/stderr")"
    else
        ok "$name"
    fi
    rm -rf "$tmp/list-out" "$tmp/nul-list"
}

# --- optional values: a count after a bare --pyramid is its value, judged before any work ----
part_f_optional() {
    d=$tmp/optional
    mkdir -p "$d"
    name="f: --pyramid with an invalid count (0x3 3x0 17x1 1x9 99999999x3 a 24-digit count, 5, 0, 012): exit 2, one line, nothing written"
    bad=
    for w in 0x3 3x0 17x1 1x9 99999999x3 999999999999999999999999x2 5 0 012; do
        run "$bin" -s "$img512" --pyramid "$w" -O "$d" -q
        if [ "$rc" -ne 2 ] || [ "$(lines "$tmp/stderr")" -ne 1 ] ||
            ! grep -q "^tiledconv: --pyramid $w: " "$tmp/stderr" || [ -n "$(ls -A "$d")" ]; then
            bad="$bad $w: exit $rc, $(ls -A "$d" | wc -l) files, $(first_line "$tmp/stderr");"
        fi
        rm -f "$d"/*
    done
    verdict "$name"
    # Words of another form stay inputs: a missing one is refused as a batch refuses it.
    name="f: --pyramid x (no file x): x refused as a missing input, the image's 16 levels written, exit 2"
    (cd "$d" && "$bin" -s "$img512" --pyramid x -O . -q) >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q "^tiledconv: x: No such file or directory$" "$tmp/stderr" ||
        [ "$(ls "$d" | grep -c '^TiledConv_Input512x512-o[0-3]-l[0-3]\.bmp$')" -ne 16 ]; then
        not_ok "$name" "exit $rc, $(ls -A "$d" | wc -l) files; stderr: $(tr '\n' '|' <"$tmp/stderr")"
    else
        ok "$name"
    fi
    rm -rf "$d"
}

# --- two outputs of one run that are one file: found before any work ---------------------------
# same_refused NAME WANT ARGS...: the tool with ARGS (in $d) ends with exit 2 and exactly the
# line WANT, and the folder's files are as they were (their names and sums).
same_refused() {
    name=$1 want=$2
    shift 2
    before=$(cd "$d" && find . -type f -exec cksum {} + | sort)
    (cd "$d" && "$bin" "$@") >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    after=$(cd "$d" && find . -type f -exec cksum {} + | sort)
    if [ "$rc" -ne 2 ] || [ "$(cat "$tmp/stderr")" != "$want" ]; then
        not_ok "$name" "exit $rc; stderr: $(tr '\n' '|' <"$tmp/stderr")"
    elif [ "$before" != "$after" ]; then
        not_ok "$name" "the folder changed: $(echo "$after" | tr '\n' ' ')"
    else
        ok "$name"
    fi
}

part_f_same_outputs() {
    d=$tmp/same
    mkdir -p "$d/o" "$d/sub"
    ln -s sub "$d/sublink"
    echo old >"$d/x.bmp"
    same_refused "f: -o x.bmp --class-map x.bmp (an existing image): exit 2 naming both, x.bmp untouched" \
        "tiledconv: -o x.bmp and --class-map x.bmp are the same file; give each its own name" \
        -s "$img512" -o x.bmp --class-map x.bmp
    same_refused "f: -o sub/y.png --class-map sublink/y.png (new, one folder through a link): exit 2, nothing written" \
        "tiledconv: -o sub/y.png and --class-map sublink/y.png are the same file; give each its own name" \
        -s "$img512" -o sub/y.png --class-map sublink/y.png
    same_refused "f: --raw m.png --class-map ./m.png: exit 2, nothing written" \
        "tiledconv: --raw m.png and --class-map ./m.png are the same file; give each its own name" \
        -s "$img512" --raw m.png --class-map ./m.png --no-output
    same_refused "f: the default output and --class-map TiledConv_Output.bmp: exit 2" \
        "tiledconv: -o TiledConv_Output.bmp and --class-map TiledConv_Output.bmp are the same file; give each its own name" \
        -g 64x64 --class-map TiledConv_Output.bmp
    same_refused "f: --gradient sobel -o g.bmp --raw ./g.bmp: exit 2" \
        "tiledconv: -o g.bmp and --raw ./g.bmp are the same file; give each its own name" \
        -s "$img512" --gradient sobel -o g.bmp --raw ./g.bmp
    # A batch's outputs differ by name; existing ones linked to each other are one file.
    cp "$img512" "$d/a.bmp"
    cp "$img512" "$d/b.bmp"
    echo old >"$d/o/a.bmp"
    ln "$d/o/a.bmp" "$d/o/b.bmp"
    same_refused "f: a batch whose outputs o/a.bmp and o/b.bmp are hard links: exit 2, before any image" \
        "tiledconv: -O o/a.bmp and -O o/b.bmp are the same file; give each its own name" \
        -O o a.bmp b.bmp
    rm -f "$d/o/a.bmp" "$d/o/b.bmp"
    echo old >"$d/o/a.f32"
    ln -s a.f32 "$d/o/b.f32"
    same_refused "f: a batch with --raw whose o/b.f32 links to o/a.f32: exit 2" \
        "tiledconv: --raw o/a.f32 and --raw o/b.f32 are the same file; give each its own name" \
        -O o --raw a.bmp b.bmp
    rm -f "$d/o/a.f32" "$d/o/b.f32"
    # Pyramid levels: linked to each other, or one of them another input of the run.
    echo old >"$d/o/a-o0-l0.bmp"
    ln "$d/o/a-o0-l0.bmp" "$d/o/a-o0-l1.bmp"
    same_refused "f: --pyramid 1x2 whose levels o/a-o0-l0.bmp and o/a-o0-l1.bmp are hard links: exit 2" \
        "tiledconv: -O o/a-o0-l0.bmp and -O o/a-o0-l1.bmp are the same file; give each its own name" \
        --pyramid 1x2 -O o a.bmp
    rm -f "$d/o/a-o0-l1.bmp"
    cp "$img512" "$d/o/a-o0-l0.bmp"
    same_refused "f: --pyramid 1x2 a.bmp o/a-o0-l0.bmp -O o: the first image's level would replace the second input: exit 2" \
        "tiledconv: -O o/a-o0-l0.bmp would replace the input o/a-o0-l0.bmp; refusing" \
        --pyramid 1x2 -O o a.bmp o/a-o0-l0.bmp
    rm -rf "$d"
}

# --- standard input without end after a valid header --------------------------------------------
# measured_stream NAME STATUS PATTERN MAX_KB KIND [ARG...]: tests/endless-stream.py KIND ARG...
# into `-s - -o FILE`: exit STATUS, within a second, at most MAX_KB above the baseline; with
# status 2 exactly one line matching PATTERN and no output, with 0 the output written.
measured_stream() {
    name=$1 want_status=$2 pattern=$3 max_kb=$4
    shift 4
    rm -f "$tmp/stream.bmp"
    python3 "$root/tests/endless-stream.py" "$@" 2>/dev/null |
        "$measure" -r "$tmp/report" -- "$bin" -s - -o "$tmp/stream.bmp" -q >"$tmp/stdout" 2>"$tmp/stderr"
    # shellcheck disable=SC2046
    set -- $(sed 's/[a-z_]*=//g' "$tmp/report")
    if [ "$1" -ne "$want_status" ]; then
        not_ok "$name" "status $1; stderr: $(tr '\n' '|' <"$tmp/stderr" | cut -c1-300)"
    elif [ "$1" -eq 2 ] && { [ "$(lines "$tmp/stderr")" -ne 1 ] ||
        ! grep -q "^tiledconv: standard input: $pattern\$" "$tmp/stderr" || [ -e "$tmp/stream.bmp" ]; }; then
        not_ok "$name" "stderr: $(tr '\n' '|' <"$tmp/stderr" | cut -c1-300)"
    elif [ "$1" -eq 0 ] && ! why=$(check_bmp "$tmp/stream.bmp" 512 512); then
        not_ok "$name" "$why"
    elif [ "$3" -ge 1000 ] || [ "$2" -gt $((base + max_kb)) ]; then
        not_ok "$name" "$3 ms, peak $2 KB (baseline $base KB, at most $max_kb KB more)"
    else
        ok "$name ($3 ms, peak $2 KB)"
    fi
}

part_f_streams() {
    # 64 MiB of metadata before the size, or of other chunks and markers beside the data.
    meta=$((64 * 1024 + 16384))
    measured_stream "f: -s - with a JPEG's APP1 segments without end: exit 2 at 64 MiB of markers, within a second" \
        2 'JPEG: more than 67108864 bytes of markers before the image size (SOF)' "$meta" jpeg-app1
    measured_stream "f: -s - with a JPEG's entropy-coded zeros without end after a 512 x 512 SOF: exit 2 at 4 bytes a sample and 64 MiB" \
        2 'JPEG: more than 70254592 bytes, what a 512 x 512 image of 3 components can take (4 bytes a sample and 64 MiB of markers)' \
        $((meta + 4096)) jpeg-entropy
    measured_stream "f: -s - with a 512 x 512 PNG's tEXt chunks without end: exit 2 at the PNG's bound" \
        2 'PNG: more than 67638400 bytes, what a 512 x 512 image can take (twice its raw rows and 64 MiB of other chunks)' \
        "$meta" png-chunks
    measured_stream "f: -s - with a 512 x 512 PNG's IDAT chunks without end: exit 2 at the PNG's bound" \
        2 'PNG: more than 67638400 bytes, what a 512 x 512 image can take (twice its raw rows and 64 MiB of other chunks)' \
        "$meta" png-idat
    measured_stream "f: -s - with zeros without end after a PNG's IHDR: exit 2 at the first chunk that is none" \
        2 'PNG: .*' 16384 png-zeros
    measured_stream "f: -s - with a PGM comment without end: exit 2 at 64 MiB of header" \
        2 'PGM: a header of more than 67108864 bytes' "$meta" pnm-comment
    measured_stream "f: -s - with a text PGM's spaces without end: exit 2 at 8 bytes a sample" \
        2 'PGM: more than 2162703 bytes, what 512 x 512 text samples can take (8 bytes a sample)' \
        16384 pnm-text
    # A complete image with bytes after it: the image is read, what follows is not.
    measured_stream "f: -s - with a binary PGM header and zeros without end: the 512 x 512 raster read exactly, written" \
        0 '' 16384 pnm-binary
    bad=
    for f in g8.png rgb8i.png base420.jpg prog420.jpg restart444.jpg g15-text.pgm rgb8.ppm; do
        "$bin" -s "$root/tests/data/formats/$f" -o "$tmp/whole.bmp" -q 2>"$tmp/stderr"
        python3 "$root/tests/endless-stream.py" trailing "$root/tests/data/formats/$f" 2>/dev/null |
            "$bin" -s - -o "$tmp/piped.bmp" -q 2>>"$tmp/stderr"
        cmp -s "$tmp/whole.bmp" "$tmp/piped.bmp" || bad="$bad $f: $(first_line "$tmp/stderr");"
        rm -f "$tmp/whole.bmp" "$tmp/piped.bmp"
    done
    name="f: -s - with PNG, JPEG and PGM/PPM files followed by zeros without end: each read to its end, as from the file"
    verdict "$name"
}

part_f() {
    if ! build_measure; then
        not_ok "f: tests/measure.c builds" "$(first_line "$tmp/measure.log")"
        return
    fi
    # The programs of the runs measured below are built first: on a cold program cache (a
    # fresh machine) the compiler's own memory would land in one run's peak and not in the
    # baseline's (seen: 97 MB against 77 + 16 for the PGM read to the end of its raster).
    "$bin" -g 16x16 --no-output -q 2>/dev/null
    python3 "$root/tests/endless-stream.py" pnm-binary 2>/dev/null |
        "$bin" -s - -o "$tmp/stream.bmp" -q 2>/dev/null
    rm -f "$tmp/stream.bmp"
    # The tool's own peak on a 16 x 16 image: the bounds below are relative to it.
    measured -g 16x16 --no-output -q
    base=$m_rss
    name="f: the tool's own baseline (-g 16x16) is measured"
    if [ "$m_status" -ne 0 ] || [ "$base" -le 0 ]; then
        not_ok "$name" "status $m_status, $base KB"
        return
    fi
    ok "$name ($base KB)"
    part_f_bombs
    part_f_plan
    part_f_numbers
    part_f_kills
    part_f_files
    part_f_messages
    part_f_lists
    part_f_optional
    part_f_same_outputs
    part_f_streams
}
