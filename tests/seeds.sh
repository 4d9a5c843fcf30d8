#!/bin/sh
# What the seed articles teach, runnable, end to end on the default device:
#   a. --class-map: the picture of the four classes for a small layout, its size, the ROIs'
#      outlines and the tiles' colours at known pixels, and the legend's counts equal to the
#      classes the kernel counted (-v).
# Usage: sh tests/seeds.sh ./tiledconv   (from the project root). Prints "ok - ..." or
# "not ok - ...: why" per case, then "seeds: N passed, M failed"; exit 1 when any failed.

. "$(dirname "$0")/lib.sh"
test_begin seeds "$@"

# pixel BMP X Y: "R G B" of the picture's pixel (X, Y), row 0 on top, of a 24-bit BMP.
pixel() {
    python3 - "$@" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
x, y = int(sys.argv[2]), int(sys.argv[3])
off = int.from_bytes(d[10:14], "little")
w, h = int.from_bytes(d[18:22], "little"), int.from_bytes(d[22:26], "little")
stride = (3 * w + 3) // 4 * 4
p = off + stride * (h - 1 - y) + 3 * x
print(d[p + 2], d[p + 1], d[p])
PY
}

# --- a. the class map --------------------------------------------------------------------------
# 100 x 80, the article's ROI offsets: tiles of 32 x 32 on the target's 4-column grid, the
# first starting 2 columns left of the tROI (tL = 2).
args="-g 100x80 -sL 3 -sT 3 -tL 2 -tT 2"
# shellcheck disable=SC2086
"$bin" $args -v --no-output --class-map "$tmp/map.bmp" >"$tmp/out" 2>"$tmp/err"
rc=$?
counts=$(sed -n 's/.*class 1 (free on read) \([0-9]*\), class 2 (checks reads) \([0-9]*\), class 3 (free on write) \([0-9]*\), class 4 (checks writes) \([0-9]*\).*/\1 \2 \3 \4/p' "$tmp/out")
if [ "$rc" -ne 0 ] || [ -z "$counts" ] || [ ! -f "$tmp/map.bmp" ]; then
    not_ok "a: --class-map runs with -v" "exit $rc, counts '$counts': $(sed -n 1p "$tmp/err")"
else
    ok "a: --class-map runs with -v (kernel's counts: $counts)"
    size=$(python3 -c "
import sys; d = open('$tmp/map.bmp', 'rb').read()
print(int.from_bytes(d[18:22], 'little'), int.from_bytes(d[22:26], 'little'))")
    # The canvas: at least 170 wide for the legend, the image's 80 rows and 56 of legend.
    [ "$size" = "170 136" ] && ok "a: the picture is 170 x 136 (100 x 80 and the legend)" ||
        not_ok "a: the picture's size" "$size"
    bad=""
    # The tROI's outline (magenta, drawn last) and the sROI's (cyan) where no other crosses.
    [ "$(pixel "$tmp/map.bmp" 2 40)" = "255 0 255" ] || bad="$bad [tROI left edge: $(pixel "$tmp/map.bmp" 2 40)]"
    [ "$(pixel "$tmp/map.bmp" 50 3)" = "0 255 255" ] || bad="$bad [sROI top edge: $(pixel "$tmp/map.bmp" 50 3)]"
    # The first tile (x 0..31, y 2..33) is class 4: it starts 2 columns left of the tROI; its
    # outline is red, two pixels thick (its left columns 0 and 1).
    [ "$(pixel "$tmp/map.bmp" 0 20)" = "255 0 0" ] || bad="$bad [class-4 outline: $(pixel "$tmp/map.bmp" 0 20)]"
    [ "$(pixel "$tmp/map.bmp" 1 20)" = "255 0 0" ] || bad="$bad [class-4 outline, 2nd: $(pixel "$tmp/map.bmp" 1 20)]"
    # Inside a tile: tinted, the read class's colour stronger than the others.
    set -- $(pixel "$tmp/map.bmp" 16 18)
    [ "$1" -gt "$3" ] || bad="$bad [tile at (16, 18) not tinted orange (class 2): $*]"
    # The legend's swatches: green, orange, then black framed in gray and in red.
    [ "$(pixel "$tmp/map.bmp" 6 86)" = "0 200 0" ] || bad="$bad [class-1 swatch: $(pixel "$tmp/map.bmp" 6 86)]"
    [ "$(pixel "$tmp/map.bmp" 6 96)" = "255 140 0" ] || bad="$bad [class-2 swatch: $(pixel "$tmp/map.bmp" 6 96)]"
    [ "$(pixel "$tmp/map.bmp" 4 114)" = "255 0 0" ] || bad="$bad [class-4 swatch: $(pixel "$tmp/map.bmp" 4 114)]"
    [ -z "$bad" ] && ok "a: the picture at known pixels: the ROIs, a class-4 outline, a tint, the legend" ||
        not_ok "a: the picture at known pixels" "$bad"
    # The tiles' tints against the classes the kernel counted: the centre of each tile's
    # visible part (tiles of 32 from x = tL - tL mod 4 = 0 and y = tT = 2) is green for
    # class 1, orange for class 2.
    tints=$(python3 - "$tmp/map.bmp" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
off = int.from_bytes(d[10:14], "little")
w, h = int.from_bytes(d[18:22], "little"), int.from_bytes(d[22:26], "little")
stride = (3 * w + 3) // 4 * 4
def px(x, y):
    p = off + stride * (h - 1 - y) + 3 * x
    return d[p + 2], d[p + 1], d[p]
green = orange = 0
for y0 in range(2, 2 + 77, 32):
    for x0 in range(0, 2 + 97, 32):
        x1, y1 = min(x0 + 32, 100), min(y0 + 32, 80)
        r, g, b = px((x0 + x1) // 2, (y0 + y1) // 2)
        green += g > r
        orange += r > g
print(green, orange)
PY
)
    [ "$tints" = "$(echo "$counts" | cut -d' ' -f1,2)" ] &&
        ok "a: tiles tinted class 1 and class 2 as the kernel counted them ($tints)" ||
        not_ok "a: the tints against the kernel's counts" "tints $tints, kernel $counts"
fi
# A bad path is refused before any work.
"$bin" -g 64x64 --no-output --class-map /proc/nope/map.bmp >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok "a: --class-map to a missing folder: exit 2, one line" ||
    not_ok "a: --class-map to a missing folder" "exit $rc: $(cat "$tmp/err")"

# The format follows the extension: a PNG of the same pixels as the BMP; an extension the tool
# does not write is a usage error, before any work.
# shellcheck disable=SC2086
"$bin" $args --no-output --class-map "$tmp/map.png" >/dev/null 2>"$tmp/err"
rc=$?
same=$(python3 - "$tmp/map.bmp" "$tmp/map.png" <<'PY'
import sys, zlib
d = open(sys.argv[1], "rb").read()
off = int.from_bytes(d[10:14], "little")
w, h = int.from_bytes(d[18:22], "little"), int.from_bytes(d[22:26], "little")
stride = (3 * w + 3) // 4 * 4
bmp = b"".join(bytes(d[off + stride * (h - 1 - y) + 3 * x + c] for x in range(w) for c in (2, 1, 0))
               for y in range(h))
p = open(sys.argv[2], "rb").read()
assert p[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(p):
    n = int.from_bytes(p[pos:pos + 4], "big"); kind = p[pos + 4:pos + 8]
    if kind == b"IHDR":
        pw, ph, depth, ctype = int.from_bytes(p[pos + 8:pos + 12], "big"), int.from_bytes(p[pos + 12:pos + 16], "big"), p[pos + 16], p[pos + 17]
    if kind == b"IDAT":
        idat += p[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
row = 3 * pw
rows, prev = [], bytearray(row)
for y in range(ph):
    f, line = raw[y * (row + 1)], bytearray(raw[y * (row + 1) + 1:(y + 1) * (row + 1)])
    for i in range(row):
        a = line[i - 3] if i >= 3 else 0
        b = prev[i]
        c = prev[i - 3] if i >= 3 else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
print("same" if (pw, ph, depth, ctype) == (w, h, 8, 2) and b"".join(rows) == bmp else "differ")
PY
)
[ "$rc" -eq 0 ] && [ "$same" = "same" ] && ok "a: --class-map NAME.png writes a PNG of the BMP's pixels" ||
    not_ok "a: --class-map NAME.png" "exit $rc, $same: $(sed -n 1p "$tmp/err")"
"$bin" -g 64x64 --no-output --class-map "$tmp/map.gif" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/map.gif" ] &&
    ok "a: --class-map NAME.gif: exit 2, one line, nothing written" ||
    not_ok "a: --class-map NAME.gif" "exit $rc: $(cat "$tmp/err")"

mkdir "$tmp/outdir"
cp "$root/images/TiledConv_Input512x512.bmp" "$tmp/one.bmp"
cp "$root/images/TiledConv_Input512x512.bmp" "$tmp/two.bmp"
"$bin" --class-map "$tmp/batch-map.bmp" -O "$tmp/outdir" "$tmp/one.bmp" "$tmp/two.bmp" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/batch-map.bmp" ] &&
    [ -z "$(ls "$tmp/outdir")" ] && ok "a: --class-map with a batch: exit 2, one line, nothing written" ||
    not_ok "a: --class-map with a batch" "exit $rc: $(cat "$tmp/err")"

test_end
