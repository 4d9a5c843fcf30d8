/*
 * png.c - PNG through libspng (png.h says what is read and written).
 *
 * libspng checks the stream itself (signature, chunk order and lengths, CRCs of critical
 * chunks, the zlib stream, filters); we set its limits, pick the output layout, and add what it
 * leaves to the caller: the pixel limit and bomb guard before allocating, a bound from deflate's
 * largest ratio, palette indices past the palette (libspng would show them black; the tool
 * refuses them, as for BMP), and reading on to the end of IEND so that a truncated file is
 * refused even when its pixels were complete.
 */
#include "png.h"

#include "codec_common.h"

#include <errno.h>
#include <spng.h>
#include <stdlib.h>
#include <string.h>

/* Deflate emits at most 258 bytes for 2 bits (a length and a distance code of one bit each):
 * no PNG can inflate to more than 1032 times its own size. */
#define DEFLATE_MAX_RATIO 1032u

static int spng_fail(const char *doing, int ret, char *err, size_t err_size)
{
    return io_fail(err, err_size, "PNG: %s%s%s", doing, *doing ? ": " : "", spng_strerror(ret));
}

/* How the decoder's output of one colour type becomes ours. */
typedef struct {
    int fmt;        /* libspng's output format */
    int in_samples; /* samples per pixel in libspng's output */
    int channels;   /* samples per pixel we keep: the first ones (gray, or R, G, B) */
    int depth;      /* 8 or 16 */
} png_layout;

static int choose_layout(const struct spng_ihdr *ih, png_layout *l)
{
    int deep = ih->bit_depth == 16;
    switch (ih->color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE:
        /* G8 scales 1/2/4-bit gray to 0..255 by bit replication, which equals v * 255 / maxval
         * exactly for those depths; 16-bit gray comes as it is stored, in host order. */
        *l = deep ? (png_layout){SPNG_FMT_PNG, 1, 1, 16} : (png_layout){SPNG_FMT_G8, 1, 1, 8};
        return 0;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA:
        *l = (png_layout){SPNG_FMT_PNG, 2, 1, deep ? 16 : 8};
        return 0;
    case SPNG_COLOR_TYPE_TRUECOLOR:
        *l = deep ? (png_layout){SPNG_FMT_PNG, 3, 3, 16} : (png_layout){SPNG_FMT_RGB8, 3, 3, 8};
        return 0;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA:
        /* RGB8 drops the alpha of an 8-bit file; libspng has no RGB16, so 16-bit RGBA comes
         * as stored and loses its alpha in compact(). */
        *l = deep ? (png_layout){SPNG_FMT_PNG, 4, 3, 16} : (png_layout){SPNG_FMT_RGB8, 3, 3, 8};
        return 0;
    case SPNG_COLOR_TYPE_INDEXED:
        /* The indices as stored (packed for 1/2/4 bits); expand_palette() makes the RGB. */
        *l = (png_layout){SPNG_FMT_PNG, 1, 3, 8};
        return 0;
    }
    return -1;
}

/* Keeps the first `keep` of every `have` samples, in place (the write never passes the read). */
static void compact(uint8_t *buf, size_t pixels, int have, int keep, int depth)
{
    size_t in = (size_t)have * (size_t)(depth / 8), out = (size_t)keep * (size_t)(depth / 8);
    for (size_t i = 0; i < pixels; i++)
        memmove(buf + i * out, buf + i * in, out);
}

/* The RGB of every index of row y of an indexed image, refusing an index past the palette. */
static int expand_palette_row(const uint8_t *row, size_t y, const struct spng_ihdr *ih,
                              const struct spng_plte *plte, uint8_t *rgb, char *err,
                              size_t err_size)
{
    unsigned bits = ih->bit_depth, mask = (1u << bits) - 1u;
    for (size_t x = 0; x < ih->width; x++) {
        size_t bit = x * bits;
        unsigned i = (row[bit / 8] >> (8u - bits - bit % 8u)) & mask;
        if (i >= plte->n_entries)
            return io_fail(err, err_size,
                           "PNG: palette index %u at (%lu, %lu) is past the %u-entry palette", i,
                           (unsigned long)x, (unsigned long)y, (unsigned)plte->n_entries);
        uint8_t *px = rgb + x * 3;
        px[0] = plte->entries[i].red;
        px[1] = plte->entries[i].green;
        px[2] = plte->entries[i].blue;
    }
    return 0;
}

/* The RGB of every index of an indexed image, refusing an index past the palette. */
static int expand_palette(const uint8_t *idx, const struct spng_ihdr *ih,
                          const struct spng_plte *plte, uint8_t *rgb, char *err, size_t err_size)
{
    size_t row_bytes = ((size_t)ih->width * ih->bit_depth + 7u) / 8u;
    for (size_t y = 0; y < ih->height; y++)
        if (expand_palette_row(idx + y * row_bytes, y, ih, plte, rgb + y * ih->width * 3, err,
                               err_size))
            return -1;
    return 0;
}

/* libspng 0.7 accepts a file whose IEND chunk lacks its CRC (the last 4 bytes cut off). Every
 * chunk before it has passed libspng's checks by now, so their lengths can be walked to IEND
 * and its fixed CRC (that of the bare type "IEND") checked. Returns 0, or -1 with the reason. */
static int check_iend(const uint8_t *data, size_t size, char *err, size_t err_size)
{
    static const uint8_t iend_crc[4] = {0xae, 0x42, 0x60, 0x82};
    uint64_t at = 8; /* after the signature */
    while (at + 8 <= size) {
        const uint8_t *c = data + at;
        uint32_t len = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
        if (memcmp(c + 4, "IEND", 4) == 0) {
            if (size - at < 12)
                return io_fail(err, err_size, "PNG: the file ends inside its IEND chunk");
            if (len != 0 || memcmp(c + 8, iend_crc, 4) != 0)
                return io_fail(err, err_size, "PNG: invalid IEND chunk");
            return 0;
        }
        at += 12u + (uint64_t)len;
    }
    return io_fail(err, err_size, "PNG: the file ends before its IEND chunk");
}

/* The decoder set up on data and the header read and checked, before anything is allocated
 * for the pixels: the sides and the pixel limit, the colour type, the deflate bound and the
 * bomb guard. Fills *ctx (the caller frees it, also after a failure), *ih and *lay. 0, or -1
 * with the reason. */
static int png_begin(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                     spng_ctx **ctx, struct spng_ihdr *ih, png_layout *lay, char *err,
                     size_t err_size)
{
    long limit = io_pixel_limit(max_pixels);
    uint32_t side = (uint32_t)(limit < IO_MAX_SIDE ? limit : IO_MAX_SIDE);
    int ret;

    if (!data)
        return io_fail(err, err_size, "PNG: no data to decode");
    *ctx = spng_ctx_new(0);
    if (!*ctx)
        return io_fail(err, err_size, "PNG: out of memory for the decoder");
    /* libspng's own limits first: the sides (so that it refuses a huge IHDR itself), and the
     * memory for ancillary chunks and inflated text, which we never use (png.h). */
    if ((ret = spng_set_image_limits(*ctx, side, side)) != 0 ||
        (ret = spng_set_chunk_limits(*ctx, PNG_TEXT_LIMIT, PNG_CHUNK_CACHE_LIMIT)) != 0 ||
        (ret = spng_set_png_buffer(*ctx, data, size)) != 0)
        return spng_fail("setting up the decoder", ret, err, err_size);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    /* The fuzz build only (tests/fuzz_codec.c): CRCs are used, not checked, so that mutated
     * inputs get past them to the code behind (as libspng's own fuzzers do). */
    if ((ret = spng_set_crc_action(*ctx, SPNG_CRC_USE, SPNG_CRC_USE)) != 0)
        return spng_fail("setting up the decoder", ret, err, err_size);
#endif
    ret = spng_get_ihdr(*ctx, ih);
    if (ret == SPNG_EUSER_WIDTH || ret == SPNG_EUSER_HEIGHT)
        return io_fail(err, err_size, "PNG: the image is %s than %lu pixels",
                       ret == SPNG_EUSER_WIDTH ? "wider" : "taller", (unsigned long)side);
    if (ret)
        return spng_fail("", ret, err, err_size);
    if (io_check_size("PNG", (long)ih->width, (long)ih->height, limit, err, err_size))
        return -1;
    if (choose_layout(ih, lay)) /* libspng has checked the colour type: not reached */
        return io_fail(err, err_size, "PNG: colour type %u is not supported",
                       (unsigned)ih->color_type);
    /* The stored pixels need at least width * height * bits / 8 bytes once inflated, and no
     * file inflates to more than DEFLATE_MAX_RATIO times its size: a header that promises more
     * belongs to a truncated file or a bomb, refused before the allocation. Both factors are
     * bounded (2^30 pixels, 64 bits per pixel), so nothing overflows 64 bits. */
    static const unsigned samples[7] = {1, 0, 3, 1, 2, 0, 4};
    uint64_t bits = (uint64_t)ih->width * ih->height * samples[ih->color_type] * ih->bit_depth;
    if (bits / 8u > (uint64_t)size * DEFLATE_MAX_RATIO)
        return io_fail(err, err_size,
                       "PNG: a file of %lu bytes cannot hold %lu x %lu pixels (%llu bytes once "
                       "inflated; deflate expands at most %u:1): truncated, or a bomb",
                       (unsigned long)size, (unsigned long)ih->width, (unsigned long)ih->height,
                       (unsigned long long)(bits / 8u), DEFLATE_MAX_RATIO);
    return io_check_ratio("PNG", (long)ih->width, (long)ih->height, size, max_pixels_per_byte,
                          err, err_size);
}

int png_probe(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
              io_header *h, char *err, size_t err_size)
{
    spng_ctx *ctx = NULL;
    struct spng_ihdr ih;
    png_layout lay;
    const int rc = png_begin(data, size, max_pixels, max_pixels_per_byte, &ctx, &ih, &lay, err,
                             err_size);
    spng_ctx_free(ctx);
    if (rc == 0)
        *h = (io_header){(int)ih.width, (int)ih.height, lay.channels, lay.depth,
                         lay.depth == 16 ? 65535 : 255};
    return rc;
}

int png_decode(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
               io_image *img, char *err, size_t err_size)
{
    spng_ctx *ctx = NULL;
    struct spng_ihdr ih;
    struct spng_plte plte;
    png_layout lay;
    uint8_t *buf = NULL, *rgb = NULL;
    const io_allocator *from = NULL; /* buf's, when it becomes the pixels as decoded */
    size_t len = 0;
    int ret, rc = -1;

    if (!img) {
        io_fail(err, err_size, "PNG: no data to decode");
        goto done;
    }
    if (png_begin(data, size, max_pixels, max_pixels_per_byte, &ctx, &ih, &lay, err, err_size))
        goto done;
    if ((ret = spng_decoded_image_size(ctx, lay.fmt, &len)) != 0) {
        spng_fail("", ret, err, err_size);
        goto done;
    }
    /* Zeroed: libspng ORs the samples of an interlaced image of 1, 2 or 4 bits into their
     * bytes, which must therefore start at zero. */
    if (ih.color_type != SPNG_COLOR_TYPE_INDEXED && lay.in_samples == lay.channels) {
        buf = io_pixels_alloc(len, &from); /* the pixels as decoded: the caller's memory */
        if (buf)
            memset(buf, 0, len ? len : 1);
    } else {
        buf = calloc(len ? len : 1, 1);
    }
    if (!buf) {
        io_fail(err, err_size, "PNG: out of memory for a %lu x %lu image", (unsigned long)ih.width,
                (unsigned long)ih.height);
        goto done;
    }
    /* No SPNG_DECODE_TRNS, no SPNG_DECODE_GAMMA: the samples as stored. */
    if ((ret = spng_decode_image(ctx, buf, len, lay.fmt, 0)) != 0) {
        spng_fail("", ret, err, err_size);
        goto done;
    }
    /* The chunks after the image, up to IEND: their CRCs, and a file cut short after IDAT. */
    if ((ret = spng_decode_chunks(ctx)) != 0) {
        spng_fail("after the image data", ret, err, err_size);
        goto done;
    }
    if (check_iend(data, size, err, err_size))
        goto done;
    size_t pixels = (size_t)ih.width * ih.height;
    if (ih.color_type == SPNG_COLOR_TYPE_INDEXED) {
        if ((ret = spng_get_plte(ctx, &plte)) != 0) {
            spng_fail("palette", ret, err, err_size);
            goto done;
        }
        rgb = malloc(pixels * 3);
        if (!rgb) {
            io_fail(err, err_size, "PNG: out of memory for a %lu x %lu image",
                    (unsigned long)ih.width, (unsigned long)ih.height);
            goto done;
        }
        if (expand_palette(buf, &ih, &plte, rgb, err, err_size))
            goto done;
        free(buf);
        buf = rgb;
        rgb = NULL;
    } else if (lay.in_samples != lay.channels) {
        compact(buf, pixels, lay.in_samples, lay.channels, lay.depth);
        /* Give back what the alpha took; a failed shrink keeps the larger block, still valid. */
        uint8_t *shrunk = realloc(buf, pixels * (size_t)lay.channels * (size_t)(lay.depth / 8));
        if (shrunk)
            buf = shrunk;
    }
    img->width = (int)ih.width;
    img->height = (int)ih.height;
    img->channels = lay.channels;
    img->depth = lay.depth;
    img->maxval = lay.depth == 16 ? 65535 : 255;
    img->pixels = buf;
    img->allocator = from;
    buf = NULL;
    rc = 0;
done:
    free(rgb);
    io_pixels_free(buf, from);
    spng_ctx_free(ctx);
    return rc;
}

/* The encoder's output goes through fwrite, so that a failed write keeps its errno. */
typedef struct {
    FILE *f;
    int errnum; /* errno of the first failed write, 0 while none failed */
} png_sink;

static int sink_write(spng_ctx *ctx, void *user, void *src, size_t length)
{
    png_sink *s = user;
    (void)ctx;
    errno = 0;
    if (fwrite(src, 1, length, s->f) != length) {
        s->errnum = errno ? errno : EIO;
        return SPNG_IO_ERROR;
    }
    return 0;
}

int png_encode(FILE *f, const io_image *img, const char *path, char *err, size_t err_size)
{
    spng_ctx *ctx = NULL;
    png_sink sink = {f, 0};
    struct spng_ihdr ih;
    int ret, rc = -1;

    if (io_check_image(img, path, err, err_size))
        return -1;
    if (img->maxval != (img->depth == 16 ? 65535 : 255))
        return io_fail(err, err_size, "%s: PNG holds samples of full scale %d, not maxval %d",
                       path, img->depth == 16 ? 65535 : 255, img->maxval);
    memset(&ih, 0, sizeof ih);
    ih.width = (uint32_t)img->width;
    ih.height = (uint32_t)img->height;
    ih.bit_depth = (uint8_t)img->depth;
    ih.color_type = img->channels == 1 ? SPNG_COLOR_TYPE_GRAYSCALE : SPNG_COLOR_TYPE_TRUECOLOR;
    ih.compression_method = 0;
    ih.filter_method = 0;
    ih.interlace_method = SPNG_INTERLACE_NONE;

    ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    if (!ctx) {
        io_fail(err, err_size, "%s: out of memory for the PNG encoder", path);
        goto done;
    }
    /* SPNG_FMT_PNG takes the samples in the PNG's layout, 16-bit ones in host order (libspng
     * swaps them into a row of its own, leaving ours as they are). */
    if ((ret = spng_set_png_stream(ctx, sink_write, &sink)) != 0 ||
        (ret = spng_set_ihdr(ctx, &ih)) != 0 ||
        (ret = spng_encode_image(ctx, img->pixels,
                                 io_image_bytes(img->width, img->height, img->channels,
                                                img->depth),
                                 SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE)) != 0) {
        if (sink.errnum)
            io_fail(err, err_size, "%s: write error: %s", path, strerror(sink.errnum));
        else
            io_fail(err, err_size, "%s: PNG encoding failed: %s", path, spng_strerror(ret));
        goto done;
    }
    rc = 0;
done:
    spng_ctx_free(ctx);
    return rc;
}

/* ---- Row by row ----------------------------------------------------------------------- */

struct png_rows {
    spng_ctx *ctx;
    struct spng_ihdr ih;
    struct spng_plte plte;
    png_layout lay;
    uint8_t *raw;   /* one row as libspng gives it */
    size_t raw_len;
    uint32_t next;  /* the row png_rows_next gives next */
    const uint8_t *data;
    size_t size;
};

void png_rows_close(png_rows *r)
{
    if (!r)
        return;
    spng_ctx_free(r->ctx);
    free(r->raw);
    free(r);
}

int png_rows_open(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                  png_rows **out, io_header *h, size_t *held, char *err, size_t err_size)
{
    png_rows *r = calloc(1, sizeof *r);
    size_t len = 0;
    int ret;
    if (!r)
        return io_fail(err, err_size, "PNG: out of memory for the row reader");
    r->data = data;
    r->size = size;
    if (png_begin(data, size, max_pixels, max_pixels_per_byte, &r->ctx, &r->ih, &r->lay, err,
                  err_size) ||
        ((ret = spng_decoded_image_size(r->ctx, r->lay.fmt, &len)) != 0 &&
         spng_fail("", ret, err, err_size))) {
        png_rows_close(r);
        return -1;
    }
    *h = (io_header){(int)r->ih.width, (int)r->ih.height, r->lay.channels, r->lay.depth,
                     r->lay.depth == 16 ? 65535 : 255};
    const size_t pixels = (size_t)r->ih.width * r->ih.height;
    if (r->ih.interlace_method != SPNG_INTERLACE_NONE) {
        /* Adam7 delivers the picture in seven passes over the whole image: it is decoded
         * whole (png_decode), which holds libspng's output and, for a palette, the RGB. */
        *held = len + (r->ih.color_type == SPNG_COLOR_TYPE_INDEXED ? pixels * 3 : 0);
        png_rows_close(r);
        return 1;
    }
    r->raw_len = len / r->ih.height;
    if (!(r->raw = malloc(r->raw_len ? r->raw_len : 1))) {
        png_rows_close(r);
        return io_fail(err, err_size, "PNG: out of memory for the row reader");
    }
    /* The chunks before the image data are read here (the palette among them). */
    if ((ret = spng_decode_image(r->ctx, NULL, 0, r->lay.fmt, SPNG_DECODE_PROGRESSIVE)) != 0 ||
        (r->ih.color_type == SPNG_COLOR_TYPE_INDEXED &&
         (ret = spng_get_plte(r->ctx, &r->plte)) != 0)) {
        spng_fail("", ret, err, err_size);
        png_rows_close(r);
        return -1;
    }
    /* libspng keeps a scanline, the previous one and a row of its output, the inflater's
     * window, and at most PNG_CHUNK_CACHE_LIMIT of ancillary chunks. */
    *held = 4 * r->raw_len + PNG_CHUNK_CACHE_LIMIT + ((size_t)1 << 20);
    *out = r;
    return 0;
}

int png_rows_next(png_rows *r, void *row, char *err, size_t err_size)
{
    if (r->next >= r->ih.height)
        return io_fail(err, err_size, "PNG: no row %lu: the image has %lu",
                       (unsigned long)r->next, (unsigned long)r->ih.height);
    const int ret = spng_decode_row(r->ctx, r->raw, r->raw_len);
    /* SPNG_EOI comes with the last row. */
    if (ret != 0 && !(ret == SPNG_EOI && r->next + 1 == r->ih.height))
        return spng_fail("", ret, err, err_size);
    if (r->ih.color_type == SPNG_COLOR_TYPE_INDEXED) {
        if (expand_palette_row(r->raw, r->next, &r->ih, &r->plte, row, err, err_size))
            return -1;
    } else if (r->lay.in_samples != r->lay.channels) {
        compact(r->raw, r->ih.width, r->lay.in_samples, r->lay.channels, r->lay.depth);
        memcpy(row, r->raw, (size_t)r->ih.width * (size_t)r->lay.channels *
                                (size_t)(r->lay.depth / 8));
    } else {
        memcpy(row, r->raw, r->raw_len);
    }
    r->next++;
    return 0;
}

int png_rows_finish(png_rows *r, char *err, size_t err_size)
{
    int ret;
    if (r->next != r->ih.height)
        return io_fail(err, err_size, "PNG: %lu of %lu rows read", (unsigned long)r->next,
                       (unsigned long)r->ih.height);
    /* png_decode's checks after the image: the chunks up to IEND and IEND itself. */
    if ((ret = spng_decode_chunks(r->ctx)) != 0)
        return spng_fail("after the image data", ret, err, err_size);
    return check_iend(r->data, r->size, err, err_size);
}

struct png_writer {
    spng_ctx *ctx;
    png_sink sink;
    size_t row_len;
    uint32_t next, height;
    const char *path;
};

void png_writer_free(png_writer *w)
{
    if (!w)
        return;
    spng_ctx_free(w->ctx);
    free(w);
}

/* A libspng failure while writing: the stream's errno when a write failed. Returns -1. */
static int writer_fail(const png_writer *w, int ret, char *err, size_t err_size)
{
    if (w->sink.errnum)
        return io_fail(err, err_size, "%s: write error: %s", w->path, strerror(w->sink.errnum));
    return io_fail(err, err_size, "%s: PNG encoding failed: %s", w->path, spng_strerror(ret));
}

int png_writer_begin(FILE *f, int width, int height, int channels, int depth, const char *path,
                     png_writer **out, char *err, size_t err_size)
{
    const io_image shape = {width, height, channels, depth, depth == 16 ? 65535 : 255,
                            (void *)path, NULL};
    struct spng_ihdr ih;
    png_writer *w;
    int ret;
    if (io_check_image(&shape, path, err, err_size))
        return -1;
    if (!(w = calloc(1, sizeof *w)))
        return io_fail(err, err_size, "%s: out of memory for the PNG encoder", path);
    w->sink = (png_sink){f, 0};
    w->row_len = io_image_bytes(width, 1, channels, depth);
    w->height = (uint32_t)height;
    w->path = path;
    /* png_encode's header and settings, so that the bytes are the same. */
    memset(&ih, 0, sizeof ih);
    ih.width = (uint32_t)width;
    ih.height = (uint32_t)height;
    ih.bit_depth = (uint8_t)depth;
    ih.color_type = channels == 1 ? SPNG_COLOR_TYPE_GRAYSCALE : SPNG_COLOR_TYPE_TRUECOLOR;
    ih.interlace_method = SPNG_INTERLACE_NONE;
    if (!(w->ctx = spng_ctx_new(SPNG_CTX_ENCODER))) {
        png_writer_free(w);
        return io_fail(err, err_size, "%s: out of memory for the PNG encoder", path);
    }
    if ((ret = spng_set_png_stream(w->ctx, sink_write, &w->sink)) != 0 ||
        (ret = spng_set_ihdr(w->ctx, &ih)) != 0 ||
        (ret = spng_encode_image(w->ctx, NULL, 0, SPNG_FMT_PNG,
                                 SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE)) != 0) {
        writer_fail(w, ret, err, err_size);
        png_writer_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int png_writer_row(png_writer *w, const void *row, char *err, size_t err_size)
{
    if (w->next >= w->height)
        return io_fail(err, err_size, "%s: more rows than the image's %lu", w->path,
                       (unsigned long)w->height);
    /* SPNG_EOI comes with the last row, which also finishes the file (IEND). */
    const int ret = spng_encode_row(w->ctx, row, w->row_len);
    if (ret != 0 && !(ret == SPNG_EOI && w->next + 1 == w->height))
        return writer_fail(w, ret, err, err_size);
    w->next++;
    return 0;
}

int png_writer_end(png_writer *w, char *err, size_t err_size)
{
    if (w->next != w->height)
        return io_fail(err, err_size, "%s: %lu of %lu rows written", w->path,
                       (unsigned long)w->next, (unsigned long)w->height);
    return 0;
}

size_t png_writer_bytes(int width, int height, int channels)
{
    (void)height;
    return 4 * (size_t)width * (size_t)channels * 2 + ((size_t)1 << 20);
}
