/*
 * test_bmp.c - the BMP reader and writer (src/io/bmp_header.c, bmp_decode.c, bmp_file.c,
 * bmp_write.c).
 *
 * Four groups:
 *   - hand-made files, built in memory by build_bmp(), decode to known pixels;
 *   - writer round trips, with the written bytes checked field by field, and atomic replacement;
 *   - malformed files: each a single mutation of a valid small file, each refused with a reason
 *     naming the defect and the output left untouched (and every truncation of valid files);
 *   - BMP Suite (tests/data/bmpsuite): every g/ file matches its reference image within +-1,
 *     q/ and b/ files decode or are refused as tests/bmpsuite-status.md says.
 */
#include "test_util.h"

#include "bmp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------- */

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v & 0xff);
    p[1] = (uint8_t)((v >> 8) & 0xff);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

static uint32_t get16(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return get16(p) | (get16(p + 2) << 16);
}

/* What build_bmp() writes: enough fields to make every header version and every defect. */
typedef struct {
    uint32_t hsize;         /* 12, 16, 40, 52, 56, 64, 108, 124 */
    int32_t width, height;
    uint16_t planes, bpp;
    uint32_t compression;
    uint32_t clr_used;      /* header field (headers of 40 bytes and more) */
    size_t npal;            /* palette entries written: 3 bytes each for hsize 12, else 4 */
    const uint8_t *pal;     /* npal x R, G, B */
    int nmasks_after;       /* masks written after a 40-byte header: 0, 3 or 4 */
    uint32_t masks[4];      /* R, G, B, A; also written inside headers of 52 bytes and more */
    size_t gap;             /* unused bytes between the palette and the pixel data */
    const uint8_t *pixels;  /* pixel data exactly as stored (padded rows or an RLE stream) */
    size_t pixels_len;
} bmp_spec;

/* Lay out a BMP in buf and return its length. */
static size_t build_bmp(uint8_t *buf, size_t cap, const bmp_spec *s)
{
    size_t entry = s->hsize == 12 ? 3 : 4;
    size_t off = 14 + s->hsize + 4 * (size_t)s->nmasks_after + s->npal * entry + s->gap;
    size_t len = off + s->pixels_len;
    assert_true(len <= cap);
    memset(buf, 0, len);
    buf[0] = 'B';
    buf[1] = 'M';
    put32(buf + 2, (uint32_t)len);
    put32(buf + 10, (uint32_t)off);
    put32(buf + 14, s->hsize);
    if (s->hsize == 12) {
        put16(buf + 18, (uint32_t)s->width);
        put16(buf + 20, (uint32_t)s->height);
        put16(buf + 22, s->planes);
        put16(buf + 24, s->bpp);
    } else {
        put32(buf + 18, (uint32_t)s->width);
        put32(buf + 22, (uint32_t)s->height);
        put16(buf + 26, s->planes);
        put16(buf + 28, s->bpp);
    }
    if (s->hsize >= 40) {
        put32(buf + 30, s->compression);
        put32(buf + 34, (uint32_t)s->pixels_len);
        put32(buf + 38, 2835);
        put32(buf + 42, 2835);
        put32(buf + 46, s->clr_used);
    }
    /* V2 (52 bytes) and later carry the colour masks in the header, V3 (56) and later alpha. */
    if (s->hsize >= 52 && s->hsize != 64)
        for (int i = 0; i < 3; i++)
            put32(buf + 54 + 4 * i, s->masks[i]);
    if (s->hsize >= 56 && s->hsize != 64)
        put32(buf + 66, s->masks[3]);
    uint8_t *p = buf + 14 + s->hsize;
    for (int i = 0; i < s->nmasks_after; i++, p += 4)
        put32(p, s->masks[i]);
    for (size_t i = 0; i < s->npal; i++, p += entry) {
        p[0] = s->pal[i * 3 + 2];
        p[1] = s->pal[i * 3 + 1];
        p[2] = s->pal[i * 3 + 0];
    }
    p += s->gap;
    if (s->pixels_len)
        memcpy(p, s->pixels, s->pixels_len);
    return len;
}

/* Decode and expect success with the given size. */
static bmp_image decode_ok(const uint8_t *buf, size_t len, int w, int h)
{
    bmp_image img = {0, 0, NULL};
    char err[256] = "";
    int rc = bmp_decode(buf, len, &img, err, sizeof err);
    if (rc != 0)
        print_error("unexpected refusal: %s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(img.width, w);
    assert_int_equal(img.height, h);
    assert_non_null(img.rgb);
    return img;
}

static void assert_pixel(const bmp_image *img, int x, int y, int r, int g, int b)
{
    const uint8_t *p = img->rgb + ((size_t)y * (size_t)img->width + (size_t)x) * 3;
    if (p[0] != r || p[1] != g || p[2] != b)
        print_error("pixel (%d, %d) is %d,%d,%d, expected %d,%d,%d\n", x, y, p[0], p[1], p[2], r,
                    g, b);
    assert_int_equal(p[0], r);
    assert_int_equal(p[1], g);
    assert_int_equal(p[2], b);
}

/* A refusal must say why and must not touch the output. */
static void expect_refusal(const uint8_t *buf, size_t len, const char *expect)
{
    static int sentinel;
    bmp_image img = {-7, -9, (uint8_t *)&sentinel};
    char err[256];
    memset(err, 0, sizeof err);
    int rc = bmp_decode(buf, len, &img, err, sizeof err);
    if (rc == 0 || (expect && !strstr(err, expect)))
        print_error("expected a refusal mentioning \"%s\", got rc %d: \"%s\"\n",
                    expect ? expect : "", rc, err);
    assert_int_equal(rc, -1);
    assert_true(err[0] != '\0');
    assert_null(strchr(err, '\n'));
    if (expect)
        assert_non_null(strstr(err, expect));
    assert_int_equal(img.width, -7);
    assert_int_equal(img.height, -9);
    assert_ptr_equal(img.rgb, (uint8_t *)&sentinel);
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *len = (size_t)n;
    }
    fclose(f);
    return buf;
}

/* A binary PPM (P6) or PGM (P5) with maxval 255, as make-bmpsuite-expected.py writes them. */
static uint8_t *read_pnm(const char *path, const char *magic, int channels, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    char m[3] = "";
    int maxval = 0;
    uint8_t *buf = NULL;
    if (!f)
        return NULL;
    if (fscanf(f, "%2s %d %d %d", m, w, h, &maxval) == 4 && strcmp(m, magic) == 0 &&
        maxval == 255 && *w > 0 && *h > 0 && fgetc(f) != EOF) {
        size_t n = (size_t)*w * (size_t)*h * (size_t)channels;
        buf = malloc(n);
        if (buf && fread(buf, 1, n, f) != n) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

/* A scratch folder for the writer tests, made by the group setup. */
static char scratch[64];

static void scratch_path(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", scratch, name);
}

static int remove_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (remove(path) != 0)
            rmdir(path);
    }
    closedir(d);
    return 0;
}

static int scratch_setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/test_bmp.XXXXXX");
    return mkdtemp(scratch) ? 0 : -1;
}

static int scratch_teardown(void **state)
{
    (void)state;
    remove_entries(scratch);
    return rmdir(scratch);
}

/* Each test starts with an empty scratch folder, so that leftover temporaries can be counted. */
static int empty_scratch(void **state)
{
    (void)state;
    return remove_entries(scratch);
}

/* A 4-entry palette used by the hand-made paletted files. */
static const uint8_t pal4[4 * 3] = {
    10, 20, 30,    /* 0 */
    200, 0, 0,     /* 1 */
    0, 200, 0,     /* 2 */
    0, 0, 200,     /* 3 */
};

/* ---------------------------------------------------------------------------------------------
 * Hand-made files decode to known pixels
 * ------------------------------------------------------------------------------------------- */

/* 3 x 2 at 24 bits: rows of 9 bytes padded to 12, stored bottom row first. */
static void test_rgb24_bottom_up(void **state)
{
    (void)state;
    const uint8_t px[24] = {
        /* bottom row (y = 1): B, G, R */
        1, 2, 3,  4, 5, 6,  7, 8, 9,  0xee, 0xee, 0xee,
        /* top row (y = 0) */
        10, 20, 30,  40, 50, 60,  70, 80, 90,  0xee, 0xee, 0xee,
    };
    bmp_spec s = {.hsize = 40, .width = 3, .height = 2, .planes = 1, .bpp = 24,
                  .pixels = px, .pixels_len = sizeof px};
    uint8_t buf[256];
    size_t len = build_bmp(buf, sizeof buf, &s);
    bmp_image img = decode_ok(buf, len, 3, 2);
    assert_pixel(&img, 0, 0, 30, 20, 10);
    assert_pixel(&img, 1, 0, 60, 50, 40);
    assert_pixel(&img, 2, 0, 90, 80, 70);
    assert_pixel(&img, 0, 1, 3, 2, 1);
    assert_pixel(&img, 2, 1, 9, 8, 7);
    bmp_free(&img);
    assert_null(img.rgb);
}

static void test_rgb24_top_down(void **state)
{
    (void)state;
    const uint8_t px[24] = {
        /* top row first: negative height */
        10, 20, 30,  40, 50, 60,  70, 80, 90,  0, 0, 0,
        1, 2, 3,  4, 5, 6,  7, 8, 9,  0, 0, 0,
    };
    bmp_spec s = {.hsize = 40, .width = 3, .height = -2, .planes = 1, .bpp = 24,
                  .pixels = px, .pixels_len = sizeof px};
    uint8_t buf[256];
    size_t len = build_bmp(buf, sizeof buf, &s);
    bmp_image img = decode_ok(buf, len, 3, 2);
    assert_pixel(&img, 0, 0, 30, 20, 10);
    assert_pixel(&img, 2, 0, 90, 80, 70);
    assert_pixel(&img, 0, 1, 3, 2, 1);
    assert_pixel(&img, 2, 1, 9, 8, 7);
    bmp_free(&img);
}

static void test_pal8_bottom_up_and_top_down(void **state)
{
    (void)state;
    /* 3 x 2: rows of 3 indices padded to 4. */
    const uint8_t bu[8] = {3, 2, 1, 0xff, 0, 1, 2, 0xff};
    const uint8_t td[8] = {0, 1, 2, 0xff, 3, 2, 1, 0xff};
    uint8_t buf[256];
    for (int topdown = 0; topdown < 2; topdown++) {
        bmp_spec s = {.hsize = 40, .width = 3, .height = topdown ? -2 : 2, .planes = 1,
                      .bpp = 8, .clr_used = 4, .npal = 4, .pal = pal4,
                      .pixels = topdown ? td : bu, .pixels_len = 8};
        size_t len = build_bmp(buf, sizeof buf, &s);
        bmp_image img = decode_ok(buf, len, 3, 2);
        assert_pixel(&img, 0, 0, 10, 20, 30);
        assert_pixel(&img, 1, 0, 200, 0, 0);
        assert_pixel(&img, 2, 0, 0, 200, 0);
        assert_pixel(&img, 0, 1, 0, 0, 200);
        assert_pixel(&img, 1, 1, 0, 200, 0);
        assert_pixel(&img, 2, 1, 200, 0, 0);
        bmp_free(&img);
    }
}

/* 1, 2 and 4 bits per pixel: the first pixel is in the most significant bits. */
static void test_low_bit_depths(void **state)
{
    (void)state;
    uint8_t buf[256];
    /* 1 bit, 10 x 1: 10 bits = 1 0 1 1 0 0 0 0 | 1 1, in 4 bytes. */
    const uint8_t p1[4] = {0xb0, 0xc0, 0, 0};
    bmp_spec s1 = {.hsize = 40, .width = 10, .height = 1, .planes = 1, .bpp = 1, .npal = 2,
                   .pal = pal4, .pixels = p1, .pixels_len = 4};
    size_t len = build_bmp(buf, sizeof buf, &s1);
    bmp_image img = decode_ok(buf, len, 10, 1);
    const int bits[10] = {1, 0, 1, 1, 0, 0, 0, 0, 1, 1};
    for (int x = 0; x < 10; x++)
        assert_pixel(&img, x, 0, pal4[bits[x] * 3], pal4[bits[x] * 3 + 1], pal4[bits[x] * 3 + 2]);
    bmp_free(&img);

    /* 2 bits, 5 x 1: 3 2 1 0 | 2 */
    const uint8_t p2[4] = {0xe4, 0x80, 0, 0};
    bmp_spec s2 = {.hsize = 40, .width = 5, .height = 1, .planes = 1, .bpp = 2, .npal = 4,
                   .pal = pal4, .pixels = p2, .pixels_len = 4};
    len = build_bmp(buf, sizeof buf, &s2);
    img = decode_ok(buf, len, 5, 1);
    const int two[5] = {3, 2, 1, 0, 2};
    for (int x = 0; x < 5; x++)
        assert_pixel(&img, x, 0, pal4[two[x] * 3], pal4[two[x] * 3 + 1], pal4[two[x] * 3 + 2]);
    bmp_free(&img);

    /* 4 bits, 3 x 1: 1 3 | 2 */
    const uint8_t p4[4] = {0x13, 0x20, 0, 0};
    bmp_spec s4 = {.hsize = 40, .width = 3, .height = 1, .planes = 1, .bpp = 4, .clr_used = 4,
                   .npal = 4, .pal = pal4, .pixels = p4, .pixels_len = 4};
    len = build_bmp(buf, sizeof buf, &s4);
    img = decode_ok(buf, len, 3, 1);
    assert_pixel(&img, 0, 0, 200, 0, 0);
    assert_pixel(&img, 1, 0, 0, 0, 200);
    assert_pixel(&img, 2, 0, 0, 200, 0);
    bmp_free(&img);
}

/* OS/2 1.x: 12-byte header, 16-bit sizes, 3-byte palette entries, the palette length implied
 * by the offset of the pixel data. */
static void test_os2_core_header(void **state)
{
    (void)state;
    const uint8_t px[8] = {2, 1, 0, 0, 1, 1, 2, 0}; /* 2 x 2 bottom-up, rows of 2 padded to 4 */
    bmp_spec s = {.hsize = 12, .width = 2, .height = 2, .planes = 1, .bpp = 8, .npal = 3,
                  .pal = pal4, .pixels = px, .pixels_len = sizeof px};
    uint8_t buf[256];
    size_t len = build_bmp(buf, sizeof buf, &s);
    assert_int_equal(get32(buf + 10), 14 + 12 + 9);
    bmp_image img = decode_ok(buf, len, 2, 2);
    assert_pixel(&img, 0, 0, 200, 0, 0);
    assert_pixel(&img, 1, 0, 200, 0, 0);
    assert_pixel(&img, 0, 1, 0, 200, 0);
    assert_pixel(&img, 1, 1, 200, 0, 0);
    bmp_free(&img);
}

/* Each channel is scaled so that full scale is 255: v * 255 / max, rounded. */
static void test_16bit_555_default_and_565_bitfields(void **state)
{
    (void)state;
    uint8_t buf[256];
    /* 5-5-5 default (BI_RGB), 4 x 1: white, (1, 16, 0), red, and a pixel with the unused top bit
     * set (it must not leak into a channel). */
    uint8_t px[8];
    put16(px + 0, 0x7fff);
    put16(px + 2, (1u << 10) | (16u << 5));
    put16(px + 4, 0x7c00);
    put16(px + 6, 0x8000 | 0x001f);
    bmp_spec s = {.hsize = 40, .width = 4, .height = 1, .planes = 1, .bpp = 16,
                  .pixels = px, .pixels_len = sizeof px};
    size_t len = build_bmp(buf, sizeof buf, &s);
    bmp_image img = decode_ok(buf, len, 4, 1);
    assert_pixel(&img, 0, 0, 255, 255, 255);
    assert_pixel(&img, 1, 0, 8, 132, 0); /* 255/31 = 8.2; 16*255/31 = 131.6 */
    assert_pixel(&img, 2, 0, 255, 0, 0);
    assert_pixel(&img, 3, 0, 0, 0, 255);
    bmp_free(&img);

    /* 5-6-5 with the masks after a 40-byte header. */
    uint8_t px2[4];
    put16(px2 + 0, 0xffff);
    put16(px2 + 2, (32u << 5) | 1u);
    bmp_spec s2 = {.hsize = 40, .width = 2, .height = 1, .planes = 1, .bpp = 16,
                   .compression = 3, .nmasks_after = 3, .masks = {0xf800, 0x07e0, 0x001f},
                   .pixels = px2, .pixels_len = sizeof px2};
    len = build_bmp(buf, sizeof buf, &s2);
    img = decode_ok(buf, len, 2, 1);
    assert_pixel(&img, 0, 0, 255, 255, 255);
    assert_pixel(&img, 1, 0, 0, 130, 8); /* 32*255/63 = 129.5 -> 130 */
    bmp_free(&img);
}

/* 32 bits: default 8-8-8 (alpha byte ignored), and bitfields in another order in the header of
 * each version that carries masks: 52 (V2), 56 (V3), 108 (V4), 124 (V5), and after a 40. */
static void test_32bit_channel_orders(void **state)
{
    (void)state;
    uint8_t buf[512];
    uint8_t px[8];
    put32(px, 0xff112233u);      /* default order: X R G B */
    put32(px + 4, 0x00fefdfcu);
    bmp_spec s = {.hsize = 40, .width = 2, .height = 1, .planes = 1, .bpp = 32,
                  .pixels = px, .pixels_len = sizeof px};
    size_t len = build_bmp(buf, sizeof buf, &s);
    bmp_image img = decode_ok(buf, len, 2, 1);
    assert_pixel(&img, 0, 0, 0x11, 0x22, 0x33);
    assert_pixel(&img, 1, 0, 0xfe, 0xfd, 0xfc);
    bmp_free(&img);

    /* R in the low byte, G next, B next, alpha on top: R=0x33, G=0x22, B=0x11. */
    const uint32_t hsizes[5] = {40, 52, 56, 108, 124};
    for (size_t i = 0; i < ARRAY_LEN(hsizes); i++) {
        bmp_spec t = {.hsize = hsizes[i], .width = 2, .height = 1, .planes = 1, .bpp = 32,
                      .compression = 3, .nmasks_after = hsizes[i] == 40 ? 3 : 0,
                      .masks = {0x000000ffu, 0x0000ff00u, 0x00ff0000u, 0xff000000u},
                      .pixels = px, .pixels_len = sizeof px};
        len = build_bmp(buf, sizeof buf, &t);
        img = decode_ok(buf, len, 2, 1);
        assert_pixel(&img, 0, 0, 0x33, 0x22, 0x11);
        assert_pixel(&img, 1, 0, 0xfc, 0xfd, 0xfe);
        bmp_free(&img);
    }

    /* BI_ALPHABITFIELDS after a 40-byte header: four masks, alpha ignored. */
    bmp_spec a = {.hsize = 40, .width = 2, .height = 1, .planes = 1, .bpp = 32,
                  .compression = 6, .nmasks_after = 4,
                  .masks = {0x00ff0000u, 0x0000ff00u, 0x000000ffu, 0xff000000u},
                  .pixels = px, .pixels_len = sizeof px};
    len = build_bmp(buf, sizeof buf, &a);
    img = decode_ok(buf, len, 2, 1);
    assert_pixel(&img, 0, 0, 0x11, 0x22, 0x33);
    bmp_free(&img);

    /* A V4 header with BI_RGB: whatever the mask fields hold is not used. */
    bmp_spec v4 = {.hsize = 108, .width = 2, .height = 1, .planes = 1, .bpp = 32,
                   .masks = {1, 1, 1, 1}, .pixels = px, .pixels_len = sizeof px};
    len = build_bmp(buf, sizeof buf, &v4);
    img = decode_ok(buf, len, 2, 1);
    assert_pixel(&img, 0, 0, 0x11, 0x22, 0x33);
    bmp_free(&img);
}

/* RLE8: encoded runs, absolute runs (with their pad byte), delta, end-of-line, early
 * end-of-bitmap. Pixels no code sets get palette entry 0's colour. */
static void test_rle8(void **state)
{
    (void)state;
    /* 5 x 3, bottom row first. */
    const uint8_t rle[] = {
        2, 1, 0, 3, 2, 3, 1, 0,   /* y=2 (bottom): 1 1 | absolute 2 3 1 + pad */
        0, 0,                     /* end of line */
        0, 2, 1, 1,               /* delta right 1, up 1 -> x=1 of the top row */
        1, 3,                     /* one pixel of 3 at x=1 */
        0, 1,                     /* end of bitmap: the middle row and the rest stay index 0 */
    };
    bmp_spec s = {.hsize = 40, .width = 5, .height = 3, .planes = 1, .bpp = 8, .compression = 1,
                  .clr_used = 4, .npal = 4, .pal = pal4, .pixels = rle, .pixels_len = sizeof rle};
    uint8_t buf[256];
    size_t len = build_bmp(buf, sizeof buf, &s);
    bmp_image img = decode_ok(buf, len, 5, 3);
    const int idx[3][5] = {{0, 3, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 1, 2, 3, 1}};
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++)
            assert_pixel(&img, x, y, pal4[idx[y][x] * 3], pal4[idx[y][x] * 3 + 1],
                         pal4[idx[y][x] * 3 + 2]);
    bmp_free(&img);
}

/* RLE4: runs alternate the two nibbles; absolute runs count nibbles and pad to 16 bits. */
static void test_rle4(void **state)
{
    (void)state;
    const uint8_t rle[] = {
        5, 0x12,                  /* 1 2 1 2 1 */
        0, 0,                     /* end of line */
        0, 3, 0x31, 0x20,         /* absolute 3 1 2: 2 bytes, already 16-bit aligned */
        1, 0x30,                  /* one pixel: 3 */
        0, 1,
    };
    bmp_spec s = {.hsize = 40, .width = 5, .height = 2, .planes = 1, .bpp = 4, .compression = 2,
                  .npal = 4, .clr_used = 4, .pal = pal4, .pixels = rle, .pixels_len = sizeof rle};
    uint8_t buf[256];
    size_t len = build_bmp(buf, sizeof buf, &s);
    bmp_image img = decode_ok(buf, len, 5, 2);
    const int idx[2][5] = {{3, 1, 2, 3, 0}, {1, 2, 1, 2, 1}};
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 5; x++)
            assert_pixel(&img, x, y, pal4[idx[y][x] * 3], pal4[idx[y][x] * 3 + 1],
                         pal4[idx[y][x] * 3 + 2]);
    bmp_free(&img);
}

/* Fields the decoder does not need are not reasons to refuse: bfSize, biSizeImage, the density,
 * unused bytes before the pixel data, the last row's padding. */
static void test_unneeded_fields_ignored(void **state)
{
    (void)state;
    const uint8_t px[8] = {1, 2, 3, 0, 3, 2, 1, 0};
    bmp_spec s = {.hsize = 40, .width = 3, .height = 2, .planes = 1, .bpp = 8, .clr_used = 4,
                  .npal = 4, .pal = pal4, .gap = 5, .pixels = px, .pixels_len = sizeof px};
    uint8_t buf[256];
    size_t len = build_bmp(buf, sizeof buf, &s);
    put32(buf + 2, 0xffffffffu);  /* bfSize */
    put32(buf + 34, 0x7fffffffu); /* biSizeImage */
    put32(buf + 38, 0xffffffffu); /* densities */
    put32(buf + 42, 0);
    put32(buf + 50, 999);         /* biClrImportant */
    bmp_image img = decode_ok(buf, len - 1, 3, 2); /* last row's pad byte cut off */
    assert_pixel(&img, 0, 0, 0, 0, 200);
    assert_pixel(&img, 2, 1, 0, 0, 200);
    bmp_free(&img);
}

/* An implied palette (biClrUsed = 0) is cut to the room before the pixel data, and indices are
 * checked against what is there. */
static void test_short_implied_palette(void **state)
{
    (void)state;
    uint8_t px[4] = {0, 1, 0, 0};
    bmp_spec s = {.hsize = 40, .width = 2, .height = 1, .planes = 1, .bpp = 8, .npal = 2,
                  .pal = pal4, .pixels = px, .pixels_len = sizeof px};
    uint8_t buf[256];
    size_t len = build_bmp(buf, sizeof buf, &s);
    bmp_image img = decode_ok(buf, len, 2, 1);
    assert_pixel(&img, 1, 0, 200, 0, 0);
    bmp_free(&img);
    px[1] = 2;
    len = build_bmp(buf, sizeof buf, &s);
    expect_refusal(buf, len, "palette index 2 at (1, 0) is past the 2-entry palette");
}

static void test_decode_limited(void **state)
{
    (void)state;
    const uint8_t px[8] = {0};
    bmp_spec s = {.hsize = 40, .width = 4, .height = 2, .planes = 1, .bpp = 8, .npal = 1,
                  .pal = pal4, .pixels = px, .pixels_len = sizeof px};
    uint8_t buf[256];
    bmp_image img = {0, 0, NULL};
    char err[256] = "";
    size_t len = build_bmp(buf, sizeof buf, &s);
    assert_int_equal(bmp_decode_limited(buf, len, 7, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, "limit of 7 pixels"));
    assert_int_equal(bmp_decode_limited(buf, len, 8, &img, err, sizeof err), 0);
    bmp_free(&img);
}

/* ---------------------------------------------------------------------------------------------
 * Malformed files: one mutation of a valid small file each
 * ------------------------------------------------------------------------------------------- */

enum base {
    PAL8,  /* 40-byte header, 4 x 2, 8 bits, 4-colour palette: pixels at 70, 78 bytes */
    RGB24, /* 40-byte header, 4 x 2, 24 bits: pixels at 54, 78 bytes */
    BF16,  /* 40-byte header, 2 x 2, 16 bits, 5-6-5 masks at 54..65: pixels at 66, 74 bytes */
    V5_32, /* 124-byte header, 2 x 1, 32 bits, masks at 54..69: pixels at 138, 146 bytes */
    OS2,   /* 12-byte header, 4 x 2, 8 bits, 4 x 3-byte palette: pixels at 38, 46 bytes */
    RLE8,  /* 40-byte header, 4 x 2, RLE8, 4-colour palette: stream at 70 */
    RLE4   /* 40-byte header, 4 x 2, RLE4, 4-colour palette: stream at 70 */
};

typedef struct {
    size_t off;
    int nbytes; /* 1, 2 or 4; 0 ends the list */
    uint32_t value;
} patch;

typedef struct {
    const char *name;
    enum base base;
    patch patches[3];
    long cut;              /* > 0: keep only this many bytes; < 0: drop this many from the end */
    const uint8_t *rle;    /* RLE stream replacing the base's */
    size_t rle_len;
    const char *expect;    /* what the reason must mention */
} bad_case;

static const uint8_t rle8_ok[] = {4, 1, 0, 0, 2, 2, 2, 3, 0, 1};
static const uint8_t rle4_ok[] = {4, 0x12, 0, 0, 4, 0x30, 0, 1};

static size_t make_base(const bad_case *c, uint8_t *buf, size_t cap)
{
    const uint8_t pal_px[8] = {0, 1, 2, 3, 3, 2, 1, 0};
    uint8_t rgb_px[24];
    uint8_t bf_px[8], v5_px[8];
    for (int i = 0; i < 24; i++)
        rgb_px[i] = (uint8_t)(i * 10);
    put16(bf_px, 0xf800);
    put16(bf_px + 2, 0x07e0);
    put16(bf_px + 4, 0x001f);
    put16(bf_px + 6, 0xffff);
    put32(v5_px, 0x00ff0000u);
    put32(v5_px + 4, 0x000000ffu);
    bmp_spec s = {.hsize = 40, .width = 4, .height = 2, .planes = 1};
    switch (c->base) {
    case PAL8:
    case OS2:
        s.bpp = 8;
        s.npal = 4;
        s.pal = pal4;
        s.pixels = pal_px;
        s.pixels_len = sizeof pal_px;
        if (c->base == OS2)
            s.hsize = 12;
        else
            s.clr_used = 4;
        break;
    case RGB24:
        s.bpp = 24;
        s.pixels = rgb_px;
        s.pixels_len = sizeof rgb_px;
        break;
    case BF16:
        s.width = 2;
        s.bpp = 16;
        s.compression = 3;
        s.nmasks_after = 3;
        s.masks[0] = 0xf800;
        s.masks[1] = 0x07e0;
        s.masks[2] = 0x001f;
        s.pixels = bf_px;
        s.pixels_len = sizeof bf_px;
        break;
    case V5_32:
        s.hsize = 124;
        s.width = 2;
        s.height = 1;
        s.bpp = 32;
        s.compression = 3;
        s.masks[0] = 0x00ff0000u;
        s.masks[1] = 0x0000ff00u;
        s.masks[2] = 0x000000ffu;
        s.masks[3] = 0xff000000u;
        s.pixels = v5_px;
        s.pixels_len = sizeof v5_px;
        break;
    case RLE8:
    case RLE4:
        s.bpp = c->base == RLE8 ? 8 : 4;
        s.compression = c->base == RLE8 ? 1 : 2;
        s.clr_used = 4;
        s.npal = 4;
        s.pal = pal4;
        s.pixels = c->rle ? c->rle : c->base == RLE8 ? rle8_ok : rle4_ok;
        s.pixels_len = c->rle ? c->rle_len : c->base == RLE8 ? sizeof rle8_ok : sizeof rle4_ok;
        break;
    }
    size_t len = build_bmp(buf, cap, &s);
    for (int i = 0; i < 3 && c->patches[i].nbytes; i++) {
        const patch *p = &c->patches[i];
        assert_true(p->off + (size_t)p->nbytes <= len);
        if (p->nbytes == 1)
            buf[p->off] = (uint8_t)p->value;
        else if (p->nbytes == 2)
            put16(buf + p->off, p->value);
        else
            put32(buf + p->off, p->value);
    }
    if (c->cut > 0 && (size_t)c->cut < len)
        len = (size_t)c->cut;
    else if (c->cut < 0)
        len -= (size_t)-c->cut;
    return len;
}

#define RLE(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})
#define P(off, n, v) {(off), (n), (uint32_t)(v)}

static const bad_case bad_cases[] = {
    /* signature and size */
    {"bad magic", PAL8, {P(0, 2, 0x4d58)}, 0, NULL, 0, "no 'BM' signature"},
    {"OS/2 bitmap array magic", PAL8, {P(0, 2, 0x4142)}, 0, NULL, 0, "bitmap arrays"},
    {"one-byte file", PAL8, {{0, 0, 0}}, 1, NULL, 0, "too short for a BMP header"},
    {"file header only", PAL8, {{0, 0, 0}}, 17, NULL, 0, "too short for a BMP header"},
    {"cut inside the info header", PAL8, {{0, 0, 0}}, 40, NULL, 0, "too short for its 40-byte"},
    {"cut inside a V5 header", V5_32, {{0, 0, 0}}, 100, NULL, 0, "too short for its 124-byte"},
    /* header size */
    {"header size 41", PAL8, {P(14, 4, 41)}, 0, NULL, 0, "header size 41"},
    {"header size 0", PAL8, {P(14, 4, 0)}, 0, NULL, 0, "header size 0"},
    {"header size 66", PAL8, {P(14, 4, 66)}, 0, NULL, 0, "header size 66"},
    {"header size 2^32-1", PAL8, {P(14, 4, 0xffffffffu)}, 0, NULL, 0, "header size 4294967295"},
    /* dimensions */
    {"zero width", PAL8, {P(18, 4, 0)}, 0, NULL, 0, "width is zero"},
    {"negative width", PAL8, {P(18, 4, -4)}, 0, NULL, 0, "negative image width -4"},
    {"zero height", PAL8, {P(22, 4, 0)}, 0, NULL, 0, "height is zero"},
    {"height INT32_MIN", PAL8, {P(22, 4, 0x80000000u)}, 0, NULL, 0, "height -2147483648 is out of range"},
    {"width over the side limit", PAL8, {P(18, 4, 65537)}, 0, NULL, 0, "limit of 65536 pixels a side"},
    {"top-down height over the side limit", PAL8, {P(22, 4, -65537)}, 0, NULL, 0, "65537 exceeds the limit of 65536"},
    {"pixels over the limit", PAL8, {P(18, 4, 65536), P(22, 4, 8192)}, 0, NULL, 0, "limit of 268435456 pixels"},
    {"dimensions that overflow 32 bits", RGB24, {P(18, 4, 0x7fffffff), P(22, 4, 0x7fffffff)}, 0, NULL, 0, "pixels a side"},
    {"OS/2 zero width", OS2, {P(18, 2, 0)}, 0, NULL, 0, "width is zero"},
    /* planes, depth, compression */
    {"planes 2", PAL8, {P(26, 2, 2)}, 0, NULL, 0, "planes is 2, must be 1"},
    {"planes 0", RGB24, {P(26, 2, 0)}, 0, NULL, 0, "planes is 0"},
    {"bpp 3", PAL8, {P(28, 2, 3)}, 0, NULL, 0, "unsupported bit depth 3"},
    {"bpp 0", RGB24, {P(28, 2, 0)}, 0, NULL, 0, "unsupported bit depth 0"},
    {"bpp 64", RGB24, {P(28, 2, 64)}, 0, NULL, 0, "unsupported bit depth 64"},
    {"OS/2 bpp 7", OS2, {P(24, 2, 7)}, 0, NULL, 0, "unsupported bit depth 7"},
    {"compression 7", PAL8, {P(30, 4, 7)}, 0, NULL, 0, "unknown compression 7"},
    {"compression JPEG", RGB24, {P(30, 4, 4)}, 0, NULL, 0, "embedded JPEG"},
    {"compression PNG", RGB24, {P(30, 4, 5)}, 0, NULL, 0, "embedded PNG"},
    {"RLE8 at 24 bits", RGB24, {P(30, 4, 1)}, 0, NULL, 0, "RLE8 compression needs 8 bits per pixel, not 24"},
    {"RLE4 at 8 bits", PAL8, {P(30, 4, 2)}, 0, NULL, 0, "RLE4 compression needs 4 bits per pixel, not 8"},
    {"bitfields at 8 bits", PAL8, {P(30, 4, 3)}, 0, NULL, 0, "bitfields need 16 or 32 bits per pixel, not 8"},
    {"bitfields at 24 bits", RGB24, {P(30, 4, 3)}, 0, NULL, 0, "not 24"},
    /* offsets and sizes */
    {"truncated pixel data", PAL8, {{0, 0, 0}}, -1, NULL, 0, "pixel data truncated: 8 bytes needed from offset 70, 7 in the file"},
    {"24-bit pixel data cut in the first row", RGB24, {{0, 0, 0}}, 60, NULL, 0, "pixel data truncated"},
    {"no pixel data at all", PAL8, {{0, 0, 0}}, 70, NULL, 0, "offset 70 is past the end of the file"},
    {"offset inside the headers", PAL8, {P(10, 4, 20)}, 0, NULL, 0, "offset 20 lies inside the headers"},
    {"offset inside the bitfield masks", BF16, {P(10, 4, 60)}, 0, NULL, 0, "offset 60 lies inside the headers (which end at 66)"},
    {"offset past the end", PAL8, {P(10, 4, 0xffffffffu)}, 0, NULL, 0, "offset 4294967295 is past the end"},
    {"OS/2 offset inside the header", OS2, {P(10, 4, 14)}, 0, NULL, 0, "inside the headers"},
    {"bitfield masks cut off", BF16, {{0, 0, 0}}, 60, NULL, 0, "too short for the bitfield masks"},
    {"alpha mask would overlap the pixels", BF16, {P(30, 4, 6)}, 0, NULL, 0, "inside the headers (which end at 70)"},
    /* palette */
    {"clrUsed more than 8 bits index", PAL8, {P(46, 4, 257)}, 0, NULL, 0, "palette of 257 colours, but 8 bits per pixel can index only 256"},
    {"clrUsed huge", PAL8, {P(46, 4, 0x12345678)}, 0, NULL, 0, "can index only 256"},
    {"clrUsed past the pixel offset", PAL8, {P(46, 4, 200)}, 0, NULL, 0, "palette of 200 colours does not fit before the pixel data (room for 4)"},
    {"palette past the file end", PAL8, {P(46, 4, 200), P(10, 4, 78)}, 0, NULL, 0, "past the end of the file"},
    {"no room for an implied palette", PAL8, {P(46, 4, 0), P(10, 4, 54)}, 0, NULL, 0, "no room for a palette"},
    {"palette index past the palette", PAL8, {P(71, 1, 9)}, 0, NULL, 0, "palette index 9 at (1, 1) is past the 4-entry palette"},
    {"OS/2 index past the implied palette", OS2, {P(38, 1, 200)}, 0, NULL, 0, "palette index 200 at (0, 1)"},
    /* bitfields */
    {"red mask zero", BF16, {P(54, 4, 0)}, 0, NULL, 0, "red bitfield mask is zero"},
    {"blue mask zero", BF16, {P(62, 4, 0)}, 0, NULL, 0, "blue bitfield mask is zero"},
    {"masks overlap", BF16, {P(58, 4, 0x0fe0)}, 0, NULL, 0, "bitfield masks overlap"},
    {"mask not contiguous", BF16, {P(62, 4, 0x0015)}, 0, NULL, 0, "blue bitfield mask 0x00000015 is not contiguous"},
    {"mask outside the 16-bit pixel", BF16, {P(54, 4, 0x001f0000)}, 0, NULL, 0, "outside the 16-bit pixel"},
    {"V5 green mask zero", V5_32, {P(58, 4, 0)}, 0, NULL, 0, "green bitfield mask is zero"},
    {"V5 masks overlap", V5_32, {P(62, 4, 0x0000ffffu)}, 0, NULL, 0, "overlap"},
    /* RLE */
    {"RLE in a top-down file", RLE8, {P(22, 4, -2)}, 0, NULL, 0, "RLE compression in a top-down BMP"},
    {"RLE8 run past the row end", RLE8, {{0, 0, 0}}, 0, RLE(5, 1, 0, 1), "RLE run of 5 pixels at (0, 1) passes the end of the row (width 4)"},
    {"RLE8 run past the row end after a run", RLE8, {{0, 0, 0}}, 0, RLE(3, 1, 2, 1, 0, 1), "RLE run of 2 pixels at (3, 1)"},
    {"RLE8 absolute run past the row end", RLE8, {{0, 0, 0}}, 0, RLE(0, 5, 1, 2, 3, 0, 1, 0, 0, 1), "absolute run of 5 pixels"},
    {"RLE8 delta past the last row", RLE8, {{0, 0, 0}}, 0, RLE(0, 2, 0, 2, 0, 1), "RLE delta (0, 2) from (0, 1) leaves the 4 x 2 image"},
    {"RLE8 delta past the row end", RLE8, {{0, 0, 0}}, 0, RLE(0, 2, 5, 0, 0, 1), "RLE delta (5, 0)"},
    {"RLE8 run below the last row", RLE8, {{0, 0, 0}}, 0, RLE(0, 0, 0, 0, 1, 1, 0, 1), "RLE run below the last row"},
    {"RLE8 end-of-line below the last row", RLE8, {{0, 0, 0}}, 0, RLE(0, 0, 0, 0, 0, 0, 0, 1), "end-of-line below the last row"},
    {"RLE8 index past the palette", RLE8, {{0, 0, 0}}, 0, RLE(4, 7, 0, 1), "RLE palette index 7 is past the 4-entry palette"},
    {"RLE8 absolute index past the palette", RLE8, {{0, 0, 0}}, 0, RLE(0, 3, 1, 2, 9, 0, 0, 1), "RLE palette index 9"},
    {"RLE8 ends before end-of-bitmap", RLE8, {{0, 0, 0}}, 0, RLE(4, 1, 0, 0), "RLE data ends at row 0 before the end-of-bitmap marker"},
    {"RLE8 absolute run cut by the file end", RLE8, {{0, 0, 0}}, 0, RLE(0, 4, 1, 2), "absolute run truncated"},
    {"RLE8 delta cut by the file end", RLE8, {{0, 0, 0}}, 0, RLE(0, 2, 1), "RLE delta truncated"},
    {"RLE4 run past the row end", RLE4, {{0, 0, 0}}, 0, RLE(5, 0x12, 0, 1), "RLE run of 5 pixels"},
    {"RLE4 absolute index past the palette", RLE4, {{0, 0, 0}}, 0, RLE(0, 3, 0x12, 0x90, 0, 1), "RLE palette index 9"},
    {"RLE4 run index past the palette", RLE4, {{0, 0, 0}}, 0, RLE(3, 0x15, 0, 1), "RLE palette index 5"},
    {"RLE4 absolute run past the row end", RLE4, {{0, 0, 0}}, 0, RLE(0, 5, 0x12, 0x12, 0x10, 0, 0, 1), "absolute run of 5 pixels"},
};

static void test_malformed(void **state)
{
    const bad_case *c = *state;
    uint8_t buf[512];
    size_t len = make_base(c, buf, sizeof buf);
    expect_refusal(buf, len, c->expect);
}

/* The bases themselves decode, so that each case above fails for its own mutation only. */
static void test_malformed_bases_are_valid(void **state)
{
    (void)state;
    const enum base bases[] = {PAL8, RGB24, BF16, V5_32, OS2, RLE8, RLE4};
    for (size_t i = 0; i < ARRAY_LEN(bases); i++) {
        bad_case c = {"base", bases[i], {{0, 0, 0}}, 0, NULL, 0, NULL};
        uint8_t buf[512];
        size_t len = make_base(&c, buf, sizeof buf);
        bmp_image img = decode_ok(buf, len, bases[i] == BF16 || bases[i] == V5_32 ? 2 : 4,
                                  bases[i] == V5_32 ? 1 : 2);
        bmp_free(&img);
    }
    /* Spot-check the RLE bases' content: RLE8's top row is 2 2 3 3, bottom 1 1 1 1. */
    bad_case c = {"base", RLE8, {{0, 0, 0}}, 0, NULL, 0, NULL};
    uint8_t buf[512];
    size_t len = make_base(&c, buf, sizeof buf);
    bmp_image img = decode_ok(buf, len, 4, 2);
    assert_pixel(&img, 0, 0, 0, 200, 0);
    assert_pixel(&img, 3, 0, 0, 0, 200);
    assert_pixel(&img, 3, 1, 200, 0, 0);
    bmp_free(&img);
}

/* Every proper prefix of a valid file whose last row has no padding is refused. */
static void test_every_truncation_refused(void **state)
{
    (void)state;
    const enum base bases[] = {PAL8, RGB24, BF16, V5_32, OS2, RLE8, RLE4};
    for (size_t i = 0; i < ARRAY_LEN(bases); i++) {
        bad_case c = {"base", bases[i], {{0, 0, 0}}, 0, NULL, 0, NULL};
        uint8_t buf[512];
        size_t len = make_base(&c, buf, sizeof buf);
        for (size_t cut = 0; cut < len; cut++) {
            /* A fresh copy of exactly cut bytes, so that ASan sees any read past it. */
            uint8_t *copy = malloc(cut ? cut : 1);
            assert_non_null(copy);
            memcpy(copy, buf, cut);
            expect_refusal(copy, cut, NULL);
            free(copy);
        }
    }
}

/* Degenerate arguments: no data, and no room (or no buffer) for the reason. */
static void test_null_and_tiny_inputs(void **state)
{
    (void)state;
    bmp_image img = {0, 0, NULL};
    char err[64] = "";
    assert_int_equal(bmp_decode(NULL, 0, &img, err, sizeof err), -1);
    assert_true(err[0] != '\0');
    /* A NULL or zero-sized err buffer must be safe. */
    assert_int_equal(bmp_decode((const uint8_t *)"BM", 2, &img, NULL, 0), -1);
    assert_int_equal(bmp_decode((const uint8_t *)"BM", 2, &img, err, 0), -1);
    assert_null(img.rgb);
    bmp_free(NULL);
}

/* ---------------------------------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------------------------------- */

static mode_t current_umask(void)
{
    mode_t m = umask(022);
    umask(m);
    return m;
}

/* Gray8 for widths 1..8 (every row padding) and several heights: the bytes follow the format,
 * and reading back gives the same grays as R = G = B. */
static void test_gray8_round_trip(void **state)
{
    (void)state;
    const int heights[] = {1, 2, 3, 7};
    char path[128], err[256];
    scratch_path(path, sizeof path, "gray.bmp");
    for (int w = 1; w <= 8; w++) {
        for (size_t hi = 0; hi < ARRAY_LEN(heights); hi++) {
            int h = heights[hi];
            uint8_t gray[8 * 7];
            for (int i = 0; i < w * h; i++)
                gray[i] = (uint8_t)(i * 37 + w * 11 + h);
            assert_int_equal(bmp_write_gray8(path, gray, w, h, err, sizeof err), 0);

            size_t len = 0;
            uint8_t *f = read_file(path, &len);
            assert_non_null(f);
            size_t stride = ((size_t)w + 3) / 4 * 4;
            assert_int_equal(len, 14 + 40 + 1024 + stride * (size_t)h);
            assert_memory_equal(f, "BM", 2);
            assert_int_equal(get32(f + 2), len);           /* bfSize */
            assert_int_equal(get32(f + 6), 0);             /* reserved */
            assert_int_equal(get32(f + 10), 1078);         /* bfOffBits */
            assert_int_equal(get32(f + 14), 40);           /* BITMAPINFOHEADER */
            assert_int_equal(get32(f + 18), w);
            assert_int_equal(get32(f + 22), h);            /* positive: bottom-up */
            assert_int_equal(get16(f + 26), 1);            /* planes */
            assert_int_equal(get16(f + 28), 8);            /* bits per pixel */
            assert_int_equal(get32(f + 30), 0);            /* BI_RGB */
            assert_int_equal(get32(f + 34), stride * (size_t)h);
            assert_int_equal(get32(f + 46), 256);          /* colours used */
            assert_int_equal(get32(f + 50), 0);            /* colours important: all */
            for (int i = 0; i < 256; i++) {
                const uint8_t entry[4] = {(uint8_t)i, (uint8_t)i, (uint8_t)i, 0};
                assert_memory_equal(f + 54 + 4 * i, entry, 4);
            }
            for (int y = 0; y < h; y++) {
                const uint8_t *row = f + 1078 + (size_t)(h - 1 - y) * stride;
                assert_memory_equal(row, gray + y * w, (size_t)w);
                for (size_t x = (size_t)w; x < stride; x++)
                    assert_int_equal(row[x], 0); /* padding */
            }
            free(f);

            bmp_image img = {0, 0, NULL};
            assert_int_equal(bmp_load(path, &img, err, sizeof err), 0);
            assert_int_equal(img.width, w);
            assert_int_equal(img.height, h);
            for (int i = 0; i < w * h; i++) {
                assert_int_equal(img.rgb[i * 3 + 0], gray[i]);
                assert_int_equal(img.rgb[i * 3 + 1], gray[i]);
                assert_int_equal(img.rgb[i * 3 + 2], gray[i]);
            }
            bmp_free(&img);
        }
    }
    /* The file has the mode any new file gets, not mkstemp's 0600; no temporary is left. */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~current_umask());
    assert_int_equal(count_entries(scratch), 1);
}

static void test_rgb24_round_trip(void **state)
{
    (void)state;
    char path[128], err[256];
    scratch_path(path, sizeof path, "rgb.bmp");
    for (int w = 1; w <= 5; w++) {
        const int h = 3;
        uint8_t rgb[5 * 3 * 3];
        for (int i = 0; i < w * h * 3; i++)
            rgb[i] = (uint8_t)(i * 29 + w);
        assert_int_equal(bmp_write_rgb24(path, rgb, w, h, err, sizeof err), 0);
        size_t len = 0;
        uint8_t *f = read_file(path, &len);
        assert_non_null(f);
        size_t stride = ((size_t)w * 3 + 3) / 4 * 4;
        assert_int_equal(len, 54 + stride * h);
        assert_int_equal(get32(f + 2), len);
        assert_int_equal(get32(f + 10), 54);
        assert_int_equal(get32(f + 14), 40);
        assert_int_equal(get16(f + 28), 24);
        assert_int_equal(get32(f + 46), 0);
        /* The bottom row is stored first, as B, G, R. */
        const uint8_t *bottom = f + 54;
        assert_int_equal(bottom[0], rgb[(2 * w) * 3 + 2]);
        assert_int_equal(bottom[2], rgb[(2 * w) * 3 + 0]);
        free(f);
        bmp_image img = {0, 0, NULL};
        assert_int_equal(bmp_load(path, &img, err, sizeof err), 0);
        assert_int_equal(img.width, w);
        assert_memory_equal(img.rgb, rgb, (size_t)(w * h * 3));
        bmp_free(&img);
    }
}

static void test_write_into_missing_folder(void **state)
{
    (void)state;
    char dir[128], path[160], err[256] = "";
    uint8_t gray[4] = {1, 2, 3, 4};
    scratch_path(dir, sizeof dir, "no-such-folder");
    snprintf(path, sizeof path, "%s/out.bmp", dir);
    assert_int_equal(bmp_write_gray8(path, gray, 2, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, strerror(ENOENT)));
    struct stat st;
    assert_int_not_equal(stat(dir, &st), 0);
    assert_int_equal(count_entries(scratch), 0);
}

/* Replacing an existing file gives exactly the new file (nothing of the old one left over). */
static void test_write_replaces_whole_file(void **state)
{
    (void)state;
    char path[128], err[256];
    scratch_path(path, sizeof path, "replace.bmp");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 10000; i++)
        fputc('x', f);
    assert_int_equal(fclose(f), 0);
    uint8_t gray[2] = {7, 9};
    assert_int_equal(bmp_write_gray8(path, gray, 2, 1, err, sizeof err), 0);
    size_t len = 0;
    uint8_t *data = read_file(path, &len);
    assert_non_null(data);
    assert_int_equal(len, 1078 + 4);
    assert_int_equal(data[1078], 7);
    assert_int_equal(data[1079], 9);
    assert_int_equal(data[1080], 0);
    free(data);
    assert_int_equal(count_entries(scratch), 1);
}

/* Only a regular file or a new name is replaced: a FIFO (a stand-in for /dev/null that a test
 * can break safely) or a folder is refused and left as it was. */
static void test_write_refuses_non_regular_target(void **state)
{
    (void)state;
    char path[128], err[256] = "";
    uint8_t gray[1] = {0};
    struct stat st;
    scratch_path(path, sizeof path, "fifo");
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(bmp_write_gray8(path, gray, 1, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a regular file"));
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    scratch_path(path, sizeof path, "folder");
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(bmp_write_rgb24(path, gray, 1, 1, err, sizeof err), -1);
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    /* A trailing slash names a folder. */
    char slash[160];
    snprintf(slash, sizeof slash, "%s/", scratch);
    assert_int_equal(bmp_write_gray8(slash, gray, 1, 1, err, sizeof err), -1);
    assert_int_equal(count_entries(scratch), 2);
}

static void test_write_bad_arguments(void **state)
{
    (void)state;
    char path[128], err[256] = "";
    uint8_t gray[1] = {0};
    scratch_path(path, sizeof path, "bad.bmp");
    assert_int_equal(bmp_write_gray8(path, gray, 0, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_int_equal(bmp_write_gray8(path, NULL, 1, 1, err, sizeof err), -1);
    /* 70000 x 70000 at 8 bits is more than the 32-bit size fields of a BMP can hold; refused
     * before the pixels are touched, so a 1-byte buffer is enough to ask. */
    assert_int_equal(bmp_write_gray8(path, gray, 70000, 70000, err, sizeof err), -1);
    assert_non_null(strstr(err, "too large"));
    assert_int_equal(count_entries(scratch), 0);
}

/* A write that fails half-way (here: the file-size limit, as a full disk would) leaves neither
 * the target nor the temporary, and an existing target keeps its old content. */
static void test_write_failure_leaves_nothing(void **state)
{
    (void)state;
    char path[128], err[256] = "";
    uint8_t gray[64 * 64] = {0};
    struct rlimit old, small;
    scratch_path(path, sizeof path, "full.bmp");

    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 2000; /* room for the headers and palette, not for 64 rows of 64 */
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN); /* get EFBIG, not a signal */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = bmp_write_gray8(path, gray, 64, 64, err, sizeof err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_handler);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "write error"));
    assert_int_equal(count_entries(scratch), 0);

    /* Again over an existing file: the old file stays whole. */
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("old content", f);
    assert_int_equal(fclose(f), 0);
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    rc = bmp_write_gray8(path, gray, 64, 64, err, sizeof err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_handler);
    assert_int_equal(rc, -1);
    size_t len = 0;
    uint8_t *data = read_file(path, &len);
    assert_non_null(data);
    assert_int_equal(len, strlen("old content"));
    assert_memory_equal(data, "old content", len);
    free(data);
    assert_int_equal(count_entries(scratch), 1);
}

/* A file in the working directory (no folder in the name) is written beside it. */
static void test_write_relative_name(void **state)
{
    (void)state;
    char cwd[512], err[256] = "";
    uint8_t gray[1] = {5};
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(scratch), 0);
    int rc = bmp_write_gray8("plain.bmp", gray, 1, 1, err, sizeof err);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(count_entries(scratch), 1);
}

/* ---------------------------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------------------------- */

static void test_load_errors(void **state)
{
    (void)state;
    static int sentinel;
    bmp_image img = {-7, -9, (uint8_t *)&sentinel};
    char path[128], err[256] = "";

    scratch_path(path, sizeof path, "missing.bmp");
    assert_int_equal(bmp_load(path, &img, err, sizeof err), -1);
    char want[256];
    snprintf(want, sizeof want, "%s: %s", path, strerror(ENOENT));
    assert_string_equal(err, want);

    /* A folder opens but cannot be read. */
    assert_int_equal(bmp_load(scratch, &img, err, sizeof err), -1);
    assert_true(strncmp(err, scratch, strlen(scratch)) == 0);

    /* A malformed file: the reason carries the path. */
    scratch_path(path, sizeof path, "bad.bmp");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("BMnot really", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(bmp_load(path, &img, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: file too short for a BMP header (12 bytes)", path);
    assert_string_equal(err, want);

    assert_int_equal(img.width, -7);
    assert_int_equal(img.height, -9);
    assert_ptr_equal(img.rgb, (uint8_t *)&sentinel);
}

/* ---------------------------------------------------------------------------------------------
 * Decompression bombs, the header first, devices and pipes
 * ------------------------------------------------------------------------------------------- */

/* An RLE file of w x h (bpp 8 or 4) whose pixel data is `stream`, into a malloc'd buffer. */
static uint8_t *rle_file(int w, int h, int bpp, const uint8_t *stream, size_t stream_len,
                         size_t *len)
{
    bmp_spec s = {.hsize = 40, .width = w, .height = h, .planes = 1, .bpp = (uint16_t)bpp,
                  .compression = bpp == 8 ? 1u : 2u, .npal = 4, .pal = pal4,
                  .pixels = stream, .pixels_len = stream_len};
    const size_t cap = 14 + 40 + 16 + stream_len;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    *len = build_bmp(buf, cap, &s);
    return buf;
}

/* A decode with these limits; the reason into err. */
static int decode_with(const uint8_t *buf, size_t len, int allow, bmp_image *img, char *err,
                       size_t err_size)
{
    io_limits lim;
    io_limits_default(&lim);
    lim.allow_high_ratio = allow;
    lim.ratio_hint = "--allow-high-ratio";
    return bmp_decode_with(buf, len, &lim, img, err, err_size);
}

/* The three shapes of decompression bomb, at 2048 x 1024 (2^21 pixels, so the test stays small):
 * an end-of-bitmap at once, deltas past most of the image, an absolute run at the end of the
 * file. Each is refused before the image is allocated, naming the flag that accepts it; with
 * the flag, the valid ones decode (pixels never set are palette entry 0) and the truncated one
 * is refused as truncated. RLE4 likewise. */
static void test_rle_bombs_refused(void **state)
{
    (void)state;
    static const uint8_t eob[] = {0, 1};
    static const uint8_t deltas[] = {0, 2, 255, 255, 0, 2, 255, 255, 0, 2, 255, 255, 0, 2, 255,
                                     255, 0, 1};
    static const uint8_t absolute_at_end[] = {0, 3, 1, 2, 3, 0};
    const struct {
        const uint8_t *stream;
        size_t len;
        int bpp;
        const char *with_flag; /* NULL: decodes with the flag */
    } bombs[] = {
        {eob, sizeof eob, 8, NULL},
        {deltas, sizeof deltas, 8, NULL},
        {absolute_at_end, sizeof absolute_at_end, 8, "before the end-of-bitmap marker"},
        {eob, sizeof eob, 4, NULL},
        {deltas, sizeof deltas, 4, NULL},
    };
    for (size_t i = 0; i < ARRAY_LEN(bombs); i++) {
        size_t len;
        uint8_t *buf = rle_file(2048, 1024, bombs[i].bpp, bombs[i].stream, bombs[i].len, &len);
        static int sentinel;
        bmp_image img = {-7, -9, (uint8_t *)&sentinel};
        char err[256] = "";
        assert_int_equal(decode_with(buf, len, 0, &img, err, sizeof err), -1);
        assert_non_null(strstr(err, bombs[i].bpp == 8 ? "RLE8 data of" : "RLE4 data of"));
        assert_non_null(strstr(err, "for a 2048 x 1024 image"));
        assert_non_null(strstr(err, "a likely decompression bomb (--allow-high-ratio accepts it)"));
        assert_ptr_equal(img.rgb, (uint8_t *)&sentinel);
        /* bmp_decode, the defaults, refuses it too. */
        expect_refusal(buf, len, "decompression bomb");
        int rc = decode_with(buf, len, 1, &img, err, sizeof err);
        if (bombs[i].with_flag) {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(err, bombs[i].with_flag));
        } else {
            assert_int_equal(rc, 0);
            assert_pixel(&img, 0, 0, 10, 20, 30);
            assert_pixel(&img, 2047, 1023, 10, 20, 30);
            bmp_free(&img);
        }
        free(buf);
    }
}

/* The limit is 256 pixels per byte of pixel data, above 2^20 pixels: 1025 x 1024 needs 4100
 * bytes; 1024 x 1024 needs none. The stream: end-of-line to the last row, end-of-bitmap, and
 * filler after it (bytes the decoder never reads still count as the file's). */
static void test_rle_ratio_boundary(void **state)
{
    (void)state;
    uint8_t stream[4100];
    memset(stream, 0xee, sizeof stream);
    for (int row = 0; row < 1023; row++)
        stream[2 * row] = stream[2 * row + 1] = 0;
    stream[2046] = 0;
    stream[2047] = 1;
    size_t len;
    uint8_t *buf = rle_file(1025, 1024, 8, stream, 4100, &len);
    bmp_image img = decode_ok(buf, len, 1025, 1024);
    bmp_free(&img);
    free(buf);
    buf = rle_file(1025, 1024, 8, stream, 4099, &len);
    expect_refusal(buf, len, "RLE8 data of 4099 bytes for a 1025 x 1024 image: 256 pixels a byte");
    free(buf);
    buf = rle_file(1024, 1024, 8, stream + 2046, 2, &len); /* exactly 2^20 pixels */
    img = decode_ok(buf, len, 1024, 1024);
    bmp_free(&img);
    free(buf);
}

/* The pixel limit, with the caller's hint; bmp_reader_open knows the size before the pixels. */
static void test_pixel_limit_and_open(void **state)
{
    (void)state;
    char err[256] = "", path[128];
    io_limits lim;
    io_limits_default(&lim);
    assert_true(io_limits_max_pixels(&lim) == 268435456LL);
    lim.max_pixels = 100;
    lim.pixels_hint = "--max-pixels";
    assert_int_equal(io_limits_check_pixels(10, 10, &lim, err, sizeof err), 0);
    assert_int_equal(io_limits_check_pixels(10, 11, &lim, err, sizeof err), -1);
    assert_string_equal(err, "image size 10 x 11 (110 pixels) exceeds the limit of 100 pixels "
                             "(--max-pixels raises it)");
    lim.max_pixels = 1LL << 40; /* above the hard limit: the hard limit */
    assert_true(io_limits_max_pixels(&lim) == 1073741824LL);

    /* A file: bmp_reader_open gives the size from the header; a bomb is refused there already. */
    size_t len;
    const uint8_t eob[] = {0, 1};
    uint8_t *buf = rle_file(20, 30, 8, eob, sizeof eob, &len);
    scratch_path(path, sizeof path, "small.bmp");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(buf);
    bmp_reader r;
    assert_int_equal(bmp_reader_open(&r, path, NULL, err, sizeof err), 0);
    assert_int_equal(r.width, 20);
    assert_int_equal(r.height, 30);
    bmp_image img = {0, 0, NULL};
    assert_int_equal(bmp_reader_decode(&r, &img, err, sizeof err), 0);
    assert_pixel(&img, 19, 29, 10, 20, 30);
    bmp_free(&img);
    bmp_reader_close(&r);

    buf = rle_file(4096, 4096, 8, eob, sizeof eob, &len);
    scratch_path(path, sizeof path, "bomb.bmp");
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(buf);
    assert_int_equal(bmp_reader_open(&r, path, NULL, err, sizeof err), -1);
    assert_int_equal(strncmp(err, path, strlen(path)), 0);
    assert_non_null(strstr(err, "decompression bomb"));
    lim.max_pixels = 1000;
    assert_int_equal(bmp_reader_open(&r, path, &lim, err, sizeof err), -1);
    assert_non_null(strstr(err, "exceeds the limit of 1000 pixels (--max-pixels raises it)"));
}

/* Devices and folders are refused before a byte is read: /dev/zero would never end. */
static void test_devices_refused(void **state)
{
    (void)state;
    char err[256] = "";
    bmp_reader r;
    assert_int_equal(bmp_reader_open(&r, "/dev/zero", NULL, err, sizeof err), -1);
    assert_string_equal(err, "/dev/zero: a character device, not a file; refusing to read it");
    assert_int_equal(bmp_reader_open(&r, scratch, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, ": a folder, not a file"));
    /* A name with a newline is shown escaped: the message stays one line. */
    char odd[160];
    scratch_path(odd, sizeof odd, "two\nlines.bmp");
    assert_int_equal(bmp_reader_open(&r, odd, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "two\\nlines.bmp: "));
    assert_null(strchr(err, '\n'));
}

/* Writes data to a FIFO from a child process, then `junk` more bytes (0xff) or, with junk -1,
 * zeros until the reader goes away. The child's exit status: the 4 KiB blocks it wrote in all,
 * at most 255. Returns the child's pid. */
static pid_t fifo_writer(const char *fifo, const uint8_t *data, size_t len, long junk)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN);
        int fd = open(fifo, O_WRONLY);
        uint8_t block[4096];
        size_t written = 0;
        if (fd < 0)
            _exit(254);
        if (len && write(fd, data, len) != (ssize_t)len)
            _exit(253);
        written += len;
        memset(block, junk < 0 ? 0 : 0xff, sizeof block);
        while (junk < 0 || (long)(written - len) < junk) {
            ssize_t n = write(fd, block, sizeof block);
            if (n <= 0)
                break;
            written += (size_t)n;
        }
        close(fd);
        _exit(written / 4096 > 250 ? 250 : (int)(written / 4096));
    }
    return pid;
}

/* A pipe is read for its header first: a stream that is not a BMP is refused after its first
 * bytes (the writer gets no further than the pipe's buffer), and a valid one is read only as
 * far as its header makes meaningful, whatever follows. */
static void test_pipe_read_in_bounded_steps(void **state)
{
    (void)state;
    char fifo[128], err[256] = "";
    int status;
    scratch_path(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);

    pid_t pid = fifo_writer(fifo, NULL, 0, -1); /* /dev/zero through a pipe */
    bmp_reader r;
    assert_int_equal(bmp_reader_open(&r, fifo, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a BMP file (no 'BM' signature)"));
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    /* 64 KiB of pipe buffer and the 154 bytes read: 17 blocks at most, never the 2 GiB of
     * before. */
    assert_true(WEXITSTATUS(status) <= 17);

    /* A 3 x 2 24-bit image (78 bytes), then 1 MiB of junk: decoded, with nothing read beyond
     * the first 154 bytes that every header check may need. */
    const uint8_t px[24] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 11, 12, 13, 14, 15, 16, 17,
                            18, 19, 0, 0, 0};
    bmp_spec s = {.hsize = 40, .width = 3, .height = 2, .planes = 1, .bpp = 24,
                  .pixels = px, .pixels_len = sizeof px};
    uint8_t buf[128];
    size_t len = build_bmp(buf, sizeof buf, &s);
    pid = fifo_writer(fifo, buf, len, 1 << 20);
    assert_int_equal(bmp_reader_open(&r, fifo, NULL, err, sizeof err), 0);
    assert_int_equal(r.width, 3);
    assert_int_equal(r.height, 2);
    bmp_image img = {0, 0, NULL};
    assert_int_equal(bmp_reader_decode(&r, &img, err, sizeof err), 0);
    assert_int_equal(len, 78);
    assert_int_equal(r.size, 154);
    assert_pixel(&img, 0, 0, 13, 12, 11);
    assert_pixel(&img, 2, 1, 9, 8, 7);
    bmp_free(&img);
    bmp_reader_close(&r);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) < 250);

    /* 100 x 100 at 24 bits: 54 + 100 rows of 300 bytes; the 1 MiB after them is not read. */
    static uint8_t big_px[300 * 100], big[54 + sizeof big_px];
    for (size_t i = 0; i < sizeof big_px; i++)
        big_px[i] = (uint8_t)(i * 7);
    bmp_spec b = {.hsize = 40, .width = 100, .height = 100, .planes = 1, .bpp = 24,
                  .pixels = big_px, .pixels_len = sizeof big_px};
    len = build_bmp(big, sizeof big, &b);
    pid = fifo_writer(fifo, big, len, 1 << 20);
    assert_int_equal(bmp_reader_open(&r, fifo, NULL, err, sizeof err), 0);
    assert_int_equal(bmp_reader_decode(&r, &img, err, sizeof err), 0);
    assert_int_equal(r.size, 30054);
    assert_pixel(&img, 0, 99, 14, 7, 0); /* the bottom row comes first: B 0, G 7, R 14 */
    bmp_free(&img);
    bmp_reader_close(&r);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) < 250);
    assert_int_equal(unlink(fifo), 0);
}

/* ---------------------------------------------------------------------------------------------
 * BMP Suite
 * ------------------------------------------------------------------------------------------- */

typedef struct {
    const char *file;     /* under tests/data/bmpsuite/ */
    const char *expected; /* reference under tests/data/bmpsuite-expected/ (no .ppm), or NULL */
    const char *refusal;  /* when expected is NULL: what the reason must mention */
} suite_case;

/* The same table as tests/bmpsuite-status.md and make-bmpsuite-expected.py. */
static const suite_case suite_cases[] = {
    {"g/pal1.bmp", "pal1", NULL},
    {"g/pal1wb.bmp", "pal1", NULL},
    {"g/pal1bg.bmp", "pal1bg", NULL},
    {"g/pal4.bmp", "pal4", NULL},
    {"g/pal4gs.bmp", "pal4gs", NULL},
    {"g/pal4rle.bmp", "pal4", NULL},
    {"g/pal8.bmp", "pal8", NULL},
    {"g/pal8-0.bmp", "pal8", NULL},
    {"g/pal8gs.bmp", "pal8gs", NULL},
    {"g/pal8rle.bmp", "pal8", NULL},
    {"g/pal8w126.bmp", "pal8w126", NULL},
    {"g/pal8w125.bmp", "pal8w125", NULL},
    {"g/pal8w124.bmp", "pal8w124", NULL},
    {"g/pal8topdown.bmp", "pal8", NULL},
    {"g/pal8nonsquare.bmp", "pal8nonsquare-e", NULL},
    {"g/pal8os2.bmp", "pal8", NULL},
    {"g/pal8v4.bmp", "pal8", NULL},
    {"g/pal8v5.bmp", "pal8", NULL},
    {"g/rgb16.bmp", "rgb16", NULL},
    {"g/rgb16bfdef.bmp", "rgb16", NULL},
    {"g/rgb16-565.bmp", "rgb16-565", NULL},
    {"g/rgb16-565pal.bmp", "rgb16-565", NULL},
    {"g/rgb24.bmp", "rgb24", NULL},
    {"g/rgb24pal.bmp", "rgb24", NULL},
    {"g/rgb32.bmp", "rgb24", NULL},
    {"g/rgb32bfdef.bmp", "rgb24", NULL},
    {"g/rgb32bf.bmp", "rgb24", NULL},

    {"q/pal1p1.bmp", "pal1p1", NULL},
    {"q/pal2.bmp", "pal2", NULL},
    {"q/pal2color.bmp", "pal2color", NULL},
    {"q/pal4rletrns.bmp", "pal4rletrns-0", NULL},
    {"q/pal4rlecut.bmp", "pal4rlecut-0", NULL},
    {"q/pal8rletrns.bmp", "pal8rletrns-0", NULL},
    {"q/pal8rlecut.bmp", "pal8rlecut-0", NULL},
    {"q/pal8offs.bmp", "pal8", NULL},
    {"q/pal8oversizepal.bmp", NULL, "palette of 300 colours, but 8 bits per pixel can index only 256"},
    {"q/pal8os2-sz.bmp", "pal8", NULL},
    {"q/pal8os2-hs.bmp", "pal8", NULL},
    {"q/pal8os2sp.bmp", "pal8", NULL},
    {"q/pal8os2v2.bmp", "pal8", NULL},
    {"q/pal8os2v2-16.bmp", "pal8", NULL},
    {"q/pal8os2v2-sz.bmp", "pal8", NULL},
    {"q/pal8os2v2-40sz.bmp", "pal8", NULL},
    {"q/rgb24rle24.bmp", NULL, "OS/2 RLE24 compression is not supported"},
    {"q/pal1huffmsb.bmp", NULL, "OS/2 Huffman 1D compression is not supported"},
    {"q/rgb16faketrns.bmp", "rgb16", NULL},
    {"q/rgb16-231.bmp", "rgb16-231", NULL},
    {"q/rgb16-3103.bmp", "rgb16-3103", NULL},
    {"q/rgba16-4444.bmp", "rgba16-4444", NULL},
    {"q/rgba16-5551.bmp", "rgba16-5551", NULL},
    {"q/rgba16-1924.bmp", "rgba16-1924", NULL},
    {"q/rgb24largepal.bmp", "rgb24", NULL},
    {"q/rgb24prof.bmp", "rgb24", NULL},
    {"q/rgb24prof2.bmp", "rgb24-rgswap", NULL},
    {"q/rgb24lprof.bmp", "rgb24", NULL},
    {"q/rgb24jpeg.bmp", NULL, "embedded JPEG"},
    {"q/rgb24png.bmp", NULL, "embedded PNG"},
    {"q/rgb32h52.bmp", "rgb24", NULL},
    {"q/rgb32-xbgr.bmp", "rgb24", NULL},
    {"q/rgb32fakealpha.bmp", "rgb24", NULL},
    {"q/rgb32-111110.bmp", "rgb24", NULL},
    {"q/rgb32-7187.bmp", "rgb32-7187", NULL},
    {"q/rgba32-1.bmp", "rgba32", NULL},
    {"q/rgba32-2.bmp", "rgba32", NULL},
    {"q/rgba32-1010102.bmp", "rgba32-1010102", NULL},
    {"q/rgba32-81284.bmp", "rgba32-81284", NULL},
    {"q/rgba32-61754.bmp", "rgba32-61754", NULL},
    {"q/rgba32abf.bmp", "rgba32", NULL},
    {"q/rgba32h56.bmp", "rgba32", NULL},
    {"q/rgba64.bmp", NULL, "unsupported bit depth 64"},

    {"b/badbitcount.bmp", NULL, "unsupported bit depth 30000"},
    {"b/badbitssize.bmp", "pal1", NULL},  /* biSizeImage is not needed */
    {"b/baddens1.bmp", "pal1", NULL},     /* nor the density */
    {"b/baddens2.bmp", "pal1", NULL},
    {"b/badfilesize.bmp", "pal1", NULL},  /* nor bfSize */
    {"b/badheadersize.bmp", NULL, "unknown BMP info header size 66"},
    {"b/badpalettesize.bmp", NULL, "palette of 305402420 colours"},
    {"b/badplanes.bmp", NULL, "number of planes is 30000"},
    {"b/badrle.bmp", NULL, "passes the end of the row"},
    {"b/badrle4.bmp", NULL, "passes the end of the row"},
    {"b/badrle4bis.bmp", NULL, "leaves the 127 x 64 image"},
    {"b/badrle4ter.bmp", NULL, "leaves the 127 x 64 image"},
    {"b/badrlebis.bmp", NULL, "leaves the 127 x 64 image"},
    {"b/badrleter.bmp", NULL, "leaves the 127 x 64 image"},
    {"b/badwidth.bmp", NULL, "negative image width -127"},
    {"b/pal8badindex.bmp", NULL, "is past the 101-entry palette"},
    {"b/reallybig.bmp", NULL, "3000000 x 2000000 exceeds the limit"},
    {"b/rgb16-880.bmp", NULL, "blue bitfield mask is zero"},
    {"b/rletopdown.bmp", NULL, "RLE compression in a top-down BMP"},
    {"b/shortfile.bmp", NULL, "pixel data truncated"},

    {"x/ba-bm.bmp", NULL, "bitmap arrays"},
};

static void test_suite_file(void **state)
{
    const suite_case *c = *state;
    char path[512], err[512] = "";
    static int sentinel;
    bmp_image img = {-7, -9, (uint8_t *)&sentinel};

    snprintf(path, sizeof path, "%s/tests/data/bmpsuite/%s", test_root(), c->file);
    int rc = bmp_load(path, &img, err, sizeof err);
    if (!c->expected) {
        if (rc == 0 || !strstr(err, c->refusal))
            print_error("%s: expected a refusal mentioning \"%s\", got rc %d: %s\n", c->file,
                        c->refusal, rc, err);
        assert_int_equal(rc, -1);
        assert_non_null(strstr(err, c->refusal));
        assert_true(strncmp(err, path, strlen(path)) == 0);
        assert_ptr_equal(img.rgb, (uint8_t *)&sentinel);
        return;
    }
    if (rc != 0)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);

    int w = 0, h = 0, mw = 0, mh = 0;
    snprintf(path, sizeof path, "%s/tests/data/bmpsuite-expected/%s.ppm", test_root(),
             c->expected);
    uint8_t *want = read_pnm(path, "P6", 3, &w, &h);
    if (!want)
        print_error("cannot read %s\n", path);
    assert_non_null(want);
    /* Fully transparent pixels of RGBA references have no defined colour: a mask says which
     * pixels to compare (make-bmpsuite-expected.py). */
    snprintf(path, sizeof path, "%s/tests/data/bmpsuite-expected/%s.mask.pgm", test_root(),
             c->expected);
    uint8_t *mask = read_pnm(path, "P5", 1, &mw, &mh);
    assert_int_equal(img.width, w);
    assert_int_equal(img.height, h);
    if (mask) {
        assert_int_equal(mw, w);
        assert_int_equal(mh, h);
    }
    long bad = 0, compared = 0;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        if (mask && mask[i] == 0)
            continue;
        compared++;
        for (int k = 0; k < 3; k++) {
            int d = abs((int)img.rgb[i * 3 + k] - (int)want[i * 3 + k]);
            if (d > 1 && bad++ < 3)
                print_error("%s: pixel (%lu, %lu) channel %d is %d, expected %d\n", c->file,
                            (unsigned long)(i % (size_t)w), (unsigned long)(i / (size_t)w), k,
                            img.rgb[i * 3 + k], want[i * 3 + k]);
        }
    }
    assert_int_equal(bad, 0);
    /* A mask that hides most of the picture would make the comparison meaningless. */
    assert_true(compared > (long)w * h * 9 / 10);
    free(mask);
    free(want);
    bmp_free(&img);
}

/* Alpha is ignored: a fully transparent pixel returns the colour stored under it (bright green
 * at (27, 21) of rgba32-1.bmp, where the reference PNG says 0,0,0,0). */
static void test_suite_alpha_ignored(void **state)
{
    (void)state;
    char path[512], err[512] = "";
    bmp_image img = {0, 0, NULL};
    snprintf(path, sizeof path, "%s/tests/data/bmpsuite/q/rgba32-1.bmp", test_root());
    assert_int_equal(bmp_load(path, &img, err, sizeof err), 0);
    assert_pixel(&img, 27, 21, 0, 255, 0);
    bmp_free(&img);
}

/* ---------------------------------------------------------------------------------------------
 * Main: fixed tests, then the two tables, each case a test of its own.
 * ------------------------------------------------------------------------------------------- */

int main(void)
{
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_rgb24_bottom_up),
        cmocka_unit_test(test_rgb24_top_down),
        cmocka_unit_test(test_pal8_bottom_up_and_top_down),
        cmocka_unit_test(test_low_bit_depths),
        cmocka_unit_test(test_os2_core_header),
        cmocka_unit_test(test_16bit_555_default_and_565_bitfields),
        cmocka_unit_test(test_32bit_channel_orders),
        cmocka_unit_test(test_rle8),
        cmocka_unit_test(test_rle4),
        cmocka_unit_test(test_unneeded_fields_ignored),
        cmocka_unit_test(test_short_implied_palette),
        cmocka_unit_test(test_decode_limited),
        cmocka_unit_test(test_malformed_bases_are_valid),
        cmocka_unit_test(test_every_truncation_refused),
        cmocka_unit_test(test_null_and_tiny_inputs),
        cmocka_unit_test_setup(test_gray8_round_trip, empty_scratch),
        cmocka_unit_test_setup(test_rgb24_round_trip, empty_scratch),
        cmocka_unit_test_setup(test_write_into_missing_folder, empty_scratch),
        cmocka_unit_test_setup(test_write_replaces_whole_file, empty_scratch),
        cmocka_unit_test_setup(test_write_refuses_non_regular_target, empty_scratch),
        cmocka_unit_test_setup(test_write_bad_arguments, empty_scratch),
        cmocka_unit_test_setup(test_write_failure_leaves_nothing, empty_scratch),
        cmocka_unit_test_setup(test_write_relative_name, empty_scratch),
        cmocka_unit_test_setup(test_load_errors, empty_scratch),
        cmocka_unit_test(test_rle_bombs_refused),
        cmocka_unit_test(test_rle_ratio_boundary),
        cmocka_unit_test_setup(test_pixel_limit_and_open, empty_scratch),
        cmocka_unit_test_setup(test_devices_refused, empty_scratch),
        cmocka_unit_test_setup(test_pipe_read_in_bounded_steps, empty_scratch),
        cmocka_unit_test(test_suite_alpha_ignored),
    };
    struct CMUnitTest malformed[ARRAY_LEN(bad_cases)];
    struct CMUnitTest suite[ARRAY_LEN(suite_cases)];
    for (size_t i = 0; i < ARRAY_LEN(bad_cases); i++)
        malformed[i] = (struct CMUnitTest){.name = bad_cases[i].name,
                                           .test_func = test_malformed,
                                           .initial_state = (void *)&bad_cases[i]};
    for (size_t i = 0; i < ARRAY_LEN(suite_cases); i++)
        suite[i] = (struct CMUnitTest){.name = suite_cases[i].file,
                                       .test_func = test_suite_file,
                                       .initial_state = (void *)&suite_cases[i]};
    int failed = cmocka_run_group_tests_name("bmp", fixed, scratch_setup, scratch_teardown);
    /* The table groups are sized at run time, so they go through the function that the
     * cmocka_run_group_tests macro expands to. */
    failed += _cmocka_run_group_tests("bmp malformed", malformed, ARRAY_LEN(malformed), NULL, NULL);
    failed += _cmocka_run_group_tests("bmpsuite", suite, ARRAY_LEN(suite), NULL, NULL);
    return failed ? 1 : 0;
}
