/*
 * bmp_write.c - BMPs written (bmp.h): 8-bit gray with a gray palette or 24-bit, whole to a
 * stream or a file (atomic_file.h), or a row at a time.
 */
#include "bmp_header.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "atomic_file.h"
#include "text.h"

/* Write bottom-up rows of bpp 8 (gray, palette) or 24 (BGR) to f. */
int bmp_layout(int width, int height, int bpp, size_t *file_size, size_t *offbits,
               size_t *stride)
{
    const uint32_t off = 54u + (bpp == 8 ? 1024u : 0u);
    if ((bpp != 8 && bpp != 24) || width <= 0 || height <= 0)
        return -1;
    /* The size fields of the format are 32 bits: a larger image cannot be written as a BMP. */
    const uint64_t stride64 = ((uint64_t)width * (unsigned)bpp + 31u) / 32u * 4u;
    const uint64_t image64 = stride64 * (uint64_t)height;
    if (image64 > UINT32_MAX - off)
        return -1;
    *offbits = off;
    *stride = (size_t)stride64;
    *file_size = (size_t)(off + image64);
    return 0;
}

void bmp_put_headers(uint8_t *out, int width, int height, int bpp)
{
    size_t file_size, offbits, stride;
    if (bmp_layout(width, height, bpp, &file_size, &offbits, &stride))
        return;
    memset(out, 0, 54);
    out[0] = 'B';
    out[1] = 'M';
    put_u32le(out + 2, (uint32_t)file_size);
    put_u32le(out + 10, (uint32_t)offbits);
    put_u32le(out + 14, 40);                    /* BITMAPINFOHEADER */
    put_u32le(out + 18, (uint32_t)width);
    put_u32le(out + 22, (uint32_t)height);      /* positive: rows stored bottom-up */
    put_u16le(out + 26, 1);                     /* planes */
    put_u16le(out + 28, (uint32_t)bpp);
    put_u32le(out + 30, BI_RGB);
    put_u32le(out + 34, (uint32_t)(file_size - offbits));
    put_u32le(out + 38, 2835);                  /* 72 dpi, as most writers put */
    put_u32le(out + 42, 2835);
    put_u32le(out + 46, bpp == 8 ? 256 : 0);    /* colours used */
    for (unsigned i = 0; bpp == 8 && i < 256; i++) { /* the gray palette */
        uint8_t *e = out + 54 + 4 * i;
        e[0] = e[1] = e[2] = (uint8_t)i;
        e[3] = 0;
    }
}

static int write_body(FILE *f, const uint8_t *pixels, int width, int height, unsigned bpp,
                      uint32_t offbits, size_t stride, const char *path, char *err,
                      size_t err_size)
{
    uint8_t hdr[54 + 1024];
    uint8_t *row = NULL;
    text_shown shown;
    int rc = -1;

    bmp_put_headers(hdr, width, height, (int)bpp);
    if (fwrite(hdr, 1, offbits, f) != offbits)
        goto io_error;
    row = calloc(stride, 1); /* calloc: the padding bytes stay zero */
    if (!row) {
        io_fail(err, err_size, "%s: out of memory", text_show(path, &shown));
        goto done;
    }
    for (int y = height - 1; y >= 0; y--) {
        size_t w = (size_t)width;
        if (bpp == 8) {
            memcpy(row, pixels + (size_t)y * w, w);
        } else {
            const uint8_t *src = pixels + (size_t)y * w * 3;
            for (size_t x = 0; x < w; x++) {
                row[x * 3 + 0] = src[x * 3 + 2];
                row[x * 3 + 1] = src[x * 3 + 1];
                row[x * 3 + 2] = src[x * 3 + 0];
            }
        }
        if (fwrite(row, 1, stride, f) != stride)
            goto io_error;
    }
    rc = 0;
    goto done;
io_error:
    io_fail(err, err_size, "%s: write error: %s", text_show(path, &shown), strerror(errno));
done:
    free(row);
    return rc;
}

int bmp_write_stream(FILE *f, const uint8_t *pixels, int width, int height, int bpp,
                     const char *path, char *err, size_t err_size)
{
    size_t file_size, offbits, stride;
    text_shown shown;
    if (bpp != 8 && bpp != 24)
        return io_fail(err, err_size, "%s: cannot write %d bits per pixel",
                       text_show(path, &shown), bpp);
    if (!pixels || width <= 0 || height <= 0)
        return io_fail(err, err_size, "%s: no image to write (%d x %d)", text_show(path, &shown),
                       width, height);
    if (bmp_layout(width, height, bpp, &file_size, &offbits, &stride))
        return io_fail(err, err_size, "%s: %d x %d image too large for a BMP file",
                       text_show(path, &shown), width, height);
    return write_body(f, pixels, width, height, (unsigned)bpp, (uint32_t)offbits, stride, path,
                      err, err_size);
}

static int write_bmp(const char *path, const uint8_t *pixels, int width, int height, int bpp,
                     char *err, size_t err_size)
{
    atomic_file af;
    int rc = -1;
    if (!path || !*path) {
        io_fail(err, err_size, "(no file name): cannot write a BMP");
        return -1;
    }
    if (atomic_file_open(&af, path, err, err_size))
        return -1;
    if (bmp_write_stream(af.f, pixels, width, height, bpp, path, err, err_size) == 0 &&
        atomic_file_close(&af, err, err_size) == 0 && atomic_file_commit(&af, err, err_size) == 0)
        rc = 0;
    atomic_file_discard(&af);
    return rc;
}

int bmp_write_gray8(const char *path, const uint8_t *gray, int width, int height, char *err,
                    size_t err_size)
{
    return write_bmp(path, gray, width, height, 8, err, err_size);
}

int bmp_write_rgb24(const char *path, const uint8_t *rgb, int width, int height, char *err,
                    size_t err_size)
{
    return write_bmp(path, rgb, width, height, 24, err, err_size);
}

struct bmp_writer {
    FILE *f;
    int width, height, bpp;
    size_t offbits, stride;
    int next;     /* the picture row (0 = top) bmp_writer_row takes next */
    uint8_t *row; /* one file row, its padding zero */
    const char *path;
};

int bmp_writer_begin(FILE *f, int width, int height, int bpp, const char *path,
                     bmp_writer **out, char *err, size_t err_size)
{
    uint8_t hdr[54 + 1024];
    size_t file_size, offbits, stride;
    text_shown shown;
    bmp_writer *w;
    uint8_t *row;
    if (bpp != 8 && bpp != 24)
        return io_fail(err, err_size, "%s: cannot write %d bits per pixel",
                       text_show(path, &shown), bpp);
    if (width <= 0 || height <= 0 || bmp_layout(width, height, bpp, &file_size, &offbits, &stride))
        return io_fail(err, err_size, "%s: %d x %d image too large for a BMP file",
                       text_show(path, &shown), width, height);
    row = calloc(stride, 1); /* calloc: the padding bytes stay zero */
    if (!row || !(w = malloc(sizeof *w))) {
        free(row);
        return io_fail(err, err_size, "%s: out of memory", text_show(path, &shown));
    }
    *w = (bmp_writer){f, width, height, bpp, offbits, stride, 0, row, path};
    bmp_put_headers(hdr, width, height, bpp);
    if (fwrite(hdr, 1, offbits, f) != offbits) {
        io_fail(err, err_size, "%s: write error: %s", text_show(path, &shown), strerror(errno));
        bmp_writer_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int bmp_writer_row(bmp_writer *w, const uint8_t *pixels, char *err, size_t err_size)
{
    text_shown shown;
    const size_t n = (size_t)w->width;
    if (w->next >= w->height)
        return io_fail(err, err_size, "%s: more rows than the image's %d",
                       text_show(w->path, &shown), w->height);
    if (w->bpp == 8) {
        memcpy(w->row, pixels, n);
    } else {
        for (size_t x = 0; x < n; x++) {
            w->row[x * 3 + 0] = pixels[x * 3 + 2];
            w->row[x * 3 + 1] = pixels[x * 3 + 1];
            w->row[x * 3 + 2] = pixels[x * 3 + 0];
        }
    }
    /* The file stores the picture bottom-up: picture row y is file row height - 1 - y. A
     * regular file (the staged output) is written at each row's place; the rows below it are
     * written later, so the file is complete only after the last row. */
    const off_t at = (off_t)(w->offbits + w->stride * (size_t)(w->height - 1 - w->next));
    if (fseeko(w->f, at, SEEK_SET) != 0 || fwrite(w->row, 1, w->stride, w->f) != w->stride)
        return io_fail(err, err_size, "%s: write error: %s", text_show(w->path, &shown),
                       strerror(errno ? errno : EIO));
    w->next++;
    return 0;
}

int bmp_writer_end(bmp_writer *w, char *err, size_t err_size)
{
    text_shown shown;
    if (w->next != w->height)
        return io_fail(err, err_size, "%s: %d of %d rows written", text_show(w->path, &shown),
                       w->next, w->height);
    /* The stream is left at the end of the file, as bmp_write_stream leaves it. */
    if (fseeko(w->f, 0, SEEK_END) != 0)
        return io_fail(err, err_size, "%s: write error: %s", text_show(w->path, &shown),
                       strerror(errno ? errno : EIO));
    return 0;
}

void bmp_writer_free(bmp_writer *w)
{
    if (w)
        free(w->row);
    free(w);
}
