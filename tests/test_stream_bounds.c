/* test_stream_bounds.c - how far a PNG, JPEG or PGM/PPM on a stream goes (src/io/
 * stream_bounds.c): every fixture ends where its image does, whatever follows and however its
 * bytes arrive, and decodes from there as from the whole file; endless streams after a valid
 * header are refused at the bound, declared lengths before their bytes. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "stream_bounds.h"

/* A file's bytes, with `extra` bytes of `fill` after them (malloc'd). */
static uint8_t *load(const char *name, size_t extra, int fill, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/formats/%s", test_root(), name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    rewind(f);
    uint8_t *data = malloc((size_t)n + extra);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    memset(data + n, fill, extra);
    *size = (size_t)n;
    return data;
}

typedef struct {
    io_stream_status status; /* IO_STREAM_MORE: the data ran out first */
    size_t end;              /* IO_STREAM_END's end; else the bytes taken */
    int calls;
    size_t most_taken;       /* the most bytes the reader held */
} scanned;

/* Feeds data (size bytes at most) to a scanner as a reader would: exactly what it asks for
 * where it knows, else blocks of `block` bytes. */
static scanned scan(io_format fmt, const uint8_t *data, size_t size, size_t block, char *err,
                    size_t err_size)
{
    io_stream s;
    scanned r = {IO_STREAM_MORE, 0, 0, 0};
    size_t len = size < 16 ? size : 16;
    io_stream_init(&s, fmt);
    for (;;) {
        size_t want = 0;
        r.calls++;
        r.most_taken = len;
        r.status = io_stream_scan(&s, data, len, &want, err, err_size);
        if (r.status == IO_STREAM_END) {
            assert_true(s.end <= len);
            r.end = s.end;
            return r;
        }
        if (r.status == IO_STREAM_REFUSED)
            return r;
        assert_true(want > len);
        assert_true(want <= s.limit);
        if (len == size) {
            r.end = len;
            return r;
        }
        len = want > len + 1 ? want : len + block;
        if (len > s.limit)
            len = s.limit;
        if (len > size)
            len = size;
    }
}

/* Every fixture: the end found is the image's, and decoding the bytes up to it gives what the
 * whole file gives, with 100000 bytes of zeros or 0xFF after it, read in blocks of any size. */
static void test_fixtures_end_where_their_image_does(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        io_format fmt;
    } files[] = {
        {"g1.png", IO_FORMAT_PNG},       {"g16i.png", IO_FORMAT_PNG},
        {"g8anc.png", IO_FORMAT_PNG},    {"p4.png", IO_FORMAT_PNG},
        {"rgba16i.png", IO_FORMAT_PNG},  {"rgb8i.png", IO_FORMAT_PNG},
        {"base420.jpg", IO_FORMAT_JPEG}, {"base444.jpg", IO_FORMAT_JPEG},
        {"prog420.jpg", IO_FORMAT_JPEG}, {"gray-prog.jpg", IO_FORMAT_JPEG},
        {"arith420.jpg", IO_FORMAT_JPEG}, {"restart444.jpg", IO_FORMAT_JPEG},
        {"g8.pgm", IO_FORMAT_PNM},       {"g16.pgm", IO_FORMAT_PNM},
        {"rgb8.ppm", IO_FORMAT_PNM},     {"g15-text.pgm", IO_FORMAT_PNM},
        {"rgb65535-text.ppm", IO_FORMAT_PNM},
    };
    static const size_t blocks[] = {1, 7, 4096, 65536};
    char err[512] = "";
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        for (int fill = 0; fill < 2; fill++)
            for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
                size_t size;
                uint8_t *data = load(files[i].name, 100000, fill ? 0xff : 0, &size);
                const scanned r = scan(files[i].fmt, data, size + 100000, blocks[b], err,
                                       sizeof err);
                if (r.status != IO_STREAM_END)
                    fail_msg("%s: status %d (%s)", files[i].name, (int)r.status, err);
                /* A binary file ends at its last byte, a text one at its last digit. */
                if (r.end > size || (files[i].fmt != IO_FORMAT_PNM && r.end != size) ||
                    r.end + 2 < size)
                    fail_msg("%s: ends at %zu of %zu", files[i].name, r.end, size);
                /* Never more than a block past the image's end was taken. */
                assert_true(r.most_taken <= size + blocks[b]);
                io_image whole, cut;
                assert_int_equal(io_decode(data, size, 0, IO_MAX_PIXELS_PER_BYTE, &whole, err,
                                           sizeof err), 0);
                if (io_decode(data, r.end, 0, IO_MAX_PIXELS_PER_BYTE, &cut, err, sizeof err))
                    fail_msg("%s cut at %zu: %s", files[i].name, r.end, err);
                assert_int_equal(cut.width, whole.width);
                assert_int_equal(cut.height, whole.height);
                assert_int_equal(cut.channels, whole.channels);
                assert_memory_equal(cut.pixels, whole.pixels,
                                    (size_t)whole.width * whole.height * whole.channels *
                                        (whole.depth / 8));
                io_image_free(&whole);
                io_image_free(&cut);
                free(data);
            }
}

/* A JPEG segment whose length is 0 or 1 (under the two bytes of the length itself): libjpeg
 * reads on right after the length (the whole file decodes), and so does the scanner: the stream
 * ends at the image's end, however its bytes arrive, with zeros after it (a fuzz find:
 * the scanner once ended the stream at such a segment, cutting the image off). */
static void test_jpeg_segments_shorter_than_their_length(void **state)
{
    (void)state;
    static const uint8_t inserts[2][4] = {{0xff, 0xea, 0x00, 0x00}, {0xff, 0xeb, 0x00, 0x01}};
    static const size_t blocks[] = {1, 7, 4096};
    char err[512] = "";
    for (int k = 0; k < 2; k++) {
        size_t n;
        uint8_t *file = load("base420.jpg", 0, 0, &n);
        const size_t size = n + 4, extra = 1000;
        uint8_t *data = malloc(size + extra);
        assert_non_null(data);
        memcpy(data, file, 2); /* SOI, then the short segment, then the rest */
        memcpy(data + 2, inserts[k], 4);
        memcpy(data + 6, file + 2, n - 2);
        memset(data + size, 0, extra);
        io_image whole;
        if (io_decode(data, size, 0, IO_MAX_PIXELS_PER_BYTE, &whole, err, sizeof err))
            fail_msg("length %d: the whole file: %s", k, err);
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            const scanned r = scan(IO_FORMAT_JPEG, data, size + extra, blocks[b], err,
                                   sizeof err);
            if (r.status != IO_STREAM_END || r.end != size)
                fail_msg("length %d, blocks of %zu: status %d, end %zu of %zu", k, blocks[b],
                         (int)r.status, r.end, size);
        }
        io_image_free(&whole);
        free(data);
        free(file);
    }
}

/* What the header sets: the size, and the bound for it. */
static void test_bounds_from_the_header(void **state)
{
    (void)state;
    char err[512] = "";
    io_stream s;
    size_t want;
    /* A binary PGM: exactly its raster, asked for in one step. */
    static const uint8_t pgm[] = "P5\n# c\n3 2\n65535\n";
    io_stream_init(&s, IO_FORMAT_PNM);
    assert_int_equal(io_stream_scan(&s, pgm, sizeof pgm - 1, &want, err, sizeof err),
                     IO_STREAM_MORE);
    assert_int_equal(s.have_size, 1);
    assert_int_equal(s.width, 3);
    assert_int_equal(s.height, 2);
    assert_int_equal(want, sizeof pgm - 1 + 12);
    assert_int_equal(s.limit, want);
    /* A text PPM: 8 bytes a sample and the slack. */
    static const uint8_t ppm[] = "P3 4 5 255 ";
    io_stream_init(&s, IO_FORMAT_PNM);
    assert_int_equal(io_stream_scan(&s, ppm, sizeof ppm - 1, &want, err, sizeof err),
                     IO_STREAM_MORE);
    assert_int_equal(s.limit, sizeof ppm - 1 + 8 * 60 + IO_STREAM_MAX_TEXT_SLACK);
    assert_int_equal(want, sizeof ppm); /* any amount */
    /* A PNG: twice the raw rows (and 4 bytes a row, 64 more) and 64 MiB. */
    size_t size;
    uint8_t *png = load("rgb8.png", 0, 0, &size);
    io_stream_init(&s, IO_FORMAT_PNG);
    assert_int_equal(io_stream_scan(&s, png, 33, &want, err, sizeof err), IO_STREAM_MORE);
    assert_int_equal(s.channels, 3);
    assert_int_equal(s.limit, 2 * ((size_t)s.height * (1 + 3 * (size_t)s.width + 4) + 64) +
                                  IO_STREAM_MAX_META);
    assert_int_equal(want, 41); /* the next chunk's header */
    free(png);
    /* A JPEG: 4 bytes a sample and 64 MiB, from SOF. */
    uint8_t *jpg = load("base420.jpg", 0, 0, &size);
    io_stream_init(&s, IO_FORMAT_JPEG);
    scanned r = scan(IO_FORMAT_JPEG, jpg, size, 65536, err, sizeof err);
    assert_int_equal(r.status, IO_STREAM_END);
    io_stream_init(&s, IO_FORMAT_JPEG);
    for (size_t len = 16; !s.have_size && len <= size; len++)
        io_stream_scan(&s, jpg, len, &want, err, sizeof err);
    assert_int_equal(s.channels, 3);
    assert_int_equal(s.limit, 4 * (size_t)s.width * (size_t)s.height * 3 + IO_STREAM_MAX_META);
    free(jpg);
}

/* Lengths are judged before their bytes come: a chunk or segment past the bound is refused at
 * its header. */
static void test_declared_lengths(void **state)
{
    (void)state;
    char err[512] = "";
    size_t size, want;
    io_stream s;
    uint8_t *png = load("g8.png", 0, 0, &size);
    uint8_t head[41];
    memcpy(head, png, 33);
    memcpy(head + 33, "\x7f\xff\xff\xff" "tEXt", 8); /* 2 GiB of text */
    io_stream_init(&s, IO_FORMAT_PNG);
    assert_int_equal(io_stream_scan(&s, head, sizeof head, &want, err, sizeof err),
                     IO_STREAM_REFUSED);
    char msg[512];
    snprintf(msg, sizeof msg, "PNG: more than %zu bytes, what a %lld x %lld image can take "
             "(twice its raw rows and 64 MiB of other chunks)", s.limit, s.width, s.height);
    assert_string_equal(err, msg);
    /* Not a chunk (a length past 2^31 - 1, an unknown critical chunk): left to the decoder,
     * with the bytes up to the fault; an ancillary chunk of any name is read past. */
    memcpy(head + 33, "\x80\x00\x00\x00" "tEXt", 8);
    io_stream_init(&s, IO_FORMAT_PNG);
    assert_int_equal(io_stream_scan(&s, head, sizeof head, &want, err, sizeof err),
                     IO_STREAM_END);
    assert_int_equal(s.end, sizeof head);
    memcpy(head + 33, "\0\0\0\0\0\0\0\0", 8);
    io_stream_init(&s, IO_FORMAT_PNG);
    assert_int_equal(io_stream_scan(&s, head, sizeof head, &want, err, sizeof err),
                     IO_STREAM_END);
    assert_int_equal(s.end, sizeof head);
    memcpy(head + 33, "\0\0\0\0s\xbe\xb6\xab", 8);
    io_stream_init(&s, IO_FORMAT_PNG);
    assert_int_equal(io_stream_scan(&s, head, sizeof head, &want, err, sizeof err),
                     IO_STREAM_MORE);
    assert_int_equal(want, sizeof head + 12); /* its CRC, then the next chunk's header */
    free(png);
    /* A binary PGM's header that says 65536 x 65536 at 16 bits: an exact raster of 8 GiB,
     * asked for (the reader's own 2 GiB cap refuses it); a side past the limit: the decoder's. */
    static const uint8_t big[] = "P5 65536 65536 65535\n", wide[] = "P5 65537 1 255\n";
    io_stream_init(&s, IO_FORMAT_PNM);
    assert_int_equal(io_stream_scan(&s, big, sizeof big - 1, &want, err, sizeof err),
                     IO_STREAM_MORE);
    assert_true(want == sizeof big - 1 + 2ULL * 65536 * 65536 || sizeof(size_t) < 8);
    io_stream_init(&s, IO_FORMAT_PNM);
    assert_int_equal(io_stream_scan(&s, wide, sizeof wide - 1, &want, err, sizeof err),
                     IO_STREAM_END);
}

/* Endless streams after a valid header: refused at the bound, having taken at most it. */
static void test_endless_streams(void **state)
{
    (void)state;
    char err[512] = "";
    const size_t n = IO_STREAM_MAX_META + 2 * 65536;
    uint8_t *d = malloc(n);
    assert_non_null(d);
    /* A JPEG's APP1 segments before any SOF: 64 MiB of markers. */
    d[0] = 0xff;
    d[1] = 0xd8;
    for (size_t at = 2; at + 65537 <= n; at += 65537) {
        memcpy(d + at, "\xff\xe1\xff\xff", 4);
        memset(d + at + 4, 'x', 65533);
    }
    scanned r = scan(IO_FORMAT_JPEG, d, n, 65536, err, sizeof err);
    assert_int_equal(r.status, IO_STREAM_REFUSED);
    assert_string_equal(err, "JPEG: more than 67108864 bytes of markers before the image size "
                             "(SOF)");
    assert_true(r.most_taken <= IO_STREAM_MAX_META);
    /* A PGM comment that never ends. */
    memset(d, 'x', n);
    memcpy(d, "P5\n#", 4);
    r = scan(IO_FORMAT_PNM, d, n, 65536, err, sizeof err);
    assert_int_equal(r.status, IO_STREAM_REFUSED);
    assert_string_equal(err, "PGM: a header of more than 67108864 bytes");
    assert_true(r.most_taken <= IO_STREAM_MAX_META);
    /* A JPEG's entropy-coded data of zeros after a 64 x 64 SOF: 4 bytes a sample. */
    static const uint8_t sof[] = {0xff, 0xd8, 0xff, 0xc0, 0, 11, 8, 0, 64, 0, 64, 1, 1, 0x11, 0,
                                  0xff, 0xda, 0, 8, 1, 1, 0, 0, 63, 0};
    memset(d, 0, n);
    memcpy(d, sof, sizeof sof);
    r = scan(IO_FORMAT_JPEG, d, n, 65536, err, sizeof err);
    assert_int_equal(r.status, IO_STREAM_REFUSED);
    assert_string_equal(err, "JPEG: more than 67125248 bytes, what a 64 x 64 image of 1 "
                             "components can take (4 bytes a sample and 64 MiB of markers)");
    assert_true(r.most_taken <= 67125248);
    /* A text PGM whose samples never come. */
    memset(d, ' ', n);
    memcpy(d, "P2 16 16 255 ", 13);
    r = scan(IO_FORMAT_PNM, d, n, 65536, err, sizeof err);
    assert_int_equal(r.status, IO_STREAM_REFUSED);
    assert_string_equal(err, "PGM: more than 67597 bytes, what 16 x 16 text samples can take (8 "
                             "bytes a sample)");
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_end_where_their_image_does),
        cmocka_unit_test(test_bounds_from_the_header),
        cmocka_unit_test(test_declared_lengths),
        cmocka_unit_test(test_jpeg_segments_shorter_than_their_length),
        cmocka_unit_test(test_endless_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
