/*
 * codec.c - every format behind one table: detection by content, and the calls of codec.h
 * dispatched to each format's codec (bmp.h, png.h, jpeg.h, pnm.h) through it.
 */
#include "codec.h"

#include "jpeg.h"
#include "png.h"
#include "pnm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Each format's codec, adapted to one shape ------------------------------------------ */

static int is_png(const uint8_t *head, size_t n)
{
    static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    return n >= 8 && memcmp(head, png_sig, 8) == 0;
}

static int is_jpeg(const uint8_t *head, size_t n)
{
    return n >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff;
}

static int is_bmp(const uint8_t *head, size_t n)
{
    return n >= 2 && head[0] == 'B' && (head[1] == 'M' || head[1] == 'A');
}

static int is_pnm_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int is_pnm(const uint8_t *head, size_t n)
{
    return n >= 2 && head[0] == 'P' &&
           (head[1] == '2' || head[1] == '3' || head[1] == '5' || head[1] == '6') &&
           (n == 2 || is_pnm_space(head[2]) || head[2] == '#');
}

/* The BMP reader (bmp.h) knows no io_image: it gives 8-bit RGB whatever the file held
 * (palettes expanded, bitfields scaled to 0..255), in a malloc'd buffer that io_image_free can
 * free. Its RLE has its own bomb guard, so the ratio is not used. */
static int decode_bmp(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                      io_image *img, char *err, size_t err_size)
{
    char why[512] = "";
    bmp_image b;
    (void)max_pixels_per_byte;
    if (bmp_decode_limited(data, size, max_pixels, &b, why, sizeof why))
        return io_fail(err, err_size, "BMP: %s", why);
    img->width = b.width;
    img->height = b.height;
    img->channels = 3;
    img->depth = 8;
    img->maxval = 255;
    img->pixels = b.rgb;
    img->allocator = NULL;
    return 0;
}

static int probe_bmp(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                     io_header *h, char *err, size_t err_size)
{
    char why[512] = "";
    io_limits lim;
    int width, height;
    (void)max_pixels_per_byte;
    io_limits_default(&lim);
    lim.max_pixels = max_pixels;
    if (bmp_header_size(data, size, &lim, &width, &height, why, sizeof why))
        return io_fail(err, err_size, "BMP: %s", why);
    *h = (io_header){width, height, 3, 8, 255}; /* the BMP reader's RGB, whatever the file has */
    return 0;
}

static int encode_bmp(FILE *f, const io_image *img, int quality, const char *path, char *err,
                      size_t err_size)
{
    (void)quality;
    return bmp_write_stream(f, img->pixels, img->width, img->height,
                            img->channels == 1 ? 8 : 24, path, err, err_size);
}

static int encode_png(FILE *f, const io_image *img, int quality, const char *path, char *err,
                      size_t err_size)
{
    (void)quality;
    return png_encode(f, img, path, err, err_size);
}

/* PGM/PPM is not compressed: no bomb guard, so no ratio. */
static int decode_pnm(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                      io_image *img, char *err, size_t err_size)
{
    (void)max_pixels_per_byte;
    return pnm_decode(data, size, max_pixels, img, err, err_size);
}

static int probe_pnm(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                     io_header *h, char *err, size_t err_size)
{
    (void)max_pixels_per_byte;
    return pnm_probe(data, size, max_pixels, h, err, err_size);
}

static int encode_pnm(FILE *f, const io_image *img, int quality, const char *path, char *err,
                      size_t err_size)
{
    (void)quality;
    return pnm_encode(f, img, path, err, err_size);
}

/* ---- Each format row by row (rows.c), adapted to one shape -------------------------------- */

/* The bomb guard's ratio for the decoders from a caller's limits (0: lifted). */
static long ratio_of(const io_limits *lim)
{
    return lim->allow_high_ratio ? 0 : IO_MAX_PIXELS_PER_BYTE;
}

/* Each format's row calls take its own reader or writer, the table's a void *: these forward
 * the one to the other (the opening calls, which differ, are written out below). */
#define ROW_READER_CALLS(fmt, reader, row_type)                                          \
    static int fmt##_next_row(void *state, void *row, char *err, size_t err_size)        \
    {                                                                                    \
        return fmt##_rows_next((reader *)state, (row_type *)row, err, err_size);         \
    }                                                                                    \
    static void fmt##_close_rows(void *state)                                            \
    {                                                                                    \
        fmt##_rows_close((reader *)state);                                               \
    }
#define ROW_WRITER_CALLS(fmt, writer, row_type)                                          \
    static int fmt##_put_row(void *state, const void *row, char *err, size_t err_size)   \
    {                                                                                    \
        return fmt##_writer_row((writer *)state, (const row_type *)row, err, err_size);  \
    }                                                                                    \
    static int fmt##_end_rows(void *state, char *err, size_t err_size)                   \
    {                                                                                    \
        return fmt##_writer_end((writer *)state, err, err_size);                         \
    }                                                                                    \
    static void fmt##_free_rows(void *state)                                             \
    {                                                                                    \
        fmt##_writer_free((writer *)state);                                              \
    }

ROW_READER_CALLS(bmp, bmp_rows, uint8_t)
ROW_WRITER_CALLS(bmp, bmp_writer, uint8_t)
ROW_READER_CALLS(png, png_rows, void)
ROW_WRITER_CALLS(png, png_writer, void)
ROW_READER_CALLS(jpeg, jpeg_rows, void)
ROW_WRITER_CALLS(jpeg, jpeg_writer, uint8_t)
ROW_READER_CALLS(pnm, pnm_rows, void)
ROW_WRITER_CALLS(pnm, pnm_writer, void)

static int png_finish_rows(void *state, char *err, size_t err_size)
{
    return png_rows_finish(state, err, err_size);
}

static int jpeg_finish_rows(void *state, char *err, size_t err_size)
{
    return jpeg_rows_finish(state, err, err_size);
}

/* A BMP: its reader's own words, as the tool has always shown them (no "BMP: " before). */
static int bmp_open_rows(const uint8_t *data, size_t size, const io_limits *lim, int luma,
                         void **state, io_header *h, size_t *held, char *err, size_t err_size)
{
    bmp_rows *r = NULL;
    int width = 0, height = 0;
    const int rc = bmp_rows_open(data, size, lim, &r, &width, &height, err, err_size);
    (void)luma;
    if (rc < 0)
        return -1;
    *state = r;
    *h = (io_header){width, height, 3, 8, 255};
    *held = rc == 1 ? io_image_bytes(width, height, 3, 8) : 0;
    return rc;
}

/* An RLE BMP decoded whole with the caller's limits (its own bomb guard among them). */
static int bmp_decode_whole(const uint8_t *data, size_t size, const io_limits *lim,
                            io_image *img, char *err, size_t err_size)
{
    bmp_image b;
    if (bmp_decode_with(data, size, lim, &b, err, err_size))
        return -1;
    *img = (io_image){b.width, b.height, 3, 8, 255, b.rgb, NULL};
    return 0;
}

static int bmp_begin_rows(FILE *f, const io_image *shape, int quality, const char *path,
                          void **state, char *err, size_t err_size)
{
    bmp_writer *w = NULL;
    (void)quality;
    const int rc = bmp_writer_begin(f, shape->width, shape->height,
                                    shape->channels == 1 ? 8 : 24, path, &w, err, err_size);
    *state = w;
    return rc;
}

static int png_open_rows(const uint8_t *data, size_t size, const io_limits *lim, int luma,
                         void **state, io_header *h, size_t *held, char *err, size_t err_size)
{
    png_rows *r = NULL;
    (void)luma;
    const int rc = png_rows_open(data, size, (long)io_limits_max_pixels(lim), ratio_of(lim), &r,
                                 h, held, err, err_size);
    *state = r;
    return rc;
}

static int png_begin_rows(FILE *f, const io_image *shape, int quality, const char *path,
                          void **state, char *err, size_t err_size)
{
    png_writer *w = NULL;
    (void)quality;
    const int rc = png_writer_begin(f, shape->width, shape->height, shape->channels,
                                    shape->depth, path, &w, err, err_size);
    *state = w;
    return rc;
}

static int jpeg_open_rows(const uint8_t *data, size_t size, const io_limits *lim, int luma,
                          void **state, io_header *h, size_t *held, char *err, size_t err_size)
{
    jpeg_rows *r = NULL;
    const int rc = jpeg_rows_open(data, size, (long)io_limits_max_pixels(lim), ratio_of(lim),
                                  luma, &r, h, held, err, err_size);
    *state = r;
    return rc;
}

static int jpeg_begin_rows(FILE *f, const io_image *shape, int quality, const char *path,
                           void **state, char *err, size_t err_size)
{
    jpeg_writer *w = NULL;
    const int rc = jpeg_writer_begin(f, shape->width, shape->height, shape->channels, quality,
                                     path, &w, err, err_size);
    *state = w;
    return rc;
}

static int pnm_open_rows(const uint8_t *data, size_t size, const io_limits *lim, int luma,
                         void **state, io_header *h, size_t *held, char *err, size_t err_size)
{
    pnm_rows *r = NULL;
    (void)luma;
    *held = 0;
    const int rc = pnm_rows_open(data, size, (long)io_limits_max_pixels(lim), &r, h, err,
                                 err_size);
    *state = r;
    return rc;
}

static int pnm_begin_rows(FILE *f, const io_image *shape, int quality, const char *path,
                          void **state, char *err, size_t err_size)
{
    pnm_writer *w = NULL;
    (void)quality;
    const int rc = pnm_writer_begin(f, shape->width, shape->height, shape->channels,
                                    shape->depth, shape->maxval, path, &w, err, err_size);
    *state = w;
    return rc;
}

/* PGM/PPM and BMP: nothing after the raster is read (as io_decode reads none). */
static const io_row_reading bmp_reading = {bmp_open_rows, bmp_next_row, NULL, bmp_close_rows,
                                           bmp_decode_whole};
static const io_row_reading png_reading = {png_open_rows, png_next_row, png_finish_rows,
                                           png_close_rows, NULL};
static const io_row_reading jpeg_reading = {jpeg_open_rows, jpeg_next_row, jpeg_finish_rows,
                                            jpeg_close_rows, NULL};
static const io_row_reading pnm_reading = {pnm_open_rows, pnm_next_row, NULL, pnm_close_rows,
                                           NULL};
static const io_row_writing bmp_writing = {bmp_begin_rows, bmp_put_row, bmp_end_rows,
                                           bmp_free_rows, NULL};
static const io_row_writing png_writing = {png_begin_rows, png_put_row, png_end_rows,
                                           png_free_rows, png_writer_bytes};
static const io_row_writing jpeg_writing = {jpeg_begin_rows, jpeg_put_row, jpeg_end_rows,
                                            jpeg_free_rows, jpeg_writer_bytes};
static const io_row_writing pnm_writing = {pnm_begin_rows, pnm_put_row, pnm_end_rows,
                                           pnm_free_rows, NULL};

/* ---- The formats ------------------------------------------------------------------------ */

/* One format: how its first bytes look, its codec's calls (max_pixels already io_pixel_limit's,
 * the ratio 0 or more), its row reader and writer, its names and what it holds. decode_luma is
 * a decoder of the intensity alone, where the format has a cheaper one than the whole decode
 * (JPEG's luma), else NULL. Everything that differs between formats is here and in each
 * format's own file: a new format is an entry, its file, and its io_format. */
typedef struct {
    io_format format;
    const char *name;          /* for messages */
    const char *words;         /* what --format and an extension may call it, the first its
                                * name in usage messages, space-separated */
    const char *extension;     /* of an output of one channel the tool names (-O DIR) */
    const char *extension_rgb; /* of three channels */
    const char *kind, *kind_rgb; /* what an output of one and of three channels is called */
    int (*matches)(const uint8_t *head, size_t n);
    int (*probe)(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                 io_header *h, char *err, size_t err_size);
    int (*decode)(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                  io_image *img, char *err, size_t err_size);
    int (*decode_luma)(const uint8_t *data, size_t size, long max_pixels,
                       long max_pixels_per_byte, io_image *img, char *err, size_t err_size);
    int (*encode)(FILE *f, const io_image *img, int quality, const char *path, char *err,
                  size_t err_size);
    const io_row_reading *reading;
    const io_row_writing *writing;
    int only_8_bits; /* holds 8-bit samples of full scale only */
    int full_scale;  /* holds samples of its depth's full scale only (maxval 255 or 65535) */
    int compressed;  /* the decompression-bomb guard applies (codec.h) */
} io_codec;

static const io_codec codecs[] = {
    {IO_FORMAT_BMP, "BMP", "bmp", "bmp", "bmp", "BMP", "BMP", is_bmp, probe_bmp, decode_bmp,
     NULL, encode_bmp, &bmp_reading, &bmp_writing, 1, 1, 0},
    {IO_FORMAT_PNG, "PNG", "png", "png", "png", "PNG", "PNG", is_png, png_probe, png_decode,
     NULL, encode_png, &png_reading, &png_writing, 0, 1, 1},
    {IO_FORMAT_JPEG, "JPEG", "jpeg jpg", "jpg", "jpg", "JPEG", "JPEG", is_jpeg, jpeg_probe,
     jpeg_decode, jpeg_decode_luma, jpeg_encode, &jpeg_reading, &jpeg_writing, 1, 1, 1},
    {IO_FORMAT_PNM, "PNM", "pnm pgm ppm", "pgm", "ppm", "PGM", "PPM", is_pnm, probe_pnm,
     decode_pnm, NULL, encode_pnm, &pnm_reading, &pnm_writing, 0, 0, 0},
};

#define CODEC_COUNT (sizeof codecs / sizeof codecs[0])

/* The codec of a format, or NULL for a value that is none. */
static const io_codec *codec_of(io_format fmt)
{
    for (size_t i = 0; i < CODEC_COUNT; i++)
        if (codecs[i].format == fmt)
            return &codecs[i];
    return NULL;
}

/* The codec whose signature the first bytes carry, or NULL. */
static const io_codec *codec_of_head(const uint8_t *head, size_t n)
{
    for (size_t i = 0; head && i < CODEC_COUNT; i++)
        if (codecs[i].matches(head, n))
            return &codecs[i];
    return NULL;
}

/* ---- Detection, decoding, encoding ------------------------------------------------------ */

int io_detect(const uint8_t *head, size_t n, io_format *fmt)
{
    const io_codec *c = codec_of_head(head, n);
    if (!c || !fmt)
        return -1;
    *fmt = c->format;
    return 0;
}

/* "BMP, PNG, JPEG, PGM/PPM": the formats read, for messages. */
static void format_names(char *out, size_t size)
{
    size_t at = 0;
    out[0] = 0;
    for (size_t i = 0; i < CODEC_COUNT && at < size; i++) {
        const io_codec *c = &codecs[i];
        const int same = strcmp(c->kind, c->kind_rgb) == 0;
        const int n = snprintf(out + at, size - at, "%s%s%s%s", i ? ", " : "", c->kind,
                               same ? "" : "/", same ? "" : c->kind_rgb);
        at += n > 0 ? (size_t)n : 0;
    }
}

/* For a file io_detect does not know: say what it is when it is a common format we do not
 * read, so that the user knows to convert it rather than wonder whether it is damaged. */
static int unknown_format(const uint8_t *d, size_t n, char *err, size_t err_size)
{
    const char *what = NULL;
    char names[128];
    if (n == 0)
        return io_fail(err, err_size, "empty file");
    format_names(names, sizeof names);
    if (n >= 6 && (memcmp(d, "GIF87a", 6) == 0 || memcmp(d, "GIF89a", 6) == 0))
        what = "a GIF file";
    else if (n >= 4 && (memcmp(d, "II*\0", 4) == 0 || memcmp(d, "MM\0*", 4) == 0))
        what = "a TIFF file";
    else if (n >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0)
        what = "a WebP file";
    else if (n >= 2 && d[0] == 'P' && (d[1] == '1' || d[1] == '4'))
        what = "a PBM (bitmap) file";
    else if (n >= 2 && d[0] == 'P' && d[1] == '7')
        what = "a PAM file";
    if (what)
        return io_fail(err, err_size, "%s: not a format tiledconv reads (%s)", what, names);
    return io_fail(err, err_size, "not an image in a format tiledconv reads (%s)", names);
}

int io_identify(const uint8_t *head, size_t n, io_format *fmt, char *err, size_t err_size)
{
    if (!head || !fmt)
        return io_fail(err, err_size, "no data to identify");
    if (io_detect(head, n, fmt) == 0)
        return 0;
    return unknown_format(head, n, err, err_size);
}

/* The codec of data from its first bytes; NULL, with the reason in err, for a format that
 * tiledconv does not read. */
static const io_codec *codec_or_refuse(const uint8_t *data, size_t size, char *err,
                                       size_t err_size)
{
    const io_codec *c = codec_of_head(data, size);
    if (!c)
        unknown_format(data, size, err, err_size);
    return c;
}

/* The codecs' bomb guard: a negative limit is none (0). */
static long per_byte_limit(long max_pixels_per_byte)
{
    return max_pixels_per_byte < 0 ? 0 : max_pixels_per_byte;
}

int io_decode(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
              io_image *img, char *err, size_t err_size)
{
    if (!data || !img)
        return io_fail(err, err_size, "no data to decode");
    const io_codec *c = codec_or_refuse(data, size, err, err_size);
    return c ? c->decode(data, size, io_pixel_limit(max_pixels),
                         per_byte_limit(max_pixels_per_byte), img, err, err_size)
             : -1;
}

int io_decode_luma(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                   io_image *img, char *err, size_t err_size)
{
    const io_codec *c = data && img ? codec_of_head(data, size) : NULL;
    if (c && c->decode_luma)
        return c->decode_luma(data, size, io_pixel_limit(max_pixels),
                              per_byte_limit(max_pixels_per_byte), img, err, err_size);
    return io_decode(data, size, max_pixels, max_pixels_per_byte, img, err, err_size);
}

int io_decode_with(const io_allocator *a, int luma, const uint8_t *data, size_t size,
                   long max_pixels, long max_pixels_per_byte, io_image *img, char *err,
                   size_t err_size)
{
    io_pixels_use(a);
    const int rc = (luma ? io_decode_luma : io_decode)(data, size, max_pixels,
                                                         max_pixels_per_byte, img, err, err_size);
    io_pixels_use(NULL);
    return rc;
}

int io_probe(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
             io_header *h, char *err, size_t err_size)
{
    if (!data || !h)
        return io_fail(err, err_size, "no data to decode");
    const io_codec *c = codec_or_refuse(data, size, err, err_size);
    return c ? c->probe(data, size, io_pixel_limit(max_pixels),
                        per_byte_limit(max_pixels_per_byte), h, err, err_size)
             : -1;
}

int io_check_bomb(io_format fmt, long width, long height, size_t file_size, const io_limits *lim,
                  char *err, size_t err_size)
{
    const io_codec *c = codec_of(fmt);
    if (!c || !c->compressed || (lim && lim->allow_high_ratio))
        return 0;
    char why[384];
    if (io_check_ratio(c->name, width, height, file_size, IO_MAX_PIXELS_PER_BYTE, why,
                       sizeof why) == 0)
        return 0;
    if (lim && lim->ratio_hint)
        return io_fail(err, err_size, "%s (%s accepts it)", why, lim->ratio_hint);
    return io_fail(err, err_size, "%s", why);
}

/* BMP and JPEG hold 8-bit samples at full scale only, PNG its depth's full scale; say so
 * rather than scale silently. */
static int check_writable(const io_codec *c, int depth, int maxval, const char *path, char *err,
                          size_t err_size)
{
    const int full = depth == 16 ? 65535 : 255;
    if (c->only_8_bits && depth != 8)
        return io_fail(err, err_size, "%s: %s holds 8-bit samples only, not %d-bit", path,
                       c->name, depth);
    if ((c->only_8_bits || c->full_scale) && maxval != full)
        return io_fail(err, err_size, "%s: %s holds samples of full scale %d, not maxval %d",
                       path, c->name, full, maxval);
    return 0;
}

int io_check_writable(io_format fmt, int depth, int maxval, const char *path, char *err,
                      size_t err_size)
{
    const io_codec *c = codec_of(fmt);
    if (!c)
        return io_fail(err, err_size, "%s: internal error: format %d has no encoder", path,
                       (int)fmt);
    return check_writable(c, depth, maxval, path, err, err_size);
}

int io_encode(FILE *f, io_format fmt, const io_image *img, int quality, const char *path,
              char *err, size_t err_size)
{
    if (!path)
        path = "(output)";
    if (!f)
        return io_fail(err, err_size, "%s: no stream to write to", path);
    if (io_check_image(img, path, err, err_size))
        return -1;
    const io_codec *c = codec_of(fmt);
    if (!c)
        return io_fail(err, err_size, "%s: internal error: format %d has no encoder", path,
                       (int)fmt);
    if (check_writable(c, img->depth, img->maxval, path, err, err_size))
        return -1;
    return c->encode(f, img, quality, path, err, err_size);
}

/* ASCII case-insensitive equality: file names and flag values, not locale-dependent text. */
static int same_word(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

/* Whether word is one of the space-separated words of list, case-insensitive. */
static int among_words(const char *word, const char *list)
{
    char one[16];
    while (*list) {
        const size_t n = strcspn(list, " ");
        if (n < sizeof one) {
            memcpy(one, list, n);
            one[n] = 0;
            if (same_word(word, one))
                return 1;
        }
        list += n;
        list += *list == ' ';
    }
    return 0;
}

int io_format_from_word(const char *word, io_format *fmt)
{
    if (!word || !fmt)
        return -1;
    for (size_t i = 0; i < CODEC_COUNT; i++) {
        if (among_words(word, codecs[i].words)) {
            *fmt = codecs[i].format;
            return 0;
        }
    }
    return -1;
}

void io_format_list(char *out, size_t size)
{
    size_t at = 0;
    if (!out || size == 0)
        return;
    out[0] = 0;
    for (size_t i = 0; i < CODEC_COUNT && at < size; i++) {
        const char *w = codecs[i].words;
        const size_t first = strcspn(w, " ");
        const char *rest = w + first + (w[first] == ' ');
        int n = snprintf(out + at, size - at, "%s%.*s", i ? ", " : "", (int)first, w);
        at += n > 0 ? (size_t)n : 0;
        for (int k = 0; *rest && at < size; k++) {
            const size_t len = strcspn(rest, " ");
            n = snprintf(out + at, size - at, "%s%.*s", k ? ", " : " (", (int)len, rest);
            at += n > 0 ? (size_t)n : 0;
            rest += len + (rest[len] == ' ');
            if (!*rest && at < size)
                at += (size_t)snprintf(out + at, size - at, ")");
        }
    }
}

int io_format_from_name(const char *path_or_name, io_format *fmt)
{
    if (!path_or_name || !fmt)
        return -1;
    const char *base = strrchr(path_or_name, '/');
    base = base ? base + 1 : path_or_name;
    /* Leading dots belong to the name (".png" is a hidden file without an extension), as in
     * Python's os.path.splitext. */
    while (*base == '.')
        base++;
    const char *dot = strrchr(base, '.');
    if (!dot) {
        *fmt = IO_FORMAT_BMP;
        return 0;
    }
    return io_format_from_word(dot + 1, fmt);
}

const char *io_format_name(io_format fmt)
{
    const io_codec *c = codec_of(fmt);
    return c ? c->name : "?";
}

const char *io_format_extension(io_format fmt, int channels)
{
    const io_codec *c = codec_of(fmt);
    return !c ? "" : channels == 1 ? c->extension : c->extension_rgb;
}

const char *io_format_kind(io_format fmt, int channels)
{
    const io_codec *c = codec_of(fmt);
    return !c ? "?" : channels == 1 ? c->kind : c->kind_rgb;
}

int io_format_holds_16_bits(io_format fmt)
{
    const io_codec *c = codec_of(fmt);
    return c && !c->only_8_bits;
}

const io_row_reading *io_row_reading_of(io_format fmt)
{
    const io_codec *c = codec_of(fmt);
    return c ? c->reading : NULL;
}

const io_row_writing *io_row_writing_of(io_format fmt)
{
    const io_codec *c = codec_of(fmt);
    return c ? c->writing : NULL;
}
