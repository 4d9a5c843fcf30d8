#!/usr/bin/env python3
"""Make tests/data/bmpsuite-expected/*.ppm from BMP Suite's reference images.

    pip install pillow
    python3 tests/data/make-bmpsuite-expected.py PATH/TO/bmpsuite/html

BMP Suite (https://entropymine.com/jason/bmpsuite/) ships, beside its bmpsuite.html, one
reference PNG per picture. This turns the ones our tests compare against into binary PPM (P6),
which tests/test_bmp.c reads without any image library, so running the tests needs no Python.

Which PNG stands for which BMP follows bmpsuite.html; tests/test_bmp.c holds the same table
(suite_cases[]), and tests/bmpsuite-status.md explains the choices. Three need a word:
  - RLE files with undefined pixels (q/pal{4,8}rle{cut,trns}.bmp): the "-0" references, where
    undefined pixels take palette entry 0, which is what bmp.c does.
  - References with transparency (RGBA, or a tRNS colour key): bmp.c ignores alpha and returns the
    colour channels as stored, which is what a PNG's unpremultiplied RGB holds, except where a
    pixel is fully transparent: there the PNG's colour is arbitrary (BMP Suite writes 0,0,0 or the
    key colour) while the BMP stores some colour. So for these a mask NAME.mask.pgm (P5, 255 =
    compare, 0 = fully transparent, skip) goes beside NAME.ppm.
  - q/rgb24prof2.bmp stores red and green swapped and relies on its ICC profile to swap them back.
    bmp.c ignores colour profiles, so its expected output is rgb24.png with red and green swapped:
    rgb24-rgswap.ppm, made here.
"""
import os
import sys

from PIL import Image

# Reference images the tests use, by the name of the PPM each becomes.
REFERENCES = [
    "pal1", "pal1bg", "pal1p1", "pal2", "pal2color", "pal4", "pal4gs",
    "pal4rlecut-0", "pal4rletrns-0", "pal8", "pal8gs", "pal8nonsquare-e",
    "pal8rlecut-0", "pal8rletrns-0", "pal8w124", "pal8w125", "pal8w126",
    "rgb16", "rgb16-231", "rgb16-3103", "rgb16-565", "rgb24", "rgb32-7187",
    "rgba16-1924", "rgba16-4444", "rgba16-5551", "rgba32", "rgba32-1010102",
    "rgba32-61754", "rgba32-81284",
]


def write_ppm(path, im):
    im = im.convert("RGB")
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % im.size)
        f.write(im.tobytes())


def write_mask(path, alpha):
    mask = alpha.point(lambda a: 255 if a > 0 else 0)
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % mask.size)
        f.write(mask.tobytes())


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-bmpsuite-expected.py BMPSUITE_HTML_DIR")
    src = sys.argv[1]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bmpsuite-expected")
    os.makedirs(out, exist_ok=True)
    masks = 0
    for name in REFERENCES:
        im = Image.open(os.path.join(src, name + ".png"))
        # convert("RGB") of an RGBA image drops alpha without compositing: the stored colours.
        write_ppm(os.path.join(out, name + ".ppm"), im)
        # convert("RGBA") also turns a tRNS chunk (palette alpha or colour key) into alpha.
        alpha = im.convert("RGBA").getchannel("A")
        if alpha.getextrema()[0] == 0:
            write_mask(os.path.join(out, name + ".mask.pgm"), alpha)
            masks += 1
    r, g, b = Image.open(os.path.join(src, "rgb24.png")).convert("RGB").split()
    write_ppm(os.path.join(out, "rgb24-rgswap.ppm"), Image.merge("RGB", (g, r, b)))
    print("wrote %d images and %d masks to %s" % (len(REFERENCES) + 1, masks, out))


if __name__ == "__main__":
    main()
