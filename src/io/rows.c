/* rows.c - every format read and written a row at a time (rows.h), through each format's row
 * reader and writer (codec.h's io_row_reading and io_row_writing): nothing here names one. */
#include "rows.h"

#include "codec_common.h"

#include <stdlib.h>
#include <string.h>

struct io_row_reader {
    const io_row_reading *reading;
    void *state; /* the format's reader; NULL when the file is decoded whole */
    const uint8_t *data;
    size_t size;
    io_limits lim;
    io_header head;
    int luma; /* a JPEG's luma alone (io_decode_luma) */
    size_t row_bytes;
    /* A file that cannot be read by rows: decoded whole at the first row, served from here. */
    int whole;
    io_image image;
    int next;
    int failed; /* a row was refused: the decoder's state is not to be trusted after */
};

int io_rows_open(io_format fmt, const uint8_t *data, size_t size, const io_limits *lim,
                 int luma, io_row_reader **out, io_header *h, size_t *held, char *err,
                 size_t err_size)
{
    io_row_reader *r = calloc(1, sizeof *r);
    int rc = -1;
    if (!r)
        return io_fail(err, err_size, "out of memory for the row reader");
    if (lim)
        r->lim = *lim;
    else
        io_limits_default(&r->lim);
    r->luma = luma;
    r->data = data;
    r->size = size;
    r->reading = io_row_reading_of(fmt);
    *held = 0;
    if (!data)
        io_fail(err, err_size, "no data to decode");
    else if (!r->reading)
        io_fail(err, err_size, "internal error: format %d has no reader", (int)fmt);
    else
        rc = r->reading->open(data, size, &r->lim, luma, &r->state, &r->head, held, err,
                              err_size);
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

/* The bomb guard's ratio for the decoders from the caller's limits (0: lifted). */
static long ratio_of(const io_limits *lim)
{
    return lim->allow_high_ratio ? 0 : IO_MAX_PIXELS_PER_BYTE;
}

/* The whole image, decoded by the whole-image decoders with the same limits. */
static int decode_whole(io_row_reader *r, char *err, size_t err_size)
{
    if (r->reading->decode_whole)
        return r->reading->decode_whole(r->data, r->size, &r->lim, &r->image, err, err_size);
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
    const int rc = r->reading->next(r->state, row, err, err_size);
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
    /* PGM/PPM and BMP have none: nothing after the raster is read (as io_decode reads none). */
    return r->reading->finish ? r->reading->finish(r->state, err, err_size) : 0;
}

void io_rows_close(io_row_reader *r)
{
    if (!r)
        return;
    if (r->state)
        r->reading->close(r->state);
    io_image_free(&r->image);
    free(r);
}

/* ---- Writers ---------------------------------------------------------------------------- */

struct io_row_writer {
    io_format fmt;
    const io_row_writing *writing;
    void *state; /* the format's writer; NULL while the rows are gathered for io_encode */
    FILE *f;
    int quality;
    const char *path;
    /* Where the build has no row encoder for the format: the rows gathered, encoded at the
     * end. */
    io_image image;
    size_t row_bytes;
    int next;
};

size_t io_rows_writer_bytes(io_format fmt, int width, int height, int channels)
{
    const io_row_writing *w = io_row_writing_of(fmt);
    if (w && w->held)
        return w->held(width, height, channels);
    return (size_t)width * (size_t)channels * 2;
}

int io_rows_begin(FILE *f, io_format fmt, int width, int height, int channels, int depth,
                  int maxval, int quality, const char *path, io_row_writer **out, char *err,
                  size_t err_size)
{
    const io_image shape = {width, height, channels, depth, maxval, (void *)path, NULL};
    const io_row_writing *writing = io_row_writing_of(fmt);
    io_row_writer *w;
    int rc;
    if (!path)
        path = "(output)";
    if (!f)
        return io_fail(err, err_size, "%s: no stream to write to", path);
    if (io_check_image(&shape, path, err, err_size) ||
        io_check_writable(fmt, depth, maxval, path, err, err_size))
        return -1;
    if (!(w = calloc(1, sizeof *w)))
        return io_fail(err, err_size, "%s: out of memory", path);
    *w = (io_row_writer){fmt, writing, NULL, f, quality, path,
                         {width, height, channels, depth, maxval, NULL, NULL},
                         io_image_bytes(width, 1, channels, depth), 0};
    rc = writing->begin(f, &shape, quality, path, &w->state, err, err_size);
    if (rc == 1 && !(w->image.pixels = malloc(io_image_bytes(width, height, channels, depth))))
        rc = io_fail(err, err_size, "%s: out of memory for a %d x %d image", path, width,
                     height);
    else if (rc == 1)
        rc = 0;
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
    } else {
        rc = w->writing->row(w->state, row, err, err_size);
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
        return io_encode(w->f, w->fmt, &w->image, w->quality, w->path, err, err_size);
    }
    return w->writing->end(w->state, err, err_size);
}

void io_rows_free(io_row_writer *w)
{
    if (!w)
        return;
    if (w->state)
        w->writing->free(w->state);
    io_image_free(&w->image);
    free(w);
}
