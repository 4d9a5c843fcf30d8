#!/usr/bin/env python3
"""Writes an endless stream to standard output: a valid image header, then data that never ends,
until the reader goes away (tests/e2e-hardening.sh feeds these to `tiledconv -s -`).

    python3 tests/endless-stream.py KIND [WIDTH HEIGHT]

KIND (the size defaults to 512 x 512):
    pnm-binary     P5 header, then zeros: a complete image once its raster has come
    pnm-text       P2 header, then spaces: no sample ever comes
    pnm-comment    P5 and a comment that never ends: no size ever comes
    png-chunks     signature and an 8-bit gray IHDR, then tEXt chunks of 64 KiB, forever
    png-idat       the same with IDAT chunks of 64 KiB
    png-zeros      the same with zeros after IHDR (no chunk at all)
    jpeg-app1      SOI, then APP1 segments of 65535 bytes, forever: no size ever comes
    jpeg-entropy   SOI, SOF0 (3 components), SOS, then entropy-coded zeros, forever
    trailing PATH  a whole image file, then zeros, forever (the image is complete)
"""
import struct
import sys
import zlib


def chunk(kind, data):
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png_head(w, h):
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)


def jpeg_sof(w, h):
    sof = struct.pack(">BHHB", 8, h, w, 3) + b"".join(bytes([i + 1, 0x11, 0]) for i in range(3))
    sos = bytes([3]) + b"".join(bytes([i + 1, 0]) for i in range(3)) + bytes([0, 63, 0])
    return (b"\xff\xd8" + b"\xff\xc0" + struct.pack(">H", 2 + len(sof)) + sof +
            b"\xff\xda" + struct.pack(">H", 2 + len(sos)) + sos)


def main():
    kind = sys.argv[1]
    w, h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (512, 512)
    block = 65536
    if kind == "pnm-binary":
        head, body = b"P5 %d %d 255\n" % (w, h), bytes(block)
    elif kind == "pnm-text":
        head, body = b"P2 %d %d 255\n" % (w, h), b" " * block
    elif kind == "pnm-comment":
        head, body = b"P5\n#", b"x" * block
    elif kind == "png-chunks":
        head, body = png_head(w, h), chunk(b"tEXt", b"k\0" + b"v" * (block - 2))
    elif kind == "png-idat":
        head, body = png_head(w, h), chunk(b"IDAT", bytes(block))
    elif kind == "png-zeros":
        head, body = png_head(w, h), bytes(block)
    elif kind == "jpeg-app1":
        head, body = b"\xff\xd8", b"\xff\xe1\xff\xff" + b"x" * 65533
    elif kind == "jpeg-entropy":
        head, body = jpeg_sof(w, h), bytes(block)
    elif kind == "trailing":
        with open(sys.argv[2], "rb") as f:
            head = f.read()
        body = bytes(block)
    else:
        sys.exit("endless-stream.py: unknown kind " + kind)
    out = sys.stdout.buffer
    try:
        out.write(head)
        while True:
            out.write(body)
    except (BrokenPipeError, ConnectionResetError):
        # The reader has gone: what this stream is for. Keep Python from complaining at exit.
        sys.stderr.close()


main()
