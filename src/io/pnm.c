/*
 * pnm.c - PGM and PPM by hand (pnm.h says what is read and written).
 *
 * The reader follows the BMP reader's discipline: every header field is parsed with a bound
 * (a number with more digits than any valid value is refused, never wrapped), the sizes are
 * checked against the pixel limit and against what the rest of the file can hold before
 * anything is allocated, and every sample is checked against the maxval. Whitespace is
 * netpbm's (space, TAB, CR, LF, VT, FF); a comment runs from '#' to the next CR or LF.
 */
#include "pnm.h"

#include "codec_common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *p, *end;
    const char *name; /* "PGM" or "PPM", at the head of every message */
} cursor;

static int is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

/* Skips a comment that starts at c->p ('#'), up to and including the CR or LF that ends it
 * (netpbm's pm_getc returns that line end in the comment's place: it counts as whitespace).
 * Returns 0, or -1 at the end of the file. */
static int skip_comment(cursor *c)
{
    while (c->p < c->end && *c->p != '\n' && *c->p != '\r')
        c->p++;
    if (c->p == c->end)
        return -1;
    c->p++;
    return 0;
}

/* Skips whitespace and comments. */
static void skip_space(cursor *c)
{
    while (c->p < c->end) {
        if (is_space(*c->p))
            c->p++;
        else if (*c->p == '#') {
            if (skip_comment(c))
                return;
        } else
            return;
    }
}

/* One character as a message can show it. */
static const char *show(uint8_t ch, char buf[8])
{
    if (ch >= 0x20 && ch < 0x7f && ch != '\'')
        snprintf(buf, 8, "'%c'", ch);
    else
        snprintf(buf, 8, "0x%02x", ch);
    return buf;
}

/* What parse_number found. */
enum { NUM_OK, NUM_END, NUM_NOT_A_NUMBER, NUM_TOO_BIG };

/* Reads an unsigned decimal number after whitespace and comments into *out. A number above
 * `limit` is NUM_TOO_BIG however many digits it has, so "99999999999999999999" cannot wrap to a
 * small value; *digits and *n_digits then say what was there, for the message. */
static int parse_number(cursor *c, unsigned long limit, unsigned long *out,
                        const uint8_t **digits, int *n_digits)
{
    skip_space(c);
    if (c->p == c->end)
        return NUM_END;
    if (!is_digit(*c->p))
        return NUM_NOT_A_NUMBER;
    const uint8_t *start = c->p;
    unsigned long v = 0;
    int too_big = 0;
    for (; c->p < c->end && is_digit(*c->p); c->p++) {
        if (!too_big) {
            /* limit <= 65536, so v stays far below ULONG_MAX until this stops it. */
            v = v * 10u + (unsigned long)(*c->p - '0');
            too_big = v > limit;
        }
    }
    *digits = start;
    *n_digits = c->p - start > 20 ? 21 : (int)(c->p - start);
    if (too_big)
        return NUM_TOO_BIG;
    *out = v;
    return NUM_OK;
}

/* A header number: the width, the height or the maxval, at most `limit`. */
static int read_field(cursor *c, const char *what, unsigned long limit, unsigned long *out,
                      char *err, size_t err_size)
{
    const uint8_t *digits = NULL;
    int n = 0;
    char ch[8];
    switch (parse_number(c, limit, out, &digits, &n)) {
    case NUM_OK:
        return 0;
    case NUM_END:
        return io_fail(err, err_size, "%s: the file ends before the %s", c->name, what);
    case NUM_NOT_A_NUMBER:
        return io_fail(err, err_size, "%s: the %s is not a number (found %s)", c->name, what,
                       show(*c->p, ch));
    default:
        return io_fail(err, err_size, "%s: the %s is %.*s%s, more than %lu", c->name, what,
                       n > 20 ? 20 : n, (const char *)digits, n > 20 ? "..." : "", limit);
    }
}

/* After a header number: whitespace or a comment must follow, not another character ("3x"). */
static int expect_separator(cursor *c, const char *what, char *err, size_t err_size)
{
    char ch[8];
    if (c->p == c->end)
        return io_fail(err, err_size, "%s: the file ends after the %s", c->name, what);
    if (!is_space(*c->p) && *c->p != '#')
        return io_fail(err, err_size, "%s: the %s is followed by %s, not whitespace", c->name,
                       what, show(*c->p, ch));
    return 0;
}

/* Where sample i lies, for messages. */
static void locate(size_t i, int channels, int width, unsigned long *x, unsigned long *y)
{
    size_t pixel = i / (size_t)channels;
    *x = (unsigned long)(pixel % (size_t)width);
    *y = (unsigned long)(pixel / (size_t)width);
}

static void put_sample(void *pixels, int depth, size_t i, unsigned long v)
{
    if (depth == 16)
        ((uint16_t *)pixels)[i] = (uint16_t)v;
    else
        ((uint8_t *)pixels)[i] = (uint8_t)v;
}

/* What the header says, once read and checked. */
typedef struct {
    unsigned long width, height, maxval;
    int channels, text;
} pnm_header;

/* The header read and checked (each field bounded, the pixel limit) and the raster's length
 * against what the file holds, before anything is allocated: c is left at the raster's first
 * byte. 0, or -1 with the reason. */
static int pnm_begin(const uint8_t *data, size_t size, long max_pixels, cursor *c, pnm_header *h,
                     char *err, size_t err_size)
{
    if (!data)
        return io_fail(err, err_size, "PNM: no data to decode");
    if (size < 2 || data[0] != 'P' ||
        (data[1] != '2' && data[1] != '3' && data[1] != '5' && data[1] != '6'))
        return io_fail(err, err_size, "PNM: not a PGM or PPM file (no P2, P3, P5 or P6)");
    h->text = data[1] == '2' || data[1] == '3';
    h->channels = data[1] == '3' || data[1] == '6' ? 3 : 1;
    c->p = data + 2;
    c->end = data + size;
    c->name = h->channels == 1 ? "PGM" : "PPM";

    if (expect_separator(c, "magic number", err, err_size) ||
        read_field(c, "width", IO_MAX_SIDE, &h->width, err, err_size) ||
        expect_separator(c, "width", err, err_size) ||
        read_field(c, "height", IO_MAX_SIDE, &h->height, err, err_size) ||
        expect_separator(c, "height", err, err_size) ||
        read_field(c, "maxval", 65535, &h->maxval, err, err_size) ||
        expect_separator(c, "maxval", err, err_size))
        return -1;
    if (h->maxval == 0)
        return io_fail(err, err_size, "%s: maxval 0 is out of range (1..65535)", c->name);
    if (io_check_size(c->name, (long)h->width, (long)h->height, max_pixels, err, err_size))
        return -1;
    /* Exactly one whitespace character ends the header of a binary file; the raster follows
     * it at once, even when it looks like more whitespace. A comment in its place ends with
     * its line end (netpbm reads it so). */
    if (*c->p == '#') {
        if (skip_comment(c))
            return io_fail(err, err_size, "%s: the file ends in the comment after the maxval",
                           c->name);
    } else {
        c->p++;
    }

    /* <= 3 * 2^30: no overflow */
    size_t samples = (size_t)h->width * h->height * (size_t)h->channels;
    size_t avail = (size_t)(c->end - c->p);
    if (h->text) {
        /* Each text sample has at least one digit and one separator (the last needs none): a
         * file too short for that is refused before the allocation it would cost. */
        if (avail < 2 * samples - 1)
            return io_fail(err, err_size,
                           "%s: pixel data truncated: %lu text samples need at least %lu bytes, "
                           "%lu in the file",
                           c->name, (unsigned long)samples, (unsigned long)(2 * samples - 1),
                           (unsigned long)avail);
    } else {
        size_t need = samples * (h->maxval > 255 ? 2u : 1u);
        if (avail < need)
            return io_fail(err, err_size,
                           "%s: pixel data truncated: %lu bytes needed, %lu in the file",
                           c->name, (unsigned long)need, (unsigned long)avail);
    }
    return 0;
}

int pnm_probe(const uint8_t *data, size_t size, long max_pixels, io_header *hd, char *err,
              size_t err_size)
{
    cursor c;
    pnm_header h;
    if (pnm_begin(data, size, max_pixels, &c, &h, err, err_size))
        return -1;
    *hd = (io_header){(int)h.width, (int)h.height, h.channels, h.maxval > 255 ? 16 : 8,
                      (int)h.maxval};
    return 0;
}

/* Sample i of the raster (counted from the first, for the messages) at the cursor, checked
 * against the maxval. 0 with *v set, or -1 with the reason. */
static int read_sample(cursor *c, const pnm_header *h, size_t i, unsigned long *v, char *err,
                       size_t err_size)
{
    unsigned long x, y;
    if (h->text) {
        const uint8_t *digits = NULL;
        int n = 0, st = parse_number(c, h->maxval, v, &digits, &n);
        if (st == NUM_OK)
            return 0;
        char ch[8];
        locate(i, h->channels, (int)h->width, &x, &y);
        if (st == NUM_END)
            return io_fail(err, err_size, "%s: pixel data truncated: the file ends before the "
                           "sample at (%lu, %lu)", c->name, x, y);
        if (st == NUM_NOT_A_NUMBER)
            return io_fail(err, err_size, "%s: the sample at (%lu, %lu) is not a number "
                           "(found %s)", c->name, x, y, show(*c->p, ch));
        return io_fail(err, err_size, "%s: the sample at (%lu, %lu) is %.*s%s, more than "
                       "the maxval %lu", c->name, x, y, n > 20 ? 20 : n,
                       (const char *)digits, n > 20 ? "..." : "", h->maxval);
    }
    if (h->maxval > 255) {
        *v = (unsigned long)c->p[0] << 8 | c->p[1]; /* big-endian, as netpbm writes */
        c->p += 2;
    } else {
        *v = *c->p++;
    }
    if (*v > h->maxval) {
        locate(i, h->channels, (int)h->width, &x, &y);
        return io_fail(err, err_size, "%s: the sample at (%lu, %lu) is %lu, more than the "
                       "maxval %lu", c->name, x, y, *v, h->maxval);
    }
    return 0;
}

int pnm_decode(const uint8_t *data, size_t size, long max_pixels, io_image *img, char *err,
               size_t err_size)
{
    cursor c;
    pnm_header h;
    void *pixels = NULL;
    const io_allocator *from = NULL;

    if (!img)
        return io_fail(err, err_size, "PNM: no data to decode");
    if (pnm_begin(data, size, max_pixels, &c, &h, err, err_size))
        return -1;
    const int depth = h.maxval > 255 ? 16 : 8;
    const size_t samples = (size_t)h.width * h.height * (size_t)h.channels;
    pixels = io_pixels_alloc(io_image_bytes((long)h.width, (long)h.height, h.channels, depth),
                             &from);
    if (!pixels)
        return io_fail(err, err_size, "%s: out of memory for a %lu x %lu image", c.name, h.width,
                       h.height);
    for (size_t i = 0; i < samples; i++) {
        unsigned long v = 0;
        if (read_sample(&c, &h, i, &v, err, err_size)) {
            io_pixels_free(pixels, from);
            return -1;
        }
        put_sample(pixels, depth, i, v);
    }
    img->width = (int)h.width;
    img->height = (int)h.height;
    img->channels = h.channels;
    img->depth = depth;
    img->maxval = (int)h.maxval;
    img->pixels = pixels;
    img->allocator = from;
    return 0;
}

int pnm_encode(FILE *f, const io_image *img, const char *path, char *err, size_t err_size)
{
    uint8_t *row = NULL;
    int rc = -1;

    if (io_check_image(img, path, err, err_size))
        return -1;
    size_t per_row = (size_t)img->width * (size_t)img->channels;
    size_t bytes = img->maxval > 255 ? 2 : 1;
    row = malloc(per_row * bytes);
    if (!row)
        return io_fail(err, err_size, "%s: out of memory", path);
    errno = 0;
    if (fprintf(f, "P%c\n%d %d\n%d\n", img->channels == 1 ? '5' : '6', img->width, img->height,
                img->maxval) < 0)
        goto io_error;
    for (size_t y = 0; y < (size_t)img->height; y++) {
        for (size_t i = 0; i < per_row; i++) {
            size_t k = y * per_row + i;
            unsigned v = img->depth == 16 ? ((const uint16_t *)img->pixels)[k]
                                          : ((const uint8_t *)img->pixels)[k];
            /* A sample above the maxval would make a file that every reader refuses. */
            if (v > (unsigned)img->maxval) {
                io_fail(err, err_size, "%s: the sample at (%lu, %lu) is %u, more than the maxval %d",
                        path, (unsigned long)(i / (size_t)img->channels), (unsigned long)y, v,
                        img->maxval);
                goto done;
            }
            if (bytes == 2) {
                row[2 * i] = (uint8_t)(v >> 8);
                row[2 * i + 1] = (uint8_t)v;
            } else {
                row[i] = (uint8_t)v;
            }
        }
        if (fwrite(row, bytes, per_row, f) != per_row)
            goto io_error;
    }
    rc = 0;
    goto done;
io_error:
    io_fail(err, err_size, "%s: write error: %s", path, strerror(errno ? errno : EIO));
done:
    free(row);
    return rc;
}

/* ---- Row by row ----------------------------------------------------------------------- */

struct pnm_rows {
    cursor c;
    pnm_header h;
    size_t next; /* the row pnm_rows_next gives next */
};

int pnm_rows_open(const uint8_t *data, size_t size, long max_pixels, pnm_rows **out,
                  io_header *hd, char *err, size_t err_size)
{
    pnm_rows *r = calloc(1, sizeof *r);
    if (!r)
        return io_fail(err, err_size, "PNM: out of memory for the row reader");
    if (pnm_begin(data, size, max_pixels, &r->c, &r->h, err, err_size)) {
        free(r);
        return -1;
    }
    *hd = (io_header){(int)r->h.width, (int)r->h.height, r->h.channels,
                      r->h.maxval > 255 ? 16 : 8, (int)r->h.maxval};
    *out = r;
    return 0;
}

int pnm_rows_next(pnm_rows *r, void *row, char *err, size_t err_size)
{
    const size_t per_row = (size_t)r->h.width * (size_t)r->h.channels;
    const int depth = r->h.maxval > 255 ? 16 : 8;
    if (r->next >= r->h.height)
        return io_fail(err, err_size, "%s: no row %lu: the image has %lu", r->c.name,
                       (unsigned long)r->next, r->h.height);
    for (size_t i = 0; i < per_row; i++) {
        unsigned long v = 0;
        if (read_sample(&r->c, &r->h, r->next * per_row + i, &v, err, err_size))
            return -1;
        put_sample(row, depth, i, v);
    }
    r->next++;
    return 0;
}

void pnm_rows_close(pnm_rows *r)
{
    free(r);
}

struct pnm_writer {
    FILE *f;
    int width, height, channels, maxval, depth;
    int next;
    uint8_t *row; /* one row as the file holds it */
    const char *path;
};

int pnm_writer_begin(FILE *f, int width, int height, int channels, int depth, int maxval,
                     const char *path, pnm_writer **out, char *err, size_t err_size)
{
    const io_image shape = {width, height, channels, depth, maxval, (void *)path, NULL};
    pnm_writer *w;
    uint8_t *row;
    if (io_check_image(&shape, path, err, err_size))
        return -1;
    row = malloc((size_t)width * (size_t)channels * (maxval > 255 ? 2u : 1u));
    if (!row || !(w = malloc(sizeof *w))) {
        free(row);
        return io_fail(err, err_size, "%s: out of memory", path);
    }
    *w = (pnm_writer){f, width, height, channels, maxval, depth, 0, row, path};
    errno = 0;
    if (fprintf(f, "P%c\n%d %d\n%d\n", channels == 1 ? '5' : '6', width, height, maxval) < 0) {
        io_fail(err, err_size, "%s: write error: %s", path, strerror(errno ? errno : EIO));
        pnm_writer_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int pnm_writer_row(pnm_writer *w, const void *samples, char *err, size_t err_size)
{
    const size_t per_row = (size_t)w->width * (size_t)w->channels;
    const size_t bytes = w->maxval > 255 ? 2 : 1;
    if (w->next >= w->height)
        return io_fail(err, err_size, "%s: more rows than the image's %d", w->path, w->height);
    for (size_t i = 0; i < per_row; i++) {
        unsigned v = w->depth == 16 ? ((const uint16_t *)samples)[i]
                                    : ((const uint8_t *)samples)[i];
        /* pnm_encode's check, with its words. */
        if (v > (unsigned)w->maxval)
            return io_fail(err, err_size,
                           "%s: the sample at (%lu, %lu) is %u, more than the maxval %d", w->path,
                           (unsigned long)(i / (size_t)w->channels), (unsigned long)w->next, v,
                           w->maxval);
        if (bytes == 2) {
            w->row[2 * i] = (uint8_t)(v >> 8);
            w->row[2 * i + 1] = (uint8_t)v;
        } else {
            w->row[i] = (uint8_t)v;
        }
    }
    errno = 0;
    if (fwrite(w->row, bytes, per_row, w->f) != per_row)
        return io_fail(err, err_size, "%s: write error: %s", w->path,
                       strerror(errno ? errno : EIO));
    w->next++;
    return 0;
}

int pnm_writer_end(pnm_writer *w, char *err, size_t err_size)
{
    if (w->next != w->height)
        return io_fail(err, err_size, "%s: %d of %d rows written", w->path, w->next, w->height);
    return 0;
}

void pnm_writer_free(pnm_writer *w)
{
    if (w)
        free(w->row);
    free(w);
}
