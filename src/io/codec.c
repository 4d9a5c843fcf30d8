/*
 * codec.c - detection by content, dispatch to the codecs, and the checks they share.
 */
#include "codec.h"

#include "codec_impl.h"
#include "jpeg.h"
#include "png.h"
#include "pnm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int io_fail(char *err, size_t err_size, const char *fmt, ...)
{
    if (err && err_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

long io_pixel_limit(long max_pixels)
{
    if (max_pixels <= 0)
        return IO_MAX_PIXELS;
    return max_pixels > IO_HARD_MAX_PIXELS ? (long)IO_HARD_MAX_PIXELS : max_pixels;
}

int io_check_size(const char *what, long width, long height, long max_pixels, char *err,
                  size_t err_size)
{
    long limit = io_pixel_limit(max_pixels);
    if (width < 1 || height < 1)
        return io_fail(err, err_size, "%s: no pixels (%ld x %ld)", what, width, height);
    if (width > IO_MAX_SIDE || height > IO_MAX_SIDE)
        return io_fail(err, err_size, "%s: %ld x %ld is larger than %d on a side", what, width,
                       height, IO_MAX_SIDE);
    /* Both sides are at most 2^16, so the product fits in 64 bits whatever long is. */
    long long pixels = (long long)width * height;
    if (pixels > limit)
        return io_fail(err, err_size, "%s: %ld x %ld is %lld pixels, more than the limit of %ld",
                       what, width, height, pixels, limit);
    return 0;
}

int io_check_ratio(const char *what, long width, long height, size_t file_size,
                   long max_pixels_per_byte, char *err, size_t err_size)
{
    /* In floating point, so that no product with a size_t can overflow; the sides are checked
     * (at most 2^16 each), so the pixel count is exact in a double. */
    double pixels = (double)width * (double)height;
    if (max_pixels_per_byte <= 0 || pixels <= (double)IO_BOMB_FLOOR_PIXELS ||
        pixels <= (double)max_pixels_per_byte * (double)file_size)
        return 0;
    return io_fail(err, err_size,
                   "%s: %ld x %ld pixels from a file of %lu bytes (%.0f pixels per byte, more "
                   "than %ld) is refused as a likely decompression bomb",
                   what, width, height, (unsigned long)file_size,
                   pixels / (double)(file_size ? file_size : 1), max_pixels_per_byte);
}

size_t io_image_bytes(long width, long height, int channels, int depth)
{
    if (width < 1 || height < 1 || channels < 1 || (depth != 8 && depth != 16))
        return 0;
    size_t sample = depth == 16 ? 2 : 1;
    size_t per_row = (size_t)channels * sample;
    if ((size_t)width > SIZE_MAX / per_row)
        return 0;
    per_row *= (size_t)width;
    if ((size_t)height > SIZE_MAX / per_row)
        return 0;
    return per_row * (size_t)height;
}

int io_check_image(const io_image *img, const char *path, char *err, size_t err_size)
{
    if (!img || !img->pixels || img->width < 1 || img->height < 1)
        return io_fail(err, err_size, "%s: no image to write", path);
    if (img->channels != 1 && img->channels != 3)
        return io_fail(err, err_size, "%s: cannot write an image of %d channels (1 or 3)", path,
                       img->channels);
    if (img->depth != 8 && img->depth != 16)
        return io_fail(err, err_size, "%s: cannot write %d-bit samples (8 or 16)", path,
                       img->depth);
    if (img->maxval < 1 || img->maxval > (img->depth == 8 ? 255 : 65535))
        return io_fail(err, err_size, "%s: maxval %d does not fit %d-bit samples", path,
                       img->maxval, img->depth);
    if (io_image_bytes(img->width, img->height, img->channels, img->depth) == 0)
        return io_fail(err, err_size, "%s: %d x %d image too large for this machine", path,
                       img->width, img->height);
    return 0;
}

static int is_pnm_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int io_detect(const uint8_t *head, size_t n, io_format *fmt)
{
    static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    io_format f;

    if (!head || !fmt)
        return -1;
    if (n >= 8 && memcmp(head, png_sig, 8) == 0)
        f = IO_FORMAT_PNG;
    else if (n >= 3 && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff)
        f = IO_FORMAT_JPEG;
    else if (n >= 2 && head[0] == 'B' && (head[1] == 'M' || head[1] == 'A'))
        f = IO_FORMAT_BMP;
    else if (n >= 2 && head[0] == 'P' &&
             (head[1] == '2' || head[1] == '3' || head[1] == '5' || head[1] == '6') &&
             (n == 2 || is_pnm_space(head[2]) || head[2] == '#'))
        f = IO_FORMAT_PNM;
    else
        return -1;
    *fmt = f;
    return 0;
}

/* For a file io_detect does not know: say what it is when it is a common format we do not
 * read, so that the user knows to convert it rather than wonder whether it is damaged. */
static int unknown_format(const uint8_t *d, size_t n, char *err, size_t err_size)
{
    const char *what = NULL;
    if (n == 0)
        return io_fail(err, err_size, "empty file");
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
        return io_fail(err, err_size, "%s: not a format tiledconv reads (BMP, PNG, JPEG, PGM/PPM)",
                       what);
    return io_fail(err, err_size, "not an image in a format tiledconv reads (BMP, PNG, JPEG, "
                                  "PGM/PPM)");
}

int io_identify(const uint8_t *head, size_t n, io_format *fmt, char *err, size_t err_size)
{
    if (!head || !fmt)
        return io_fail(err, err_size, "no data to identify");
    if (io_detect(head, n, fmt) == 0)
        return 0;
    return unknown_format(head, n, err, err_size);
}

static int decode_bmp(const uint8_t *data, size_t size, long max_pixels, io_image *img,
                      char *err, size_t err_size)
{
    char why[512] = "";
    bmp_image b;
    if (bmp_decode_limited(data, size, max_pixels, &b, why, sizeof why))
        return io_fail(err, err_size, "BMP: %s", why);
    /* The BMP reader gives 8-bit RGB whatever the file held (palettes expanded, bitfields
     * scaled to 0..255), in a malloc'd buffer that io_image_free can free. */
    img->width = b.width;
    img->height = b.height;
    img->channels = 3;
    img->depth = 8;
    img->maxval = 255;
    img->pixels = b.rgb;
    return 0;
}

int io_decode(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
              io_image *img, char *err, size_t err_size)
{
    io_format fmt;
    if (!data || !img)
        return io_fail(err, err_size, "no data to decode");
    if (io_detect(data, size, &fmt))
        return unknown_format(data, size, err, err_size);
    max_pixels = io_pixel_limit(max_pixels);
    if (max_pixels_per_byte < 0)
        max_pixels_per_byte = 0;
    switch (fmt) {
    case IO_FORMAT_BMP:
        return decode_bmp(data, size, max_pixels, img, err, err_size);
    case IO_FORMAT_PNG:
        return png_decode(data, size, max_pixels, max_pixels_per_byte, img, err, err_size);
    case IO_FORMAT_JPEG:
        return jpeg_decode(data, size, max_pixels, max_pixels_per_byte, img, err, err_size);
    case IO_FORMAT_PNM:
        return pnm_decode(data, size, max_pixels, img, err, err_size);
    }
    return io_fail(err, err_size, "internal error: format %d has no decoder", (int)fmt);
}

static int probe_bmp(const uint8_t *data, size_t size, long max_pixels, io_header *h,
                     char *err, size_t err_size)
{
    char why[512] = "";
    io_limits lim;
    int width, height;
    io_limits_default(&lim);
    lim.max_pixels = max_pixels;
    if (bmp_header_size(data, size, &lim, &width, &height, why, sizeof why))
        return io_fail(err, err_size, "BMP: %s", why);
    *h = (io_header){width, height, 3, 8, 255}; /* the BMP reader's RGB, whatever the file has */
    return 0;
}

int io_decode_luma(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                   io_image *img, char *err, size_t err_size)
{
    io_format fmt;
    if (data && img && io_detect(data, size, &fmt) == 0 && fmt == IO_FORMAT_JPEG)
        return jpeg_decode_luma(data, size, io_pixel_limit(max_pixels),
                                max_pixels_per_byte < 0 ? 0 : max_pixels_per_byte, img, err,
                                err_size);
    return io_decode(data, size, max_pixels, max_pixels_per_byte, img, err, err_size);
}

int io_probe(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
             io_header *h, char *err, size_t err_size)
{
    io_format fmt;
    if (!data || !h)
        return io_fail(err, err_size, "no data to decode");
    if (io_detect(data, size, &fmt))
        return unknown_format(data, size, err, err_size);
    max_pixels = io_pixel_limit(max_pixels);
    if (max_pixels_per_byte < 0)
        max_pixels_per_byte = 0;
    switch (fmt) {
    case IO_FORMAT_BMP:
        return probe_bmp(data, size, max_pixels, h, err, err_size);
    case IO_FORMAT_PNG:
        return png_probe(data, size, max_pixels, max_pixels_per_byte, h, err, err_size);
    case IO_FORMAT_JPEG:
        return jpeg_probe(data, size, max_pixels, max_pixels_per_byte, h, err, err_size);
    case IO_FORMAT_PNM:
        return pnm_probe(data, size, max_pixels, h, err, err_size);
    }
    return io_fail(err, err_size, "internal error: format %d has no decoder", (int)fmt);
}

int io_check_bomb(io_format fmt, long width, long height, size_t file_size, const io_limits *lim,
                  char *err, size_t err_size)
{
    if ((fmt != IO_FORMAT_PNG && fmt != IO_FORMAT_JPEG) || (lim && lim->allow_high_ratio))
        return 0;
    char why[384];
    if (io_check_ratio(io_format_name(fmt), width, height, file_size, IO_MAX_PIXELS_PER_BYTE,
                       why, sizeof why) == 0)
        return 0;
    if (lim && lim->ratio_hint)
        return io_fail(err, err_size, "%s (%s accepts it)", why, lim->ratio_hint);
    return io_fail(err, err_size, "%s", why);
}

void io_image_free(io_image *img)
{
    if (!img)
        return;
    free(img->pixels);
    img->pixels = NULL;
}

/* BMP and JPEG hold 8-bit samples at full scale only; say so rather than scale silently. */
static int check_full_scale_8(const char *name, const io_image *img, const char *path,
                              char *err, size_t err_size)
{
    if (img->depth != 8)
        return io_fail(err, err_size, "%s: %s holds 8-bit samples only, not %d-bit", path, name,
                       img->depth);
    if (img->maxval != 255)
        return io_fail(err, err_size, "%s: %s holds samples of full scale 255, not maxval %d",
                       path, name, img->maxval);
    return 0;
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
    switch (fmt) {
    case IO_FORMAT_BMP:
        if (check_full_scale_8("BMP", img, path, err, err_size))
            return -1;
        return bmp_write_stream(f, img->pixels, img->width, img->height,
                                img->channels == 1 ? 8 : 24, path, err, err_size);
    case IO_FORMAT_PNG:
        return png_encode(f, img, path, err, err_size);
    case IO_FORMAT_JPEG:
        if (check_full_scale_8("JPEG", img, path, err, err_size))
            return -1;
        return jpeg_encode(f, img, quality, path, err, err_size);
    case IO_FORMAT_PNM:
        return pnm_encode(f, img, path, err, err_size);
    }
    return io_fail(err, err_size, "%s: internal error: format %d has no encoder", path, (int)fmt);
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

int io_format_from_word(const char *word, io_format *fmt)
{
    static const struct {
        const char *word;
        io_format fmt;
    } words[] = {
        {"bmp", IO_FORMAT_BMP}, {"png", IO_FORMAT_PNG}, {"jpeg", IO_FORMAT_JPEG},
        {"jpg", IO_FORMAT_JPEG}, {"pnm", IO_FORMAT_PNM}, {"pgm", IO_FORMAT_PNM},
        {"ppm", IO_FORMAT_PNM},
    };
    if (!word || !fmt)
        return -1;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (same_word(word, words[i].word)) {
            *fmt = words[i].fmt;
            return 0;
        }
    }
    return -1;
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
    switch (fmt) {
    case IO_FORMAT_BMP:
        return "BMP";
    case IO_FORMAT_PNG:
        return "PNG";
    case IO_FORMAT_JPEG:
        return "JPEG";
    case IO_FORMAT_PNM:
        return "PNM";
    }
    return "?";
}

const char *io_format_extension(io_format fmt, int channels)
{
    switch (fmt) {
    case IO_FORMAT_BMP:
        return "bmp";
    case IO_FORMAT_PNG:
        return "png";
    case IO_FORMAT_JPEG:
        return "jpg";
    case IO_FORMAT_PNM:
        return channels == 1 ? "pgm" : "ppm";
    }
    return "";
}
