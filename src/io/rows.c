/* rows.c - every format read and written a row at a time (rows.h). */
#include "rows.h"

#include "codec_common.h"
#include "jpeg.h"
#include "png.h"
#include "pnm.h"

#include <stdlib.h>
#include <string.h>

struct io_row_reader {
    io_format fmt;
    const uint8_t *data;
    size_t size;
    io_limits lim;
    io_header head;
    int luma; /* a JPEG's luma alone (io_decode_luma) */
    size_t row_bytes;
    png_rows *png;
    jpeg_rows *jpeg;
    pnm_rows *pnm;
    bmp_rows *bmp;
    /* A file that cannot be read by rows: decoded whole at the first row, served from here. */
    int whole;
    io_image image;
    int next;
    int failed; /* a row was refused: the decoder's state is not to be trusted after */
};

/* The bomb guard's ratio for the decoders from the caller's limits (0: lifted). */
static long ratio_of(const io_limits *lim)
{
    return lim->allow_high_ratio ? 0 : IO_MAX_PIXELS_PER_BYTE;
}

/* A BMP: its reader's own words, as the tool has always shown them (no "BMP: " before). */
static int open_bmp(io_row_reader *r, size_t *held, char *err, size_t err_size)
{
    int width = 0, height = 0;
    const int rc = bmp_rows_open(r->data, r->size, &r->lim, &r->bmp, &width, &height, err,
                                 err_size);
    if (rc < 0)
        return -1;
    r->head = (io_header){width, height, 3, 8, 255};
    r->whole = rc == 1;
    *held = r->whole ? io_image_bytes(width, height, 3, 8) : 0;
    return 0;
}

int io_rows_open(io_format fmt, const uint8_t *data, size_t size, const io_limits *lim,
                 int luma, io_row_reader **out, io_header *h, size_t *held, char *err,
                 size_t err_size)
{
    io_row_reader *r = calloc(1, sizeof *r);
    long max_pixels;
    int rc = -1;
    if (!r)
        return io_fail(err, err_size, "out of memory for the row reader");
    if (lim)
        r->lim = *lim;
    else
        io_limits_default(&r->lim);
    r->fmt = fmt;
    r->luma = luma;
    r->data = data;
    r->size = size;
    *held = 0;
    max_pixels = (long)io_limits_max_pixels(&r->lim);
    if (!data) {
        io_fail(err, err_size, "no data to decode");
    } else if (fmt == IO_FORMAT_BMP) {
        rc = open_bmp(r, held, err, err_size);
    } else if (fmt == IO_FORMAT_PNG) {
        rc = png_rows_open(data, size, max_pixels, ratio_of(&r->lim), &r->png, &r->head, held,
                           err, err_size);
    } else if (fmt == IO_FORMAT_JPEG) {
        rc = jpeg_rows_open(data, size, max_pixels, ratio_of(&r->lim), luma, &r->jpeg,
                            &r->head, held, err, err_size);
    } else if (fmt == IO_FORMAT_PNM) {
        rc = pnm_rows_open(data, size, max_pixels, &r->pnm, &r->head, err, err_size);
    } else {
        io_fail(err, err_size, "internal error: format %d has no reader", (int)fmt);
    }
    if (rc == 1) { /* valid, but not readable by rows: decoded whole at the first row */
        r->whole = 1;
        rc = 0;
    }
    if (rc != 0) {
        io_rows_close(r);
        return -1;
    }
    r->row_bytes = io_image_bytes(r->head.width, 1, r->head.channels, r->head.depth);
    *h = r->head;
    *out = r;
    return 0;
}

/* The whole image, decoded by the whole-image decoders with the same limits. */
static int decode_whole(io_row_reader *r, char *err, size_t err_size)
{
    if (r->fmt == IO_FORMAT_BMP) {
        bmp_image b;
        if (bmp_decode_with(r->data, r->size, &r->lim, &b, err, err_size))
            return -1;
        r->image = (io_image){b.width, b.height, 3, 8, 255, b.rgb, NULL};
        return 0;
    }
    return (r->luma ? io_decode_luma : io_decode)(r->data, r->size,
                                                  (long)io_limits_max_pixels(&r->lim),
                                                  ratio_of(&r->lim), &r->image, err, err_size);
}

int io_rows_read(io_row_reader *r, void *row, char *err, size_t err_size)
{
    if (r->failed)
        return io_fail(err, err_size, "no row %d: an earlier row was refused", r->next);
    if (r->next >= r->head.height)
        return io_fail(err, err_size, "no row %d: the image has %d", r->next, r->head.height);
    if (r->whole) {
        if (!r->image.pixels && decode_whole(r, err, err_size)) {
            r->failed = 1;
            return -1;
        }
        memcpy(row, (const uint8_t *)r->image.pixels + (size_t)r->next * r->row_bytes,
               r->row_bytes);
        r->next++;
        return 0;
    }
    int rc;
    switch (r->fmt) {
    case IO_FORMAT_BMP: rc = bmp_rows_next(r->bmp, row, err, err_size); break;
    case IO_FORMAT_PNG: rc = png_rows_next(r->png, row, err, err_size); break;
    case IO_FORMAT_JPEG: rc = jpeg_rows_next(r->jpeg, row, err, err_size); break;
    default: rc = pnm_rows_next(r->pnm, row, err, err_size); break;
    }
    if (rc == 0)
        r->next++;
    else
        r->failed = 1;
    return rc;
}

int io_rows_finish(io_row_reader *r, char *err, size_t err_size)
{
    if (r->failed || r->next != r->head.height)
        return io_fail(err, err_size, "%d of %d rows read", r->next, r->head.height);
    if (r->whole)
        return 0; /* the whole decoder has made every check */
    if (r->fmt == IO_FORMAT_PNG)
        return png_rows_finish(r->png, err, err_size);
    if (r->fmt == IO_FORMAT_JPEG)
        return jpeg_rows_finish(r->jpeg, err, err_size);
    return 0; /* PGM/PPM and BMP: nothing after the raster is read (as io_decode reads none) */
}

void io_rows_close(io_row_reader *r)
{
    if (!r)
        return;
    png_rows_close(r->png);
    if (r->jpeg)
        jpeg_rows_close(r->jpeg);
    pnm_rows_close(r->pnm);
    bmp_rows_close(r->bmp);
    io_image_free(&r->image);
    free(r);
}

/* ---- Writers ---------------------------------------------------------------------------- */

struct io_row_writer {
    io_format fmt;
    FILE *f;
    int quality;
    const char *path;
    png_writer *png;
    jpeg_writer *jpeg;
    pnm_writer *pnm;
    bmp_writer *bmp;
    /* A JPEG where the build has no row-by-row encoder: the rows gathered, encoded at the end. */
    io_image image;
    size_t row_bytes;
    int next;
};

size_t io_rows_writer_bytes(io_format fmt, int width, int height, int channels)
{
    const size_t row = (size_t)width * (size_t)channels * 2;
    const size_t image = (size_t)width * (size_t)height * (size_t)channels;
    if (fmt == IO_FORMAT_PNG) /* scanlines, the deflater's state and its output buffer */
        return 4 * row + ((size_t)1 << 20);
    if (fmt != IO_FORMAT_JPEG)
        return row;
#ifdef TC_HAVE_JPEGLIB
    /* An MCU row of samples and coefficients; with TJ_OPTIMIZE or TJ_PROGRESSIVE (jpeg.c)
     * libjpeg keeps every coefficient (64 of 2 bytes a block) for its second pass. */
    const char *optimize = getenv("TJ_OPTIMIZE"), *progressive = getenv("TJ_PROGRESSIVE");
    const int full = (optimize && strcmp(optimize, "1") == 0) ||
                     (progressive && strcmp(progressive, "1") == 0);
    return 32 * row + ((size_t)1 << 20) + (full ? 2 * image : 0);
#else
    /* The rows, and TurboJPEG's output buffer, which it sizes for the worst case. */
    return 3 * image + ((size_t)1 << 20);
#endif
}

int io_rows_begin(FILE *f, io_format fmt, int width, int height, int channels, int depth,
                  int maxval, int quality, const char *path, io_row_writer **out, char *err,
                  size_t err_size)
{
    const io_image shape = {width, height, channels, depth, maxval, (void *)path, NULL};
    io_row_writer *w;
    int rc = -1;
    if (!path)
        path = "(output)";
    if (!f)
        return io_fail(err, err_size, "%s: no stream to write to", path);
    if (io_check_image(&shape, path, err, err_size))
        return -1;
    if ((fmt == IO_FORMAT_BMP || fmt == IO_FORMAT_JPEG) && (depth != 8 || maxval != 255))
        return io_fail(err, err_size, "%s: %s holds 8-bit samples of full scale 255 only", path,
                       io_format_name(fmt));
    if (fmt == IO_FORMAT_PNG && maxval != (depth == 16 ? 65535 : 255))
        return io_fail(err, err_size, "%s: PNG holds samples of full scale %d, not maxval %d",
                       path, depth == 16 ? 65535 : 255, maxval);
    if (!(w = calloc(1, sizeof *w)))
        return io_fail(err, err_size, "%s: out of memory", path);
    *w = (io_row_writer){fmt, f, quality, path, NULL, NULL, NULL, NULL,
                         {width, height, channels, depth, maxval, NULL, NULL},
                         io_image_bytes(width, 1, channels, depth), 0};
    switch (fmt) {
    case IO_FORMAT_BMP:
        rc = bmp_writer_begin(f, width, height, channels == 1 ? 8 : 24, path, &w->bmp, err,
                              err_size);
        break;
    case IO_FORMAT_PNG:
        rc = png_writer_begin(f, width, height, channels, depth, path, &w->png, err, err_size);
        break;
    case IO_FORMAT_JPEG:
        rc = jpeg_writer_begin(f, width, height, channels, quality, path, &w->jpeg, err,
                               err_size);
        if (rc == 1 && !(w->image.pixels = malloc(io_image_bytes(width, height, channels, 8))))
            rc = io_fail(err, err_size, "%s: out of memory for a %d x %d image", path, width,
                         height);
        else if (rc == 1)
            rc = 0;
        break;
    case IO_FORMAT_PNM:
        rc = pnm_writer_begin(f, width, height, channels, depth, maxval, path, &w->pnm, err,
                              err_size);
        break;
    }
    if (rc != 0) {
        io_rows_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int io_rows_write(io_row_writer *w, const void *row, char *err, size_t err_size)
{
    int rc;
    if (w->image.pixels) {
        if (w->next >= w->image.height)
            return io_fail(err, err_size, "%s: more rows than the image's %d", w->path,
                           w->image.height);
        memcpy((uint8_t *)w->image.pixels + (size_t)w->next * w->row_bytes, row, w->row_bytes);
        rc = 0;
    } else if (w->bmp) {
        rc = bmp_writer_row(w->bmp, row, err, err_size);
    } else if (w->png) {
        rc = png_writer_row(w->png, row, err, err_size);
    } else if (w->jpeg) {
        rc = jpeg_writer_row(w->jpeg, row, err, err_size);
    } else {
        rc = pnm_writer_row(w->pnm, row, err, err_size);
    }
    if (rc == 0)
        w->next++;
    return rc;
}

int io_rows_end(io_row_writer *w, char *err, size_t err_size)
{
    if (w->image.pixels) {
        if (w->next != w->image.height)
            return io_fail(err, err_size, "%s: %d of %d rows written", w->path, w->next,
                           w->image.height);
        return jpeg_encode(w->f, &w->image, w->quality, w->path, err, err_size);
    }
    if (w->bmp)
        return bmp_writer_end(w->bmp, err, err_size);
    if (w->png)
        return png_writer_end(w->png, err, err_size);
    if (w->jpeg)
        return jpeg_writer_end(w->jpeg, err, err_size);
    return pnm_writer_end(w->pnm, err, err_size);
}

void io_rows_free(io_row_writer *w)
{
    if (!w)
        return;
    bmp_writer_free(w->bmp);
    png_writer_free(w->png);
    if (w->jpeg)
        jpeg_writer_free(w->jpeg);
    pnm_writer_free(w->pnm);
    io_image_free(&w->image);
    free(w);
}
