/* test_jpeg.c - JPEG through TurboJPEG (src/io/jpeg.c) via the codec API. Decoding must give
 * exactly djpeg's pixels (libjpeg-turbo-progs; the test fails, not skips, without it): on the
 * fixtures and on every variant cjpeg makes of a test picture; the luma alone (a gray job)
 * exactly djpeg -grayscale's. Encoding must give exactly cjpeg's file for the same quality,
 * sampling (4:2:0 by default, 4:2:2, 4:4:4) and the accurate DCT. Hostile files:
 * truncation at and inside every segment, huge SOF sizes, a scan bomb, CMYK/YCCK. */
#include "codec_test_util.h"

#include "jpeg.h"

#include <turbojpeg.h>

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/tiledconv-jpeg.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir))
        return -1;
    if (system("djpeg -version >/dev/null 2>&1 && cjpeg -version >/dev/null 2>&1") != 0) {
        fprintf(stderr, "test_jpeg: djpeg and cjpeg are needed: install libjpeg-turbo-progs "
                        "(make deps-test)\n");
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    char cmd[512];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void write_whole(const char *path, const uint8_t *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* A command's whole standard output; asserts that it exits 0. */
static uint8_t *run_output(const char *cmd, size_t *size)
{
    FILE *p = popen(cmd, "r");
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *buf = malloc(cap);
    assert_non_null(p);
    assert_non_null(buf);
    while ((got = fread(buf + n, 1, cap - n, p)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    int status = pclose(p);
    if (status != 0)
        fail_msg("'%s' failed (status %d)", cmd, status);
    *size = n;
    return buf;
}

/* Our pixels of the JPEG at path equal djpeg's (default settings, PNM output) byte for byte. */
static void expect_same_as_djpeg(const char *path)
{
    char cmd[1024];
    size_t size, ref_size;
    uint8_t *data = read_whole(path, &size);
    io_image ours, ref;
    decode_ok(data, size, &ours);
    snprintf(cmd, sizeof cmd, "djpeg -pnm '%s'", path);
    uint8_t *pnm = run_output(cmd, &ref_size);
    decode_ok(pnm, ref_size, &ref);
    assert_int_equal(ours.width, ref.width);
    assert_int_equal(ours.height, ref.height);
    assert_int_equal(ours.channels, ref.channels);
    assert_int_equal(ours.depth, 8);
    assert_int_equal(ref.depth, 8);
    size_t n = (size_t)ours.width * ours.height * ours.channels;
    for (size_t i = 0; i < n; i++)
        if (px(&ours, i) != px(&ref, i))
            fail_msg("%s: sample %lu is %u, djpeg gives %u", path, (unsigned long)i,
                     px(&ours, i), px(&ref, i));
    io_image_free(&ours);
    io_image_free(&ref);
    free(pnm);
    free(data);
}

/* Our luma of the JPEG at path (io_decode_luma, a gray job's decode) equals djpeg -grayscale's
 * byte for byte: the file's Y channel, without a round trip through RGB. */
static void expect_luma_as_djpeg(const char *path)
{
    char cmd[1024], err[512];
    size_t size, ref_size;
    uint8_t *data = read_whole(path, &size);
    io_image ours, ref;
    if (io_decode_luma(data, size, 0, IO_MAX_PIXELS_PER_BYTE, &ours, err, sizeof err))
        fail_msg("%s: %s", path, err);
    snprintf(cmd, sizeof cmd, "djpeg -grayscale -pnm '%s'", path);
    uint8_t *pgm = run_output(cmd, &ref_size);
    decode_ok(pgm, ref_size, &ref);
    assert_int_equal(ours.channels, 1);
    assert_int_equal(ref.channels, 1);
    assert_int_equal(ours.width, ref.width);
    assert_int_equal(ours.height, ref.height);
    assert_memory_equal(ours.pixels, ref.pixels, (size_t)ours.width * ours.height);
    io_image_free(&ours);
    io_image_free(&ref);
    free(pgm);
    free(data);
}

static void test_fixtures_match_djpeg(void **state)
{
    static const char *names[] = {"base420.jpg", "base444.jpg", "base422.jpg", "base440.jpg",
                                  "prog420.jpg", "arith420.jpg", "restart444.jpg",
                                  "gray-prog.jpg"};
    (void)state;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/data/formats/%s", test_root(), names[i]);
        expect_same_as_djpeg(path);
        expect_luma_as_djpeg(path);
    }
}

/* The test picture: ramps, a checker and noise, with sides that are no multiple of any MCU. */
static io_image picture(int channels)
{
    io_image img = {97, 61, channels, 8, 255, NULL, NULL};
    uint8_t *p = malloc(97 * 61 * 3);
    assert_non_null(p);
    for (unsigned y = 0; y < 61; y++)
        for (unsigned x = 0; x < 97; x++)
            for (unsigned c = 0; c < (unsigned)channels; c++) {
                unsigned v = c == 0 ? x * 255u / 96u : c == 1 ? y * 255u / 60u
                                                              : ((x / 6 + y / 6) % 2) * 200u;
                v = (v + ((x * 7919u + y * 104729u + c * 13u) >> 4) % 23u) % 256u;
                p[(y * 97 + x) * (unsigned)channels + c] = (uint8_t)v;
            }
    img.pixels = p;
    return img;
}

/* Writes the test picture as PPM (and PGM) into the scratch folder for cjpeg. */
static void write_sources(void)
{
    char path[512];
    for (int channels = 1; channels <= 3; channels += 2) {
        io_image img = picture(channels);
        uint8_t *file;
        size_t size;
        encode_mem(IO_FORMAT_PNM, &img, 0, &file, &size);
        snprintf(path, sizeof path, "%s/src.%s", tmpdir, channels == 1 ? "pgm" : "ppm");
        write_whole(path, file, size);
        free(file);
        free(img.pixels);
    }
}

/* Every kind of JPEG cjpeg makes: each sampling TurboJPEG names, progressive, arithmetic,
 * restart markers, gray, RGB without YCbCr, extreme qualities, optimised Huffman tables. */
static void test_variants_match_djpeg(void **state)
{
    static const char *variants[] = {
        "-sample 2x2", "-sample 1x1", "-sample 2x1", "-sample 1x2", "-sample 4x1",
        "-progressive", "-progressive -sample 1x1", "-arithmetic", "-arithmetic -progressive",
        "-grayscale", "-grayscale -progressive", "-restart 1", "-quality 100", "-quality 5 -baseline",
        "-rgb", "-optimize -sample 2x1", "-smooth 30",
    };
    char cmd[1024], out[512];
    (void)state;
    write_sources();
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        snprintf(out, sizeof out, "%s/v%lu.jpg", tmpdir, (unsigned long)i);
        snprintf(cmd, sizeof cmd, "cjpeg %s -outfile '%s' '%s/src.ppm'", variants[i], out, tmpdir);
        assert_int_equal(system(cmd), 0);
        expect_same_as_djpeg(out);
        expect_luma_as_djpeg(out);
    }
    snprintf(out, sizeof out, "%s/gray.jpg", tmpdir);
    snprintf(cmd, sizeof cmd, "cjpeg -outfile '%s' '%s/src.pgm'", out, tmpdir);
    assert_int_equal(system(cmd), 0);
    expect_same_as_djpeg(out);
}

/* Our encoder writes what cjpeg writes for each sampling (colour: 4:2:0 by default, 4:2:2 and
 * 4:4:4 when set) or gray, the accurate integer DCT, the same quality: byte for byte, at
 * qualities where TurboJPEG's own default would have used the fast DCT (below 96). Quality 0 is
 * the default, 95. And the files decode as djpeg says. */
static void test_encoder_matches_cjpeg(void **state)
{
    static const int qualities[] = {50, 75, 95, 100};
    static const struct {
        io_jpeg_sampling sampling;
        const char *cjpeg;
    } samplings[] = {{IO_JPEG_420, ""}, {IO_JPEG_422, "-sample 2x1"}, {IO_JPEG_444, "-sample 1x1"}};
    char cmd[1024], path[512];
    (void)state;
    write_sources();
    for (int channels = 1; channels <= 3; channels += 2)
        for (size_t s = 0; s < (channels == 3 ? 3u : 1u); s++) {
            io_image img = picture(channels);
            io_set_jpeg_sampling(samplings[s].sampling);
            for (size_t k = 0; k < 4; k++) {
                uint8_t *ours, *theirs;
                size_t n_ours, n_theirs;
                encode_mem(IO_FORMAT_JPEG, &img, qualities[k], &ours, &n_ours);
                snprintf(cmd, sizeof cmd, "cjpeg -quality %d %s -dct int '%s/src.%s'",
                         qualities[k], channels == 3 ? samplings[s].cjpeg : "", tmpdir,
                         channels == 3 ? "ppm" : "pgm");
                theirs = run_output(cmd, &n_theirs);
                assert_int_equal(n_ours, n_theirs);
                assert_memory_equal(ours, theirs, n_ours);
                snprintf(path, sizeof path, "%s/ours.jpg", tmpdir);
                write_whole(path, ours, n_ours);
                expect_same_as_djpeg(path);
                if (qualities[k] == 95) { /* quality 0: the default */
                    uint8_t *dflt;
                    size_t n_dflt;
                    encode_mem(IO_FORMAT_JPEG, &img, 0, &dflt, &n_dflt);
                    assert_int_equal(n_dflt, n_ours);
                    assert_memory_equal(dflt, ours, n_ours);
                    free(dflt);
                }
                free(ours);
                free(theirs);
            }
            free(img.pixels);
        }
    io_set_jpeg_sampling(IO_JPEG_420);
}

static void test_encoder_refuses(void **state)
{
    io_image img = picture(3);
    char err[256];
    (void)state;
    assert_int_equal(expect_encode_refused(IO_FORMAT_JPEG, &img, 101, "q.jpg", "JPEG quality 101",
                                           err, sizeof err),
                     0);
    assert_string_equal(err, "q.jpg: JPEG quality 101 is out of range (1..100)");
    free(img.pixels);
}

/* A sampling TurboJPEG 2.1 cannot name: refused in one line that says so (or, with a newer
 * TurboJPEG that reads it, decoded exactly as djpeg does). */
static void test_unusual_sampling(void **state)
{
    char cmd[1024], out[512], err[512] = "";
    io_image img;
    size_t size;
    (void)state;
    write_sources();
    snprintf(out, sizeof out, "%s/odd.jpg", tmpdir);
    snprintf(cmd, sizeof cmd, "cjpeg -sample 2x2,2x1,1x1 -outfile '%s' '%s/src.ppm'", out, tmpdir);
    assert_int_equal(system(cmd), 0);
    uint8_t *data = read_whole(out, &size);
    if (io_decode(data, size, 0, IO_MAX_PIXELS_PER_BYTE, &img, err, sizeof err) == 0) {
        io_image_free(&img);
        expect_same_as_djpeg(out);
    } else {
        expect_refused(data, size, "JPEG: Could not determine subsampling type");
        assert_non_null(strstr(err, "4:2:0"));
    }
    free(data);
}

/* TurboJPEG makes a YCCK JPEG from CMYK pixels; we read gray and colour only. */
static void test_ycck_refused(void **state)
{
    uint8_t cmyk[16 * 8 * 4];
    unsigned char *jpeg = NULL;
    unsigned long size = 0;
    tjhandle h = tjInitCompress();
    (void)state;
    assert_non_null(h);
    memset(cmyk, 90, sizeof cmyk);
    assert_int_equal(tjCompress2(h, cmyk, 16, 0, 8, TJPF_CMYK, &jpeg, &size, TJSAMP_444, 90, 0),
                     0);
    expect_refused(jpeg, size, "JPEG: YCCK JPEGs are not supported");
    tjFree(jpeg);
    assert_int_equal(tjDestroy(h), 0);
}

/* The offsets where each marker segment starts, up to the first SOS; then *sos is where the
 * entropy-coded data of that scan starts. */
static size_t segment_offsets(const uint8_t *d, size_t size, size_t *offs, size_t max,
                              size_t *sos)
{
    size_t n = 0, at = 2; /* after SOI */
    while (at + 4 <= size && n < max) {
        assert_int_equal(d[at], 0xff);
        offs[n++] = at;
        size_t len = (size_t)d[at + 2] << 8 | d[at + 3];
        if (d[at + 1] == 0xda) {
            *sos = at + 2 + len;
            return n;
        }
        at += 2 + len;
    }
    fail_msg("no SOS marker");
    return 0;
}

/* Fixture `name` in memory (*size bytes) and its segment_offsets: *n offsets (at most 64), *sos. */
static uint8_t *read_segments(const char *name, size_t *size, size_t offs[64], size_t *n,
                              size_t *sos)
{
    uint8_t *data = read_fixture(name, size);
    *n = segment_offsets(data, *size, offs, 64, sos);
    return data;
}

/* Cut at every segment, inside every segment, all through the scans, and just before EOI:
 * always refused (libjpeg's "premature end" is a warning, which we stop on). */
static void test_truncated_everywhere(void **state)
{
    static const char *names[] = {"base420.jpg", "prog420.jpg", "arith420.jpg",
                                  "restart444.jpg"};
    (void)state;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t size, offs[64], n, sos = 0;
        uint8_t *data = read_segments(names[k], &size, offs, &n, &sos);
        for (size_t cut = 0; cut < 4; cut++)
            expect_refused(data, cut, NULL);
        for (size_t s = 0; s < n; s++) {
            expect_refused(data, offs[s], NULL);
            expect_refused(data, offs[s] + 3, NULL);
            size_t end = s + 1 < n ? offs[s + 1] : sos;
            expect_refused(data, (offs[s] + end) / 2, NULL);
        }
        for (size_t cut = sos; cut < size; cut += 1 + (size - sos) / 40)
            expect_refused(data, cut, NULL);
        expect_refused(data, size - 2, NULL); /* every scan there, EOI missing */
        expect_refused(data, size - 1, NULL);
        free(data);
    }
}

/* A hostile SOF: refused from the header, before allocating; the pixel limit and then the bomb
 * guard (16000 x 16000 from a kilobyte). */
static void test_huge_sof(void **state)
{
    size_t size, offs[64], n, sos = 0, sof = 0;
    (void)state;
    uint8_t *data = read_segments("base420.jpg", &size, offs, &n, &sos);
    for (size_t s = 0; s < n; s++)
        if (data[offs[s] + 1] == 0xc0)
            sof = offs[s];
    assert_true(sof > 0);
    uint8_t *hw = data + sof + 5; /* height, then width, 16 bits each, big-endian */
    hw[0] = 0xfd, hw[1] = 0xe8, hw[2] = 0xfd, hw[3] = 0xe8; /* 65000 x 65000 */
    expect_refused_bounded(data, size, "JPEG: 65000 x 65000 is 4225000000 pixels, more than");
    hw[0] = 0x3e, hw[1] = 0x80, hw[2] = 0x3e, hw[3] = 0x80; /* 16000 x 16000 */
    expect_refused_bounded(data, size, "is refused as a likely decompression bomb");
    hw[0] = 0, hw[1] = 0; /* height 0 (a DNL marker would follow): libjpeg refuses */
    expect_refused_bounded(data, size, "JPEG: ");
    free(data);
}

/* A progressive gray 8 x 8 JPEG made by hand, all coefficients zero (every pixel 128), with
 * `scans` scans of a valid progression (each (coefficient, bit) once): the DC scan and its 10
 * refinements, then for each AC coefficient a first scan and 10 refinements, 704 in all.
 * Huffman tables of one symbol (code '0') make each scan's data one byte, 0x7f. */
static uint8_t *scan_bomb(int scans, size_t *size)
{
    uint8_t *p = malloc(256 + (size_t)scans * 11), *q = p; /* 11 bytes per scan */
    static const uint8_t sof2[] = {0xff, 0xc2, 0, 11, 8, 0, 8, 0, 8, 1, 1, 0x11, 0};
    assert_non_null(p);
    *q++ = 0xff, *q++ = 0xd8;
    *q++ = 0xff, *q++ = 0xdb, *q++ = 0, *q++ = 67, *q++ = 0;
    memset(q, 1, 64), q += 64;
    memcpy(q, sof2, sizeof sof2), q += sizeof sof2;
    /* DHT: a DC table (class 0) and an AC table (class 1), id 0, each with one code of length
     * 1 for symbol 0 (DC: difference 0; AC: end of block). */
    *q++ = 0xff, *q++ = 0xc4, *q++ = 0, *q++ = 2 + 2 * (1 + 16 + 1);
    for (int cls = 0; cls < 2; cls++) {
        *q++ = (uint8_t)(cls << 4);
        *q++ = 1;
        memset(q, 0, 15), q += 15;
        *q++ = 0;
    }
    /* For coefficient k: the first scan at bit 10 (Ah 0, Al 10), then one refinement per bit,
     * Ah a and Al a - 1 for a = 10 down to 1. */
    for (int made = 0, k = 0; k < 64 && made < scans; k++) {
        for (int a = 11; a >= 1 && made < scans; a--, made++) {
            int ah = a == 11 ? 0 : a, al = a == 11 ? 10 : a - 1;
            uint8_t sos[] = {0xff, 0xda, 0, 8, 1, 1, 0x00, (uint8_t)k, (uint8_t)k,
                             (uint8_t)(ah << 4 | al), 0x7f};
            memcpy(q, sos, sizeof sos), q += sizeof sos;
        }
    }
    *q++ = 0xff, *q++ = 0xd9;
    *size = (size_t)(q - p);
    return p;
}

/* TJFLAG_LIMITSCANS: 704 valid scans are refused (djpeg would decode them); 490 are read,
 * and give djpeg's pixels. */
static void test_scan_limit(void **state)
{
    char path[512];
    size_t size;
    io_image img;
    (void)state;
    uint8_t *bomb = scan_bomb(704, &size);
    snprintf(path, sizeof path, "%s/scans704.jpg", tmpdir);
    write_whole(path, bomb, size);
    expect_refused(bomb, size, "more than 500 scans");
    free(bomb);

    bomb = scan_bomb(490, &size);
    snprintf(path, sizeof path, "%s/scans490.jpg", tmpdir);
    write_whole(path, bomb, size);
    decode_ok(bomb, size, &img);
    assert_int_equal(img.width, 8);
    assert_int_equal(img.channels, 1);
    for (size_t i = 0; i < 64; i++)
        assert_int_equal(px(&img, i), 128);
    io_image_free(&img);
    expect_same_as_djpeg(path);
    free(bomb);
}

/* An abbreviated stream of tables only: TurboJPEG says success with no frame; we refuse. */
static void test_tables_only(void **state)
{
    size_t size, offs[64], n, sos = 0, n_out = 0;
    (void)state;
    uint8_t *data = read_segments("base420.jpg", &size, offs, &n, &sos);
    uint8_t *t = malloc(size);
    assert_non_null(t);
    t[n_out++] = 0xff, t[n_out++] = 0xd8;
    for (size_t s = 0; s < n; s++) {
        uint8_t m = data[offs[s] + 1];
        if (m == 0xdb || m == 0xc4) { /* DQT, DHT */
            size_t len = 2 + ((size_t)data[offs[s] + 2] << 8 | data[offs[s] + 3]);
            memcpy(t + n_out, data + offs[s], len);
            n_out += len;
        }
    }
    t[n_out++] = 0xff, t[n_out++] = 0xd9;
    expect_refused(t, n_out, "JPEG: no image in the file (tables only)");
    free(t);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_match_djpeg),
        cmocka_unit_test(test_variants_match_djpeg),
        cmocka_unit_test(test_encoder_matches_cjpeg),
        cmocka_unit_test(test_encoder_refuses),
        cmocka_unit_test(test_unusual_sampling),
        cmocka_unit_test(test_ycck_refused),
        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_huge_sof),
        cmocka_unit_test(test_scan_limit),
        cmocka_unit_test(test_tables_only),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
