#!/usr/bin/env python3
"""Independent readers and writers for tests/e2e-formats.sh, in plain Python (zlib, struct):
the tool's outputs are checked by code that shares nothing with the C under test.

    formats-util.py samples FILE           "W H CHANNELS MAXVAL SHA256" of the samples (PNG of
                                           colour type 0 or 2, 8 or 16 bits, not interlaced, as
                                           the tool writes; PGM/PPM P5, P6; BMP of 8 bits with
                                           a palette or 24 bits): equal lines, equal pictures
    formats-util.py convert IN.bmp OUT     the BMP's pixels as OUT (.png, .ppm or .pgm; a BMP
                                           whose palette is gray becomes gray)
    formats-util.py intensity RAW PNM      RAW (float32 plane, --raw) holds exactly the tool's
                                           intensity of PNM's pixels, float32(0.299 R + 0.587 G
                                           + 0.114 B) computed in double
    formats-util.py map16 RAW PNM [S V]    PNM (16-bit gray) holds round(clamp(v S + V, 0, 255)
                                           65535 / 255) of RAW's values (S 1, V 0)
Exit status 0 when the check holds, 1 with the reason on stderr when not.
"""
import hashlib
import math
import struct
import sys
import zlib


def fail(why):
    sys.stderr.write("formats-util: %s\n" % why)
    sys.exit(1)


def read_png(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG")
    at, idat, ihdr = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if zlib.crc32(kind + body) & 0xffffffff != struct.unpack(">I", data[at + 8 + length:
                                                                            at + 12 + length])[0]:
            fail("bad CRC in %r" % kind)
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        at += 12 + length
    w, h, depth, ctype, _, _, interlace = ihdr
    if ctype not in (0, 2) or depth not in (8, 16) or interlace:
        fail("PNG of colour type %d, depth %d, interlace %d: not what the tool writes"
             % (ctype, depth, interlace))
    ch = 1 if ctype == 0 else 3
    bpp = ch * depth // 8
    stride = w * bpp
    raw = zlib.decompress(idat)
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        cur = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = cur[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                cur[i] = (cur[i] + a) & 0xff
            elif ftype == 2:
                cur[i] = (cur[i] + b) & 0xff
            elif ftype == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 0xff
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
            elif ftype != 0:
                fail("filter type %d" % ftype)
        rows.append(bytes(cur))
        prev = cur
    samples = samples_of(b"".join(rows), depth)
    return w, h, ch, (1 << depth) - 1, samples


def samples_of(buf, depth):
    if depth == 8:
        return list(buf)
    return list(struct.unpack(">%dH" % (len(buf) // 2), buf))


def read_pnm(data):
    words, at = [], 0
    while len(words) < 4:
        while data[at:at + 1].isspace():
            at += 1
        if data[at:at + 1] == b"#":
            while data[at:at + 1] not in (b"\n", b"\r"):
                at += 1
            continue
        start = at
        while not data[at:at + 1].isspace():
            at += 1
        words.append(data[start:at].decode())
    at += 1  # the one whitespace character after the maxval
    magic, w, h, maxval = words[0], int(words[1]), int(words[2]), int(words[3])
    if magic not in ("P5", "P6"):
        fail("%s: only binary PGM/PPM" % magic)
    ch = 1 if magic == "P5" else 3
    n = w * h * ch * (2 if maxval > 255 else 1)
    return w, h, ch, maxval, samples_of(data[at:at + n], 16 if maxval > 255 else 8)


def read_bmp(data):
    offbits = struct.unpack("<I", data[10:14])[0]
    w, h, _, bpp, compression = struct.unpack("<iiHHI", data[18:34])
    if compression != 0 or bpp not in (8, 24):
        fail("BMP of %d bits, compression %d" % (bpp, compression))
    palette = [tuple(data[54 + 4 * i:54 + 4 * i + 3][::-1]) for i in range(256)] if bpp == 8 else []
    gray = bpp == 8 and all(p[0] == p[1] == p[2] for p in palette)
    stride = (w * bpp // 8 + 3) // 4 * 4
    out = []
    for y in range(abs(h)):
        row = data[offbits + (abs(h) - 1 - y if h > 0 else y) * stride:][:stride]
        for x in range(w):
            if bpp == 8:
                rgb = palette[row[x]]
                out.extend(rgb[:1] if gray else rgb)
            else:
                out.extend(row[3 * x:3 * x + 3][::-1])
    return w, abs(h), 1 if gray else 3, 255, out


def read_image(path):
    data = open(path, "rb").read()
    if data[:2] == b"BM":
        return read_bmp(data)
    if data[:4] == b"\x89PNG":
        return read_png(data)
    return read_pnm(data)


def write_png(path, w, h, ch, samples):
    rows = b"".join(b"\x00" + bytes(samples[y * w * ch:(y + 1) * w * ch]) for y in range(h))
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8,
                                                                   0 if ch == 1 else 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def floats(path):
    data = open(path, "rb").read()
    return struct.unpack("<%df" % (len(data) // 4), data)


def main(argv):
    if len(argv) >= 2 and argv[0] == "samples":
        w, h, ch, maxval, s = read_image(argv[1])
        digest = hashlib.sha256(struct.pack(">%dH" % len(s), *s)).hexdigest()
        print(w, h, ch, maxval, digest)
    elif len(argv) == 3 and argv[0] == "convert":
        w, h, ch, _, s = read_image(argv[1])
        if argv[2].endswith(".png"):
            write_png(argv[2], w, h, ch, s)
        else:
            with open(argv[2], "wb") as f:
                f.write(b"P%d\n%d %d\n255\n" % (5 if ch == 1 else 6, w, h) + bytes(s))
    elif len(argv) == 3 and argv[0] == "intensity":
        got = floats(argv[1])
        w, h, ch, maxval, s = read_image(argv[2])
        if maxval != 255 or len(got) != w * h:
            fail("%d floats for %d x %d of maxval %d" % (len(got), w, h, maxval))
        for i in range(w * h):
            r, g, b = s[ch * i:ch * i + 3] if ch == 3 else (s[i],) * 3
            want = struct.unpack("<f", struct.pack("<f", 0.299 * r + 0.587 * g + 0.114 * b))[0]
            if got[i] != want:
                fail("pixel %d: %r, expected %r" % (i, got[i], want))
    elif len(argv) in (3, 5) and argv[0] == "map16":
        got = floats(argv[1])
        scale, offset = (float(argv[3]), float(argv[4])) if len(argv) == 5 else (1.0, 0.0)
        w, h, ch, maxval, s = read_image(argv[2])
        if maxval != 65535 or ch != 1 or len(s) != len(got):
            fail("%d samples of maxval %d for %d floats" % (len(s), maxval, len(got)))
        for i, v in enumerate(got):
            m = v * scale + offset
            want = 0 if not m > 0 else 65535 if m >= 255 else math.floor(m * 65535.0 / 255.0 + 0.5)
            if s[i] != want:
                fail("sample %d: %d, expected %d from %r" % (i, s[i], want, v))
    else:
        fail("usage: see the head of %s" % sys.argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
