#!/bin/sh
# tests/doc-commands.sh - what the docs tell a user to run, runs as written.
#
# Usage: sh tests/doc-commands.sh ./tiledconv   (from the project root; make doc-tests)
#
# The convention the docs follow, and what this script runs:
#   - README.md and docs/*.md (but the manual and the benchmarks' GPU runs): every ```sh block
#     is a script a user types into a shell, every ```python block a Python program, every
#     ```c block a whole C program. A block fenced otherwise (``` alone: the `make` commands of
#     the project root, output, formulas) is not run.
#   - docs/manual.md: every indented block (4 spaces) of its EXAMPLES chapter.
# Each block runs as one script (bash -e -o pipefail; Python with PYTHONPATH=python; C compiled
# against include/ and build/lib) in a fresh scratch folder that holds the names the docs use,
# made from the bundled images (the table below), with BINARY on the PATH as `tiledconv` and
# the project's scripts/ linked in, as a user runs them from a checkout. It must exit 0.
# To keep the run short on a CPU device, `-g WxH` becomes `-g 256x256` and `-i N` becomes
# `-i 2`; nothing else is changed.
#
# Also: every relative link of the docs names a file of the tree; the docs name no issue
# number, no SPEC.md and no path of the machine they were written on; every tracked script that
# starts with #! has its execute bit.
#
# Prints "ok - ..." or "not ok - ...: why" per check, then "doc-commands: N passed, M failed";
# exit 1 when any failed.
. "$(dirname "$0")/lib.sh"
test_begin doc-commands "$@"
python=${PYTHON:-/usr/bin/python3}
libdir=$root/${LIBOUT:-build/lib}

# The names the docs use, made from the bundled images: the article's 512 x 512 BMP, the
# small PNG, JPEG and PGM fixtures of tests/data/formats, and a folder of them.
fixture() {
    d=$1
    f=$root/tests/data/formats
    cp -R "$root/images" "$d/images"
    ln -s "$root/scripts" "$d/scripts"
    cp "$root/images/TiledConv_Input512x512.bmp" "$d/in.bmp"
    cp "$root/images/TiledConv_Input451x300.bmp" "$d/photo.bmp"
    cp "$f/rgb8.png" "$d/in.png"
    cp "$f/rgb8.png" "$d/photo.png"
    cp "$f/base420.jpg" "$d/photo.jpg"
    cp "$f/g16.png" "$d/scan16.png"
    cp "$f/g8.pgm" "$d/scan.pgm"
    mkdir "$d/photos"
    cp "$f/base420.jpg" "$d/photos/beach.jpg"
    cp "$f/base444.jpg" "$d/photos/dunes.jpg"
    cp "$f/prog420.jpg" "$d/photos/pier.jpg"
    cp "$f/rgb8.png" "$d/photos/sky.png"
    cp "$f/rgb16.png" "$d/photos/sea16.png"
    cp "$root/images/TiledConv_Input451x300.bmp" "$d/photos/harbour.bmp"
    cp "$root/images/TiledConv_Input1000x872.bmp" "$d/photos/market.bmp"
}

mkdir "$tmp/bin" "$tmp/blocks"
ln -s "$bin" "$tmp/bin/tiledconv"

# blocks FILE MODE: writes each block of FILE to $tmp/blocks/N.KIND and a line "N KIND FILE:LINE"
# to $tmp/blocks/list. MODE fenced: ```sh, ```python and ```c blocks; examples: the indented
# blocks of the chapter "## EXAMPLES".
blocks() {
    awk -v file="$1" -v mode="$2" -v dir="$tmp/blocks" '
        function start(kind) { out = dir "/" (++count) "." kind
                               printf "%d %s %s:%d\n", count, kind, file, NR >> (dir "/list") }
        BEGIN { count = 0; while ((getline line < (dir "/list")) > 0) count++; close(dir "/list") }
        mode == "fenced" && inblock && /^```[ \t]*$/ { inblock = 0; close(out); next }
        mode == "fenced" && inblock { print > out; next }
        mode == "fenced" && /^```(sh|python|c)[ \t]*$/ {
            kind = substr($0, 4); sub(/[ \t]+$/, "", kind); inblock = 1; start(kind); next }
        mode == "examples" && /^## / {
            chapter = ($0 == "## EXAMPLES"); if (inblock) close(out); inblock = 0; next }
        mode == "examples" && chapter && /^    / {
            if (!inblock) { inblock = 1; start("sh") } print substr($0, 5) > out; next }
        mode == "examples" && inblock && /^[ \t]*$/ { next }
        mode == "examples" && inblock { inblock = 0; close(out) }
    ' "$1"
}

: >"$tmp/blocks/list"
docs="README.md"
for f in docs/*.md; do
    case $f in
        docs/manual.md|docs/benchmarks.md) ;;
        *) docs="$docs $f" ;;
    esac
done
for f in $docs; do
    blocks "$f" fenced
done
blocks docs/manual.md examples

while read -r n kind where; do
    dir=$tmp/run$n
    mkdir "$dir"
    fixture "$dir"
    block=$tmp/blocks/$n.$kind
    sed -e 's/-g [0-9][0-9]*x[0-9][0-9]*/-g 256x256/g' -e 's/-i [0-9][0-9]*/-i 2/g' \
        "$block" >"$dir/.block"
    first=$(sed -n '/[^ ]/{p;q;}' "$block" | cut -c1-70)
    name="$where ($kind): $first"
    case $kind in
        sh)
            (cd "$dir" && PATH=$tmp/bin:$PATH bash -e -o pipefail .block) >"$dir/.out" 2>&1 ;;
        python)
            (cd "$dir" && PYTHONPATH=$root/python "$python" .block) >"$dir/.out" 2>&1 ;;
        c)
            (cd "$dir" && mv .block prog.c && ${CC:-cc} -std=c11 -Wall -Werror -I"$root/include" \
                -o prog prog.c -L"$libdir" -ltiledconv -Wl,-rpath,"$libdir" && ./prog) \
                >"$dir/.out" 2>&1 ;;
    esac
    rc=$?
    if [ "$rc" -ne 0 ]; then
        not_ok "$name" "exit status $rc: $(grep -v '^$' "$dir/.out" | tail -n 1)"
    else
        ok "$name"
    fi
    rm -rf "$dir"
done <"$tmp/blocks/list"

count=$(wc -l <"$tmp/blocks/list")
name="the docs show commands to run (README.md, docs/*.md, the manual's EXAMPLES)"
if [ "$count" -lt 20 ]; then
    not_ok "$name" "only $count blocks found: did the convention change?"
else
    ok "$name: $count blocks"
fi

# Relative links of the docs name files of the tree.
all_docs="$docs docs/manual.md CHANGELOG.md python/README.md bench/README.md"
[ -f docs/benchmarks.md ] && all_docs="$all_docs docs/benchmarks.md"
for f in $all_docs; do
    [ -f "$f" ] || continue
    bad=""
    for target in $(grep -o '](\([^)#: ]*\)' "$f" | sed 's/^](//'); do
        [ -e "$(dirname "$f")/$target" ] || bad="$bad $target"
    done
    if [ -n "$bad" ]; then
        not_ok "$f: every relative link names a file" "missing:$bad"
    else
        ok "$f: every relative link names a file"
    fi
done

# The docs stand alone: no issue numbers, no SPEC.md (a contract kept outside the tree), no
# path of the machine they were written on.
# shellcheck disable=SC2086
hits=$(grep -niE 'issues? ?#?[0-9]+|SPEC\.md|/work/' $all_docs 2>/dev/null | head -n 3)
if [ -n "$hits" ]; then
    not_ok "the docs cite no issue number, SPEC.md or /work/" "$hits"
else
    ok "the docs cite no issue number, SPEC.md or /work/"
fi

# Every tracked script that starts with #! has its execute bit (a committed 100644 answers
# "Permission denied" to the user who runs it as the docs say).
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    bad=""
    for f in $(git -C "$root" ls-files -s | awk '$1 == "100644" { print $4 }'); do
        [ "$(head -c 2 "$root/$f" 2>/dev/null)" = "#!" ] && bad="$bad $f"
    done
    if [ -n "$bad" ]; then
        not_ok "every tracked script with #! is executable (100755)" "100644:$bad"
    else
        ok "every tracked script with #! is executable (100755)"
    fi
else
    ok "every tracked script with #! is executable # SKIP not a git checkout"
fi

test_end
