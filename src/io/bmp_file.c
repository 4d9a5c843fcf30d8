/*
 * bmp_file.c - BMP files and streams read (bmp.h's bmp_reader): the header first, then only
 * as many bytes as it makes meaningful, so that a hostile file costs nothing before it is
 * refused.
 */
#include "bmp_header.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "text.h"

/* The largest file bmp_reader_open reads: far above any image within IO_HARD_MAX_PIXELS at 24 bits per
 * pixel, and low enough that a size never approaches the limits of 32-bit arithmetic. */
#define BMP_MAX_FILE_SIZE ((size_t)2 << 30)

/* What a pipe must deliver before its header can be judged: the file header and the longest
 * info header (14 + 124 bytes) and the masks that may follow a 40-byte one (16). */
#define BMP_HEAD_BYTES (FILE_HEADER_SIZE + 124u + 16u)

/* The most bytes a file with this header can usefully hold: uncompressed, the end of its last
 * row; RLE, 4 bytes a pixel (a 1-pixel delta, the costliest honest code) and the end-of-line
 * and end-of-bitmap codes. What a pipe sends beyond that is not read. */
static size_t meaningful_bytes(const bmp_info *info)
{
    uint64_t n;
    if (info->compression == BI_RLE8 || info->compression == BI_RLE4) {
        n = (uint64_t)info->offbits + 4u * (uint64_t)info->width * (uint64_t)info->height +
            2u * (uint64_t)info->height + 2u;
    } else {
        uint64_t row_bits = (uint64_t)info->width * info->bpp;
        n = (uint64_t)info->offbits + (row_bits + 31u) / 32u * 4u * (uint64_t)info->height;
    }
    return n > BMP_MAX_FILE_SIZE ? BMP_MAX_FILE_SIZE : (size_t)n;
}

/* Reads from the reader's descriptor until it holds `want` bytes or the input ends, growing the
 * buffer only as far as want: for a regular file at once to its size (one allocation, one
 * copy out of the page cache), for a pipe step by step. Returns 0 (r->complete set at the end of
 * the input, which for a file that shrank since it was opened comes early), or -1. */
int bmp_read_until(bmp_reader *r, size_t want, char *why, size_t why_size)
{
    while (r->size < want && !r->complete) {
        if (r->size == r->cap) {
            size_t ncap = r->cap ? r->cap * 2 : 65536;
            if (r->file_size > ncap)
                ncap = r->file_size;
            if (ncap > want)
                ncap = want;
            uint8_t *nbuf = realloc(r->buf, ncap);
            if (!nbuf)
                return io_fail(why, why_size, "out of memory reading the file (%lu bytes)",
                               (unsigned long)ncap);
            r->buf = nbuf;
            r->cap = ncap;
        }
        ssize_t got = read(r->fd, r->buf + r->size, r->cap - r->size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return io_fail(why, why_size, "read error: %s", strerror(errno));
        if (got == 0)
            r->complete = 1;
        r->size += (size_t)got;
    }
    r->data = r->buf;
    return 0;
}

/* What kind of file st is, for a refusal; NULL for the kinds that are read (a regular file, a
 * pipe or FIFO). A device is refused before a byte is read: /dev/zero has no end. */
static const char *unreadable_kind(const struct stat *st)
{
    if (S_ISDIR(st->st_mode))
        return "a folder, not a file";
    if (S_ISCHR(st->st_mode))
        return "a character device, not a file; refusing to read it";
    if (S_ISBLK(st->st_mode))
        return "a block device, not a file; refusing to read it";
    if (S_ISSOCK(st->st_mode))
        return "a socket, not a file";
    return NULL;
}

/* The reader's fields before anything is read: nothing to close yet. */
static void reader_init(bmp_reader *r, const char *path, const io_limits *lim)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    if (lim)
        r->lim = *lim;
    else
        io_limits_default(&r->lim);
    r->path = path;
}

/* The header of the file open on r->fd (of status st, a kind that may be read), of which head
 * holds the first n bytes already read: checked against the limits, and r's size and need set.
 * Only the header is read here, so that a stream that is not a BMP is refused after a few
 * bytes and a hostile file costs nothing before it is refused. With sized, a regular file's
 * size is the whole input's: the bomb guard judges it now, and the pixels are later read into
 * one buffer of that size. 0, or -1 with the reason in why. */
static int reader_start(bmp_reader *r, const struct stat *st, int sized, const uint8_t *head,
                        size_t n, char *why, size_t why_size)
{
    bmp_info info;
    uint32_t comp, clr_used;
    memset(&info, 0, sizeof info);
    if (sized && S_ISREG(st->st_mode)) {
        if ((uint64_t)st->st_size > BMP_MAX_FILE_SIZE)
            return io_fail(why, why_size, "file is larger than the %lu MiB limit",
                           (unsigned long)(BMP_MAX_FILE_SIZE >> 20));
        r->file_size = (size_t)st->st_size;
    }
    /* What the caller has read of it already comes first. */
    if (n > 0) {
        if (!(r->buf = malloc(n)))
            return io_fail(why, why_size, "out of memory reading the file");
        memcpy(r->buf, head, n);
        r->size = r->cap = n;
        r->data = r->buf;
    }
    if (bmp_read_until(r, BMP_HEAD_BYTES, why, why_size))
        return -1;
    if (bmp_parse_core(r->data, r->size, &r->lim, &info, &comp, &clr_used, why, why_size))
        return -1;
    /* With the file's size known the ratio check can refuse a bomb before any allocation. */
    const size_t whole = r->complete ? r->size : r->file_size;
    if ((info.compression == BI_RLE8 || info.compression == BI_RLE4) && info.offbits < whole &&
        io_limits_check_ratio(info.width, info.height, whole - info.offbits,
                              BMP_RLE_MAX_RATIO, info.compression == BI_RLE8 ? "RLE8" : "RLE4",
                              &r->lim, why, why_size))
        return -1;
    r->width = info.width;
    r->height = info.height;
    r->plain_bpp = info.compression == BI_RGB ? info.bpp : 0;
    r->need = meaningful_bytes(&info);
    return 0;
}

int bmp_reader_open(bmp_reader *r, const char *path, const io_limits *lim, char *err,
                    size_t err_size)
{
    char why[256] = "";
    struct stat st;
    int rc = -1;

    reader_init(r, path, lim);
    r->own_fd = 1;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0 || fstat(r->fd, &st) != 0) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        goto done;
    }
    const char *kind = unreadable_kind(&st);
    if (kind) {
        snprintf(why, sizeof why, "%s", kind);
        goto done;
    }
    rc = reader_start(r, &st, 1, NULL, 0, why, sizeof why);
done:
    if (rc != 0) {
        text_shown shown;
        io_fail(err, err_size, "%s: %s", text_show(path, &shown), why);
        bmp_reader_close(r);
    }
    return rc;
}

int bmp_reader_open_fd(bmp_reader *r, int fd, const char *name, int sized, const uint8_t *head,
                       size_t n, const io_limits *lim, char *err, size_t err_size)
{
    char why[256] = "";
    struct stat st;
    int rc = -1;

    reader_init(r, name, lim);
    r->fd = fd; /* the caller's: bmp_reader_close leaves it open */
    if (fstat(fd, &st) != 0)
        snprintf(why, sizeof why, "%s", strerror(errno));
    else
        rc = reader_start(r, &st, sized, head, n, why, sizeof why);
    if (rc != 0) {
        text_shown shown;
        io_fail(err, err_size, "%s: %s", text_show(name, &shown), why);
        bmp_reader_close(r);
    }
    return rc;
}

int bmp_reader_decode(bmp_reader *r, bmp_image *img, char *err, size_t err_size)
{
    char why[256] = "";
    int rc = -1;
    if (!r->complete && bmp_read_until(r, r->need, why, sizeof why))
        goto done;
    rc = bmp_decode_with(r->data, r->size, &r->lim, img, why, sizeof why);
done:
    if (rc != 0) {
        text_shown shown;
        io_fail(err, err_size, "%s: %s", text_show(r->path, &shown), why);
    }
    return rc;
}

void bmp_reader_close(bmp_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    if (r->fd >= 0 && r->own_fd)
        close(r->fd);
    r->fd = -1;
    r->data = NULL;
    r->size = r->cap = 0;
}

int bmp_reader_bytes(bmp_reader *r, uint8_t **data, size_t *size, char *err, size_t err_size)
{
    char why[256] = "";
    if (!r->complete && bmp_read_until(r, r->need, why, sizeof why)) {
        text_shown shown;
        return io_fail(err, err_size, "%s: %s", text_show(r->path, &shown), why);
    }
    /* The buffer is handed over as it is (empty for an empty input). */
    *data = r->buf ? r->buf : malloc(1);
    if (!*data) {
        text_shown shown;
        return io_fail(err, err_size, "%s: out of memory reading the file",
                       text_show(r->path, &shown));
    }
    *size = r->size;
    r->buf = NULL;
    r->data = NULL;
    r->size = r->cap = 0;
    return 0;
}

size_t bmp_reader_buffer_size(const bmp_reader *r)
{
    return r->size > r->need ? r->size : r->need;
}

int bmp_reader_bytes_into(bmp_reader *r, uint8_t *buf, size_t cap, size_t *size, char *err,
                          size_t err_size)
{
    char why[256] = "";
    int rc = 0;
    if (cap < bmp_reader_buffer_size(r)) {
        text_shown shown;
        return io_fail(err, err_size, "%s: a buffer of %lu bytes for %lu",
                       text_show(r->path, &shown), (unsigned long)cap,
                       (unsigned long)bmp_reader_buffer_size(r));
    }
    /* The caller's buffer takes the reader's place: it holds `need` bytes, so reading on never
     * grows it, and it is handed back below whatever the read gives. */
    if (r->size)
        memcpy(buf, r->data, r->size);
    free(r->buf);
    r->buf = buf;
    r->data = buf;
    r->cap = cap;
    if (!r->complete && bmp_read_until(r, r->need, why, sizeof why)) {
        text_shown shown;
        rc = io_fail(err, err_size, "%s: %s", text_show(r->path, &shown), why);
    }
    *size = r->size;
    r->buf = NULL;
    r->data = NULL;
    r->size = r->cap = 0;
    return rc;
}

int bmp_load_with(const char *path, const io_limits *lim, bmp_image *img, char *err,
                  size_t err_size)
{
    bmp_reader r;
    if (bmp_reader_open(&r, path, lim, err, err_size))
        return -1;
    int rc = bmp_reader_decode(&r, img, err, err_size);
    bmp_reader_close(&r);
    return rc;
}

int bmp_load(const char *path, bmp_image *img, char *err, size_t err_size)
{
    return bmp_load_with(path, NULL, img, err, err_size);
}

void bmp_free(bmp_image *img)
{
    if (!img)
        return;
    free(img->rgb);
    img->rgb = NULL;
    img->width = 0;
    img->height = 0;
}

int bmp_reader_data(bmp_reader *r, const uint8_t **data, size_t *size, char *err,
                    size_t err_size)
{
    char why[256] = "";
    if (!r->complete && bmp_read_until(r, r->need, why, sizeof why)) {
        text_shown shown;
        return io_fail(err, err_size, "%s: %s", text_show(r->path, &shown), why);
    }
    *data = r->data;
    *size = r->size;
    return 0;
}

