#!/bin/sh
# tests/hardening3.sh - the third round of hardening (docs/safety.md): what an attack run on the
# tool found, each case failing before its fix.
#   1. a batch image filtered in strips keeps its own format and depth (it came out as an 8-bit
#      BMP whatever its name), byte for byte the whole run's;
#   2. outputs made by a batch's worker threads under umask 077 are 0600, every one of 2,000 in
#      each of ten runs (the umask was set to 022 and back while other threads created files);
#   3. a write that fails in strips names its file (the message held a pointer into a finished
#      stack frame);
#   4. (tests/detach.sh: a waiter killed with SIGTERM ignored takes its child with it)
#   7. an output whose name is 248 bytes or longer replaces an existing file;
#   8. a FIFO with no writer among a batch's inputs is refused in bounded time, the rest written;
#   9. a batch whose stderr is closed goes on: every good image written, the exit status 2;
#   6. --max-memory bounds the process's peak: a budget no run can keep is refused before the
#      platform opens (1M cost 76 MB first), and batches and single images in strips stay
#      within 300M and 400M from cold caches and warm (400M: 470 MB cold before).
#   (5: tests/python/test_batch_overlap.py; 10: tests/test_name_list.c and tests/fuzz_list.c)
#
#   sh tests/hardening3.sh BINARY
. "$(dirname "$0")/lib.sh"
test_begin hardening3 "$@"

mkdir -p "$tmp/in" "$tmp/out"
"$bin" -g 4000x3000 --color -o "$tmp/in/big.jpg" -q &&
    "$bin" -g 4000x3000 -o "$tmp/in/big.pgm" -q &&
    "$bin" -g 4000x3000 --depth 16 -o "$tmp/in/deep.png" -q &&
    "$bin" -g 64x48 -o "$tmp/in/small.png" -q || {
    echo "hardening3: cannot make the inputs" >&2
    exit 1
}

# 1. Strips in a batch: under a --max-memory that sends the large images into strips (the
# smallest of these budgets that does, on this device: the platform's own reserve is part of
# the plan, about 200 MB on PoCL), the small one whole; every output in its input's format
# and depth, equal to the same batch with room for every image whole.
bad=
budget=
for m in 230M 260M 300M 350M 400M 500M 650M 800M 1G; do
    rm -rf "$tmp/strips"
    if "$bin" --max-memory $m -O "$tmp/strips" -f 5 -v "$tmp/in/big.pgm" "$tmp/in/big.jpg" \
        "$tmp/in/deep.png" "$tmp/in/small.png" >"$tmp/log" 2>&1 &&
        grep -q 'in strips, [0-9]* band' "$tmp/log"; then
        budget=$m
        break
    fi
done
[ -n "$budget" ] || bad="no budget sent an image into strips: $(tail -n 2 "$tmp/log")"
"$bin" --max-memory 4G -O "$tmp/whole" -f 5 "$tmp/in/big.pgm" "$tmp/in/big.jpg" \
    "$tmp/in/deep.png" "$tmp/in/small.png" -q || bad="$bad; the whole run: exit $?"
strips=$(grep -c 'in strips, [0-9]* band' "$tmp/log")
[ "$strips" -ge 1 ] || bad="$bad; nothing went in strips (no proof)"
grep -q 'small.png (64 x 48):' "$tmp/log" || bad="$bad; small.png went in strips"
for f in big.pgm big.jpg deep.png small.png; do
    cmp -s "$tmp/strips/$f" "$tmp/whole/$f" || bad="$bad; $f differs from the whole run's"
done
head -c 2 "$tmp/strips/big.pgm" | grep -q P5 || bad="$bad; big.pgm is not a PGM"
head -c 3 "$tmp/strips/big.jpg" | od -An -tx1 | grep -q 'ff d8 ff' || bad="$bad; big.jpg not a JPEG"
[ "$(od -An -tu1 -j 24 -N 1 "$tmp/strips/deep.png" | tr -d ' ')" = 16 ] ||
    bad="$bad; deep.png is not a 16-bit PNG"
verdict "1: a batch's images in strips (--max-memory $budget) keep their formats and depth"

# 2. Under umask 077 every output of 2,000, in each of ten batches, is 0600 (and the folder
# -O makes 0700). Eight worker threads, so that files are made side by side.
bad=
mkdir -p "$tmp/many"
"$bin" -g 16x12 -o "$tmp/tiny.pgm" -q
i=0
while [ "$i" -lt 2000 ]; do
    cp "$tmp/tiny.pgm" "$tmp/many/t$i.pgm"
    i=$((i + 1))
done
run=0
while [ "$run" -lt 10 ]; do
    rm -rf "$tmp/umask"
    (umask 077 && exec "$bin" -O "$tmp/umask" --threads 8 --no-sync -f 3 -q "$tmp/many"/*.pgm) ||
        bad="$bad; run $run: exit $?"
    wrong=$(find "$tmp/umask" -type f ! -perm 600 | wc -l)
    made=$(find "$tmp/umask" -type f | wc -l)
    [ "$made" -eq 2000 ] && [ "$wrong" -eq 0 ] ||
        bad="$bad; run $run: $wrong of $made outputs not 0600"
    [ "$(stat -c %a "$tmp/umask")" = 700 ] || bad="$bad; run $run: the folder $(stat -c %a "$tmp/umask")"
    run=$((run + 1))
done
verdict "2: umask 077: 10 batches of 2,000 images, every output 0600"

# 3. A strips write that fails (a file-size limit: EFBIG, as a full disk's ENOSPC) names the
# output in its one line, and leaves nothing.
bad=
rm -rf "$tmp/fail" && mkdir -p "$tmp/fail"
(ulimit -f 2048 && exec "$bin" --max-memory "${budget:-260M}" -s "$tmp/in/big.pgm" -o "$tmp/fail/out.pgm" \
    -f 5 -q) 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || bad="exit $rc"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$tmp/fail/out.pgm" "$tmp/err" ||
    bad="$bad; said: $(head -c 300 "$tmp/err")"
[ -z "$(ls -A "$tmp/fail")" ] || bad="$bad; left: $(ls -A "$tmp/fail")"
verdict "3: a failed write in strips: exit 1, one line naming the file, nothing left"

# 7. Names of 248 to 255 bytes, new and replacing a file: the temporary name stays within the
# file system's 255.
bad=
for n in 248 251 255; do
    name=$(printf "%0${n}d" 0 | tr 0 a)
    name=${name%????}.bmp
    for way in new replaced; do
        rm -f "$tmp/out/$name"
        [ "$way" = replaced ] && echo old >"$tmp/out/$name"
        "$bin" -s "$tmp/in/small.png" -o "$tmp/out/$name" -f 3 -q 2>"$tmp/err" ||
            bad="$bad; $n bytes, $way: exit $?, $(head -c 200 "$tmp/err")"
        head -c 2 "$tmp/out/$name" 2>/dev/null | grep -q BM || bad="$bad; $n bytes, $way: no BMP"
    done
    rm -f "$tmp/out/$name"
done
[ -z "$(ls -A "$tmp/out")" ] || bad="$bad; left: $(ls -A "$tmp/out" | head -c 100)"
verdict "7: outputs named with 248 to 255 bytes, new and replacing a file"

# 8. A FIFO nobody writes to, among a batch's inputs: refused within its wait (10 s), the
# other images written.
bad=
rm -rf "$tmp/fifo" "$tmp/fifo-out" && mkdir -p "$tmp/fifo"
cp "$tmp/in/small.png" "$tmp/fifo/a.png" && cp "$tmp/tiny.pgm" "$tmp/fifo/c.pgm"
mkfifo "$tmp/fifo/b.png"
start=$(date +%s)
timeout 60 "$bin" -O "$tmp/fifo-out" -f 3 -q "$tmp/fifo"/* 2>"$tmp/err"
rc=$?
took=$(($(date +%s) - start))
[ "$rc" -eq 2 ] || bad="exit $rc"
[ "$took" -le 30 ] || bad="$bad; took $took s"
[ -f "$tmp/fifo-out/a.png" ] && [ -f "$tmp/fifo-out/c.pgm" ] || bad="$bad; the good images missing"
[ ! -e "$tmp/fifo-out/b.png" ] || bad="$bad; b.png written"
grep -q 'b.png.*FIFO' "$tmp/err" || bad="$bad; said: $(head -c 300 "$tmp/err")"
verdict "8: a FIFO with no writer is refused after its wait ($took s), the batch goes on"

# 9. stderr (and stdout) closed by their reader before the run's first refusal: the batch goes
# on, every good image written, exit 2 for the refused one.
bad=
rm -rf "$tmp/closed" && mkdir -p "$tmp/closed-in"
i=0
while [ "$i" -lt 9 ]; do
    cp "$tmp/tiny.pgm" "$tmp/closed-in/g$i.pgm"
    i=$((i + 1))
done
echo "not an image" >"$tmp/closed-in/bad.pgm"
{ "$bin" -O "$tmp/closed" -f 3 "$tmp/closed-in/bad.pgm" "$tmp/closed-in"/g*.pgm 2>&1; echo $? >"$tmp/rc"; } |
    head -c 0
rc=$(cat "$tmp/rc")
[ "$rc" -eq 2 ] || bad="exit $rc"
[ "$(ls "$tmp/closed" 2>/dev/null | wc -l)" -eq 9 ] ||
    bad="$bad; $(ls "$tmp/closed" 2>/dev/null | wc -l) of 9 images written"
verdict "9: a batch with stderr closed writes every good image and exits 2"

# 6. --max-memory bounds the peak resident memory (tests/measure.c: the tool and its detached
# child), the OpenCL platform and its programs' builds included.
measure=$tmp/measure
if ! ${CC:-cc} -std=c11 -O1 -o "$measure" "$root/tests/measure.c"; then
    not_ok "6: --max-memory" "tests/measure.c does not build"
    test_end
    exit
fi
peak_kb() { sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' "$tmp/report"; }
# 6a. A budget below what any run takes before its first image: refused in one line naming the
# least budget, before the platform opens, nothing written; one image and a batch.
bad=
for args in "-o $tmp/tiny.png $tmp/in/small.png" "-O $tmp/tiny $tmp/in/small.png $tmp/in/big.pgm"; do
    rm -rf "$tmp/tiny" "$tmp/tiny.png"
    # shellcheck disable=SC2086
    "$measure" -r "$tmp/report" -- "$bin" --max-memory 1M -f 5 $args >/dev/null 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'give at least [0-9]*M$' "$tmp/err" &&
        [ ! -e "$tmp/tiny" ] && [ ! -e "$tmp/tiny.png" ] && [ "$(peak_kb)" -lt 32768 ] ||
        bad="$bad [$args: exit $rc, peak $(peak_kb) KB, $(head -c 200 "$tmp/err")]"
done
verdict "6a: --max-memory 1M refused before the platform opens (exit 2, one line, under 32 MB)"
# 6b, 6c. A batch of large and small images in three formats (16 bits among them, two go in
# strips) and one 16-bit image in strips, under 300M and 400M, from a cold kernel cache and
# again warm: the peak within the budget; at 400M every image written (300M may refuse an
# image whose band does not fit beside what a cold build keeps, exit 2).
avail=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
if [ "${avail:-0}" -lt 1572864 ]; then
    echo "skip - 6b, 6c: $((${avail:-0} / 1024)) MB available, 1536 MB wanted"
else
    POCL_CACHE_DIR=$tmp/pocl-cold
    export POCL_CACHE_DIR
    mkdir -p "$POCL_CACHE_DIR"
    for cache in cold warm; do
        bad=
        for m in 300M 400M; do
            bytes_kb=$((${m%M} * 1024))
            for what in batch one; do
                rm -rf "$tmp/mm" "$tmp/mm.png"
                if [ "$what" = batch ]; then
                    set -- -O "$tmp/mm" "$tmp/in/big.jpg" "$tmp/in/big.pgm" "$tmp/in/deep.png" \
                        "$tmp/in/small.png"
                    want=4
                else
                    set -- -o "$tmp/mm.png" "$tmp/in/deep.png"
                    want=1
                fi
                TILEDCONV_PROGRAM_CACHE=off "$measure" -r "$tmp/report" -- "$bin" \
                    --max-memory $m -f 5 -q "$@" >/dev/null 2>"$tmp/err"
                rc=$?
                written=$( (ls "$tmp/mm" 2>/dev/null; ls "$tmp/mm.png" 2>/dev/null) | wc -l)
                [ "$(peak_kb)" -le "$bytes_kb" ] || bad="$bad [$m $what: peak $(peak_kb) KB]"
                if [ "$m" = 400M ] || [ "$rc" -ne 2 ]; then
                    [ "$rc" -eq 0 ] && [ "$written" -eq "$want" ] ||
                        bad="$bad [$m $what: exit $rc, $written of $want written: $(head -c 200 "$tmp/err")]"
                fi
                echo "hardening3: 6, $cache, --max-memory $m, $what: exit $rc, peak $(peak_kb) KB, $written of $want written"
            done
        done
        verdict "6$([ $cache = cold ] && echo b || echo c): --max-memory 300M and 400M, $cache kernel cache: every peak within the budget"
    done
fi

test_end
