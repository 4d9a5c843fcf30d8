#!/usr/bin/env python3
"""Makes the small PNG, PGM/PPM and JPEG files in this folder (tests/data/formats/).

    python3 tests/data/formats/make-fixtures.py      (from the repository root; needs cjpeg)

They are the unit tests' inputs (tests/test_png.c, test_pnm.c, test_jpeg.c recompute every
expected sample from the formulas below, which they repeat) and the fuzzers' seeds. The PNG and
PNM writers here are written from the specifications, independently of the C code under test:
every filter type, Adam7 interlacing, packed 1/2/4-bit rows, split IDATs and ancillary chunks,
so that libspng's reading through our glue is checked against another implementation.
"""
import os
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 13, 11  # odd sizes: partial bytes in packed rows, partial Adam7 passes, partial MCUs


def sample(x, y, c, maxval):
    """The sample of channel c at (x, y) of every PNG and PNM fixture (tests repeat it)."""
    return (x * 37 + y * 101 + c * 59 + x * y * 7) % (maxval + 1)


def palette_entry(i):
    """Palette entry i (R, G, B) of the indexed PNG fixtures (tests repeat it)."""
    return ((i * 17) % 256, (i * 91 + 3) % 256, (255 - i * 3) % 256)


# ---- PNG -------------------------------------------------------------------------------------

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xffffffff)


def pack_row(samples, bd):
    if bd == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    if bd == 8:
        return bytes(samples)
    out, acc, n = bytearray(), 0, 0
    for s in samples:
        acc = (acc << bd) | s
        n += bd
        if n == 8:
            out.append(acc)
            acc, n = 0, 0
    if n:
        out.append(acc << (8 - n))
    return bytes(out)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_rows(rows, bpp):
    """Each row with its filter byte; the filter type cycles 0..4 so that all five are used."""
    out, prev = bytearray(), None
    for k, row in enumerate(rows):
        ftype = k % 5
        up = prev if prev is not None else bytes(len(row))
        f = bytearray()
        for i, v in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = up[i]
            c = up[i - bpp] if i >= bpp else 0
            pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][ftype]
            f.append((v - pred) & 0xff)
        out += bytes([ftype]) + f
        prev = row
    return bytes(out)


def png(name, ctype, bd, pixels, interlace=False, plte=None, extra=(), idat_split=0, w=W, h=H):
    """pixels[y][x] is a tuple of the file's samples (indices for ctype 3)."""
    ch = CHANNELS[ctype]
    bpp = max(1, ch * bd // 8)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    raw = b""
    for x0, y0, dx, dy in passes:
        xs, ys = range(x0, w, dx), range(y0, h, dy)
        if not xs or not ys:
            continue  # an empty pass has no rows at all, not even filter bytes
        rows = [pack_row([s for x in xs for s in pixels[y][x]], bd) for y in ys]
        raw += filter_rows(rows, bpp)
    z = zlib.compress(raw, 9)
    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bd, ctype, 0, 0, 1 if interlace else 0))
    for kind, data in extra:
        if kind != b"tRNS":
            out += chunk(kind, data)
    if plte is not None:
        out += chunk(b"PLTE", b"".join(bytes(e) for e in plte))
    for kind, data in extra:
        if kind == b"tRNS":  # tRNS must follow PLTE
            out += chunk(kind, data)
    step = idat_split or len(z)
    for i in range(0, len(z), step):
        out += chunk(b"IDAT", z[i:i + step])
    out += chunk(b"IEND", b"")
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(out)


def grid(ch, maxval, w=W, h=H):
    return [[tuple(sample(x, y, c, maxval) for c in range(ch)) for x in range(w)] for y in range(h)]


def make_pngs():
    for bd in (1, 2, 4, 8, 16):
        png("g%d.png" % bd, 0, bd, grid(1, (1 << bd) - 1))
    png("g1i.png", 0, 1, grid(1, 1), interlace=True)
    png("g16i.png", 0, 16, grid(1, 65535), interlace=True)
    png("ga8.png", 4, 8, grid(2, 255))
    png("ga16.png", 4, 16, grid(2, 65535))
    png("rgb8.png", 2, 8, grid(3, 255), idat_split=40)
    png("rgb8i.png", 2, 8, grid(3, 255), interlace=True)
    png("rgb16.png", 2, 16, grid(3, 65535))
    png("rgba8.png", 6, 8, grid(4, 255))
    png("rgba16i.png", 6, 16, grid(4, 65535), interlace=True)
    for bd in (1, 2, 4):
        n = 1 << bd
        png("p%d.png" % bd, 3, bd, grid(1, n - 1), plte=[palette_entry(i) for i in range(n)])
    png("p2i.png", 3, 2, grid(1, 3), interlace=True, plte=[palette_entry(i) for i in range(4)])
    # 8-bit indices into a palette of 200 entries, with a tRNS the reader must ignore.
    png("p8.png", 3, 8, grid(1, 199), plte=[palette_entry(i) for i in range(200)],
        extra=[(b"tRNS", bytes(range(0, 200, 2)))])
    # Ancillary chunks the reader skips: tRNS, gAMA, sBIT, tEXt, zTXt.
    png("g8anc.png", 0, 8, grid(1, 255),
        extra=[(b"gAMA", struct.pack(">I", 45455)), (b"sBIT", b"\x05"),
               (b"tEXt", b"Comment\x00made by make-fixtures.py"),
               (b"zTXt", b"Title\x00\x00" + zlib.compress(b"tiledconv test " * 20)),
               (b"tRNS", struct.pack(">H", 7))])
    # Broken on purpose: indices up to 15 into a palette of 10 entries (refused by the tool).
    png("bad-p4-index.png", 3, 4, grid(1, 15), plte=[palette_entry(i) for i in range(10)])


# ---- PGM / PPM -------------------------------------------------------------------------------

def pnm(name, magic, maxval, header_words=None):
    ch = 3 if magic in ("P3", "P6") else 1
    px = grid(ch, maxval)
    head = header_words or "%s\n%d %d\n%d\n" % (magic, W, H, maxval)
    if magic in ("P5", "P6"):
        fmt = ">H" if maxval > 255 else ">B"
        body = b"".join(struct.pack(fmt, s) for row in px for p in row for s in p)
    else:
        lines = [" ".join(str(s) for p in row for s in p) for row in px]
        body = ("\n".join(lines) + "\n").encode()
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(head.encode() + body)


def make_pnms():
    pnm("g8.pgm", "P5", 255)
    pnm("g16.pgm", "P5", 65535)
    pnm("g100.pgm", "P5", 100)
    pnm("rgb8.ppm", "P6", 255)
    pnm("rgb1000.ppm", "P6", 1000)
    # Comments wherever whitespace may stand, a comment ending the header's last whitespace.
    pnm("g15-text.pgm", "P2", 15,
        "P2 # plain PGM\n# whole-line comment\n%d\t%d # size\n15#maxval\n" % (W, H))
    pnm("rgb65535-text.ppm", "P3", 65535, "P3\r\n%d %d\r\n65535\r\n" % (W, H))


# ---- JPEG ------------------------------------------------------------------------------------

def smooth(x, y, c, w, h):
    """The picture the JPEG fixtures encode: gradients and a checker, so that upsampling and
    smoothing have edges and ramps to work on."""
    return [x * 255 // (w - 1), y * 255 // (h - 1), ((x // 4 + y // 4) % 2) * 200][c]


def make_jpegs():
    w, h = 37, 23
    ppm = os.path.join(HERE, "jpeg-source.ppm.tmp")
    pgm = os.path.join(HERE, "jpeg-source.pgm.tmp")
    with open(ppm, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        f.write(bytes(smooth(x, y, c, w, h) for y in range(h) for x in range(w) for c in range(3)))
    with open(pgm, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h))
        f.write(bytes(smooth(x, y, 0, w, h) for y in range(h) for x in range(w)))
    variants = {
        "base420.jpg": ["-sample", "2x2"],
        "base444.jpg": ["-sample", "1x1"],
        "base422.jpg": ["-sample", "2x1"],
        "base440.jpg": ["-sample", "1x2"],
        "prog420.jpg": ["-progressive"],
        "arith420.jpg": ["-arithmetic"],
        "restart444.jpg": ["-sample", "1x1", "-restart", "1B", "-optimize"],
    }
    try:
        for name, args in sorted(variants.items()):
            subprocess.run(["cjpeg", "-quality", "90"] + args + ["-outfile",
                           os.path.join(HERE, name), ppm], check=True)
        subprocess.run(["cjpeg", "-quality", "90", "-grayscale", "-progressive", "-outfile",
                        os.path.join(HERE, "gray-prog.jpg"), pgm], check=True)
    finally:
        os.remove(ppm)
        os.remove(pgm)


# ---- Hostile files (tests/e2e.sh's bad-input table) ---------------------------------------

def make_hostile():
    """Files every check of which passes but one, so that the tool's refusal is that check's:
    a PNG whose IDAT CRC is wrong, one 100000 pixels wide, a PNG and a JPEG decompression bomb
    (small files whose headers promise hundreds of millions of pixels), a JPEG larger than the
    pixel limit. (Truncations and the PGM/PPM cases are made by the test script itself.)"""
    sig = b"\x89PNG\r\n\x1a\n"
    ihdr = lambda w, h, bd: chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bd, 0, 0, 0, 0))
    with open(os.path.join(HERE, "g8.png"), "rb") as f:
        good = bytearray(f.read())
    at = good.index(b"IDAT") - 4
    length = struct.unpack(">I", good[at:at + 4])[0]
    good[at + 8 + length] ^= 0x01  # the first byte of IDAT's CRC
    with open(os.path.join(HERE, "hostile-crc.png"), "wb") as f:
        f.write(bytes(good))
    with open(os.path.join(HERE, "hostile-wide.png"), "wb") as f:
        f.write(sig + ihdr(100000, 1, 8) + chunk(b"IDAT", zlib.compress(bytes(100001), 9))
                + chunk(b"IEND", b""))
    # 8192 x 8192 1-bit zeros: 8 MiB of rows deflate to about 8 KiB, 8000 pixels a byte.
    rows = (b"\x00" + bytes(1024)) * 8192
    with open(os.path.join(HERE, "hostile-bomb.png"), "wb") as f:
        f.write(sig + ihdr(8192, 8192, 1) + chunk(b"IDAT", zlib.compress(rows, 9))
                + chunk(b"IEND", b""))
    # base420.jpg with its frame header's size patched: 16000 x 16000 is within the pixel limit
    # (2^28) but 200,000 pixels a byte; 65000 x 65000 is past the limit.
    with open(os.path.join(HERE, "base420.jpg"), "rb") as f:
        jpeg = bytearray(f.read())
    sof = jpeg.index(b"\xff\xc0")
    for name, side in (("hostile-bomb.jpg", 16000), ("hostile-huge.jpg", 65000)):
        jpeg[sof + 5:sof + 9] = struct.pack(">HH", side, side)  # height, width
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(bytes(jpeg))


if __name__ == "__main__":
    make_pngs()
    make_pnms()
    make_jpegs()
    make_hostile()
    sys.exit(0)
