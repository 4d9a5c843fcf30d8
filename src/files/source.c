/* source.c - an input from a file or standard input, identified by its first bytes, checked up
 * to its header before its pixels are decoded (source.h). */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stream_bounds.h"
#include "text.h"

int source_is_stdin(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

const char *source_name(const char *path)
{
    return source_is_stdin(path) ? "standard input" : path;
}

/* "NAME: why" into err, the name escaped and shortened (text.h). Returns -1. */
static int fail_named(const char *path, const char *why, char *err, size_t err_size)
{
    text_shown shown;
    if (err && err_size)
        snprintf(err, err_size, "%s: %s", text_show(source_name(path), &shown), why);
    return -1;
}

/* Up to n bytes from fd; fewer only at the end of the input. The count, or -1 (errno set). */
static ssize_t read_full(int fd, uint8_t *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* The rest of fd after the head bytes, into a buffer that grows as it goes (a pipe has no size;
 * a regular file's size only saves copies). 0, or -1 with the reason in why. */
static int read_rest(int fd, const struct stat *st, const uint8_t *head, size_t head_len,
                     uint8_t **out, size_t *out_size, char *why, size_t why_size)
{
    size_t cap = 65536, len = head_len;
    uint8_t *buf;
    if (S_ISREG(st->st_mode) && st->st_size >= 0 && (uint64_t)st->st_size < SOURCE_MAX_BYTES)
        cap = (size_t)st->st_size + 1; /* + 1: reaching the end needs no extra growth */
    if (cap < head_len)
        cap = head_len;
    if (!(buf = malloc(cap))) {
        snprintf(why, why_size, "out of memory reading the file");
        return -1;
    }
    memcpy(buf, head, head_len);
    for (;;) {
        if (len == cap) {
            if (cap > SOURCE_MAX_BYTES) {
                snprintf(why, why_size, "larger than the %lu MiB limit",
                         (unsigned long)(SOURCE_MAX_BYTES >> 20));
                free(buf);
                return -1;
            }
            /* One byte past the limit is enough to know the input passes it. */
            size_t grown = cap * 2 > SOURCE_MAX_BYTES + 1 ? SOURCE_MAX_BYTES + 1 : cap * 2;
            uint8_t *more = realloc(buf, grown);
            if (!more) {
                snprintf(why, why_size, "out of memory reading the file");
                free(buf);
                return -1;
            }
            buf = more;
            cap = grown;
        }
        ssize_t got = read_full(fd, buf + len, cap - len);
        if (got < 0) {
            snprintf(why, why_size, "read error: %s", strerror(errno));
            free(buf);
            return -1;
        }
        len += (size_t)got;
        if (len < cap) /* read_full stops short only at the end */
            break;
    }
    *out = buf;
    *out_size = len;
    return 0;
}

/* A PNG, JPEG or PGM/PPM from standard input or a pipe: read as far as its image goes, no
 * further (stream_bounds.h: once the header gives the size, no more than that size's data can
 * take; before, at most IO_STREAM_MAX_META bytes of metadata), its size checked against the
 * pixel limit as soon as the header gives it (lim, NULL: none). Bytes that the scanner knows to
 * be the image's (a chunk, a segment, a raster) are read exactly; where it cannot know (a JPEG's
 * entropy-coded data, a PGM/PPM header), in blocks of up to STREAM_BLOCK bytes, one read each,
 * so that a small image may leave up to a block of what follows it read and dropped. 0, or -1
 * with the reason in why. */
#define STREAM_BLOCK ((size_t)65536)
static int read_stream(int fd, io_format fmt, const io_limits *lim, const uint8_t *head,
                       size_t head_len, uint8_t **out, size_t *out_size, char *why,
                       size_t why_size)
{
    io_stream scan;
    size_t len = head_len, cap = STREAM_BLOCK > head_len ? STREAM_BLOCK : head_len;
    uint8_t *buf = malloc(cap);
    int sized = 0;
    if (!buf) {
        snprintf(why, why_size, "out of memory reading the stream");
        return -1;
    }
    memcpy(buf, head, head_len);
    io_stream_init(&scan, fmt);
    for (;;) {
        size_t want = 0;
        const io_stream_status st = io_stream_scan(&scan, buf, len, &want, why, why_size);
        if (st == IO_STREAM_REFUSED)
            goto fail;
        if (scan.have_size && !sized && lim) { /* an image too large is refused unread */
            if (io_limits_check_pixels(scan.width, scan.height, lim, why, why_size))
                goto fail;
            sized = 1;
        }
        if (st == IO_STREAM_END) {
            len = scan.end;
            break;
        }
        if (want > SOURCE_MAX_BYTES) {
            snprintf(why, why_size, "larger than the %lu MiB limit",
                     (unsigned long)(SOURCE_MAX_BYTES >> 20));
            goto fail;
        }
        const int exact = want > len + 1;
        /* Memory follows the bytes that arrive, not what a header claims: a chunk or segment
         * of a claimed length is read in steps that at most double what has come so far (a
         * 100-byte stream claiming a 1 GB chunk costs a block, not a gigabyte). */
        const size_t step = len > STREAM_BLOCK ? len : STREAM_BLOCK;
        size_t goal = !exact ? len + STREAM_BLOCK : want - len > step ? len + step : want;
        if (goal > scan.limit)
            goal = scan.limit; /* >= want: the scanner never asks past its limit */
        if (goal > SOURCE_MAX_BYTES)
            goal = SOURCE_MAX_BYTES; /* >= want, checked above */
        if (goal > cap) {
            size_t grown = cap * 2 > goal ? cap * 2 : goal;
            if (grown > scan.limit)
                grown = goal;
            uint8_t *more = realloc(buf, grown);
            if (!more) {
                snprintf(why, why_size, "out of memory reading the stream (%zu bytes)", grown);
                goto fail;
            }
            buf = more;
            cap = grown;
        }
        ssize_t got;
        if (exact) {
            got = read_full(fd, buf + len, goal - len);
        } else {
            while ((got = read(fd, buf + len, goal - len)) < 0 && errno == EINTR)
                ;
        }
        if (got < 0) {
            snprintf(why, why_size, "read error: %s", strerror(errno));
            goto fail;
        }
        len += (size_t)got;
        if (got == 0 || (exact && len < goal))
            break; /* the stream's end: what came is the decoder's to judge */
    }
    *out = buf;
    *out_size = len;
    return 0;
fail:
    free(buf);
    return -1;
}

/* Why an input of this kind is refused before a byte of it is read, or NULL: a folder; a
 * terminal, which would have the tool wait for typing; a block device or a socket named as a
 * file (standard input may be a socket: some shells make their pipes so). */
static const char *refused_unread(const struct stat *st, int fd, int from_stdin)
{
    if (S_ISDIR(st->st_mode))
        return "a folder, not an image file";
    if (isatty(fd))
        return from_stdin ? "a terminal; pipe or redirect an image into it (-s - < in.png)"
                          : "a terminal, not a file; refusing to read it";
    if (S_ISBLK(st->st_mode))
        return "a block device, not a file; refusing to read it";
    if (S_ISSOCK(st->st_mode) && !from_stdin)
        return "a socket, not a file";
    return NULL;
}

/* A FIFO named as an input (not standard input): its first bytes, or its writer's end, within
 * SOURCE_FIFO_WAIT_MS. Opened without O_NONBLOCK, a FIFO that nobody opens for writing would hold
 * the run (a whole batch) at open() for ever. 0, or -1 with the reason in why. Blocking reads
 * from then on. */
static int await_writer(int fd, char *why, size_t why_size)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n;
    do
        n = poll(&p, 1, SOURCE_FIFO_WAIT_MS);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        return -1;
    }
    if (n == 0) {
        snprintf(why, why_size, "a FIFO that sent nothing for %d s (no writer?)",
                 SOURCE_FIFO_WAIT_MS / 1000);
        return -1;
    }
    return 0;
}

/* path ("-": standard input) open, its status in *st, its kind judged before anything is read.
 * 0 with *fd set, or -1 with the reason in why and nothing left open. */
static int open_input(const char *path, int *fd, struct stat *st, char *why, size_t why_size)
{
    const int from_stdin = source_is_stdin(path);
    const char *refused;
    *fd = from_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        return -1;
    }
    if (fstat(*fd, st) != 0)
        snprintf(why, why_size, "%s", strerror(errno));
    else if ((refused = refused_unread(st, *fd, from_stdin)) != NULL)
        snprintf(why, why_size, "%s", refused);
    else if (S_ISREG(st->st_mode) && (uint64_t)st->st_size > SOURCE_MAX_BYTES)
        snprintf(why, why_size, "larger than the %lu MiB limit",
                 (unsigned long)(SOURCE_MAX_BYTES >> 20));
    else if (!from_stdin && S_ISFIFO(st->st_mode) && await_writer(*fd, why, why_size) != 0)
        ; /* why says it */
    else if (!from_stdin && fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0)
        snprintf(why, why_size, "%s", strerror(errno));
    else
        return 0;
    if (!from_stdin)
        close(*fd);
    *fd = -1;
    return -1;
}

/* The first bytes of the open input, and its format from them: the first bytes alone decide
 * whether the rest is worth reading, so that an endless stream of zeros or text is refused
 * having cost a few bytes. A character device is refused after them whatever they are: it has
 * no end to trust. 0, or -1 with the reason in why. */
static int identify(int fd, const struct stat *st, uint8_t head[IO_IDENTIFY_BYTES], size_t *n,
                    io_format *fmt, char *why, size_t why_size)
{
    ssize_t got = read_full(fd, head, IO_IDENTIFY_BYTES);
    if (got < 0) {
        snprintf(why, why_size, "read error: %s", strerror(errno));
        return -1;
    }
    *n = (size_t)got;
    if (io_identify(head, *n, fmt, why, why_size))
        return -1;
    if (S_ISCHR(st->st_mode)) {
        snprintf(why, why_size, "a character device, not a file; refusing to read it");
        return -1;
    }
    return 0;
}

/* The whole input after its head: standard input and pipes as far as their image goes (stream
 * is 1 for them: read_stream, with lim's pixel limit); anything else read. Never mapped: a file
 * that shrinks while it is read then gives a short read, which the decoder refuses as a
 * truncated file, where a mapping would end the whole process with SIGBUS. */
static int take_whole(int fd, const struct stat *st, int stream, io_format fmt,
                      const io_limits *lim, const uint8_t *head, size_t n, source *s, char *why,
                      size_t why_size)
{
    if (stream && fmt != IO_FORMAT_BMP)
        return read_stream(fd, fmt, lim, head, n, &s->data, &s->size, why, why_size);
    return read_rest(fd, st, head, n, &s->data, &s->size, why, why_size);
}

int source_read(const char *path, source *s, char *err, size_t err_size)
{
    const int from_stdin = source_is_stdin(path);
    uint8_t head[IO_IDENTIFY_BYTES];
    char why[256] = "";
    struct stat st;
    source got = {NULL, 0, IO_FORMAT_BMP};
    size_t n = 0;
    int fd, rc = -1;

    if (open_input(path, &fd, &st, why, sizeof why))
        return fail_named(path, why, err, err_size);
    if (identify(fd, &st, head, &n, &got.format, why, sizeof why) == 0 &&
        take_whole(fd, &st, from_stdin || !S_ISREG(st.st_mode), got.format, NULL, head, n, &got,
                   why, sizeof why) == 0) {
        *s = got;
        rc = 0;
    }
    if (!from_stdin)
        close(fd);
    return rc ? fail_named(path, why, err, err_size) : 0;
}

void source_free(source *s)
{
    free(s->data);
    s->data = NULL;
    s->size = 0;
}

int source_decode(const source *s, const char *name, long max_pixels, long max_pixels_per_byte,
                  io_image *img, char *err, size_t err_size)
{
    char why[512] = "";
    text_shown shown;
    if (s->format == IO_FORMAT_BMP) {
        /* The BMP reader directly, not io_decode's wrapper, so that its messages read as they
         * always have ("in.bmp: RLE run of ...", no "BMP:" between). */
        bmp_image b;
        if (bmp_decode_limited(s->data, s->size, max_pixels, &b, why, sizeof why)) {
            snprintf(err, err_size, "%s: %s", text_show(name, &shown), why);
            return -1;
        }
        *img = (io_image){b.width, b.height, 3, 8, 255, b.rgb, NULL};
        return 0;
    }
    if (io_decode(s->data, s->size, max_pixels, max_pixels_per_byte, img, why, sizeof why)) {
        snprintf(err, err_size, "%s: %s", text_show(name, &shown), why);
        return -1;
    }
    return 0;
}

/* ---- Header first ---------------------------------------------------------------------- */

/* The bomb guard's ratio for io_decode from the reader's limits (0: lifted). */
static long ratio_of(const io_limits *lim)
{
    return lim->allow_high_ratio ? 0 : IO_MAX_PIXELS_PER_BYTE;
}

/* A PNG, JPEG or PGM/PPM: the whole input, then its header: the codec's own checks (up to the
 * hard pixel limit, no ratio), then the caller's pixel limit and bomb guard, each with the flag
 * that lifts it. The input is read, never mapped: a file that shrinks while it is read (another
 * program rewriting it) then gives a short read, which the decoder refuses as a truncated file,
 * where a mapping would end the whole process with SIGBUS. 0, or -1 with the reason in why. */
static int open_coded(source_reader *r, const struct stat *st, const uint8_t *head, size_t n,
                      char *why, size_t why_size)
{
    if (take_whole(r->fd, st, r->from_stdin || !S_ISREG(st->st_mode), r->format, &r->lim, head,
                   n, &r->whole, why, why_size))
        return -1;
    r->whole.format = r->format;
    r->held = r->whole.size;
    if (io_probe(r->whole.data, r->whole.size, (long)IO_HARD_MAX_PIXELS, 0, &r->head, why,
                 why_size) ||
        io_limits_check_pixels(r->head.width, r->head.height, &r->lim, why, why_size) ||
        io_check_bomb(r->format, r->head.width, r->head.height, r->whole.size, &r->lim, why,
                      why_size))
        return -1;
    return 0;
}

/* A BMP: the BMP reader takes the input on from its head (its own messages, "NAME: reason"); it
 * reads the file too, never maps it. */
static int open_bmp(source_reader *r, const uint8_t *head, size_t n, char *err, size_t err_size)
{
    if (bmp_reader_open_fd(&r->bmp, r->fd, source_name(r->path), !r->from_stdin, head, n,
                           &r->lim, err, err_size))
        return -1;
    r->bmp_open = 1;
    r->head = (io_header){r->bmp.width, r->bmp.height, 3, 8, 255};
    /* Counted as far as it will be read, or as far as a short input goes. */
    r->held = r->bmp.complete && r->bmp.size < r->bmp.need ? r->bmp.size : r->bmp.need;
    return 0;
}

int source_reader_open(const char *path, const io_limits *lim, source_reader *r, char *err,
                       size_t err_size)
{
    uint8_t head[IO_IDENTIFY_BYTES];
    char why[512] = "";
    struct stat st;
    size_t n = 0;

    memset(r, 0, sizeof *r);
    r->path = path;
    r->from_stdin = source_is_stdin(path);
    if (lim)
        r->lim = *lim;
    else
        io_limits_default(&r->lim);
    if (open_input(path, &r->fd, &st, why, sizeof why))
        return fail_named(path, why, err, err_size);
    if (identify(r->fd, &st, head, &n, &r->format, why, sizeof why)) {
        source_reader_close(r);
        return fail_named(path, why, err, err_size);
    }
    if (r->format == IO_FORMAT_BMP) {
        if (open_bmp(r, head, n, err, err_size) == 0)
            return 0;
        source_reader_close(r);
        return -1;
    }
    if (open_coded(r, &st, head, n, why, sizeof why)) {
        source_reader_close(r);
        return fail_named(path, why, err, err_size);
    }
    return 0;
}

void source_reader_want_luma(source_reader *r)
{
    if (r->format == IO_FORMAT_JPEG) {
        r->luma = 1;
        r->head.channels = 1;
    }
}

void source_reader_use_allocator(source_reader *r, const io_allocator *a)
{
    r->allocator = a;
}

int source_reader_decode(source_reader *r, io_image *img, char *err, size_t err_size)
{
    char why[512] = "";
    if (r->bmp_open) {
        bmp_image b;
        if (bmp_reader_decode(&r->bmp, &b, err, err_size))
            return -1;
        *img = (io_image){b.width, b.height, 3, 8, 255, b.rgb, NULL};
        return 0;
    }
    if (!r->whole.data)
        return fail_named(r->path, "no input to decode", err, err_size);
    if (io_decode_with(r->allocator, r->luma, r->whole.data, r->whole.size,
                       (long)io_limits_max_pixels(&r->lim), ratio_of(&r->lim), img, why,
                       sizeof why))
        return fail_named(r->path, why, err, err_size);
    return 0;
}

int source_reader_coefs(source_reader *r, jpeg_coefs *out, char *err, size_t err_size)
{
    if (r->format != IO_FORMAT_JPEG || !r->whole.data) {
        snprintf(err, err_size, "not a JPEG input");
        return -1;
    }
    io_pixels_use(r->allocator); /* the coefficients' block where decoded pixels would go */
    const int rc = jpeg_coefs_read(r->whole.data, r->whole.size, r->luma,
                                   (long)io_limits_max_pixels(&r->lim), ratio_of(&r->lim), out,
                                   err, err_size);
    io_pixels_use(NULL);
    return rc;
}

int source_reader_bmp_bytes(source_reader *r, uint8_t **data, size_t *size,
                            const io_allocator **from, char *err, size_t err_size)
{
    *from = NULL;
    if (!r->bmp_open)
        return fail_named(r->path, "not a BMP file", err, err_size);
    const size_t n = bmp_reader_buffer_size(&r->bmp);
    uint8_t *buf = r->allocator && n ? r->allocator->alloc(r->allocator->arg, n) : NULL;
    if (!buf)
        return bmp_reader_bytes(&r->bmp, data, size, err, err_size);
    if (bmp_reader_bytes_into(&r->bmp, buf, n, size, err, err_size)) {
        r->allocator->release(r->allocator->arg, buf);
        return -1;
    }
    *data = buf;
    *from = r->allocator;
    return 0;
}

void source_reader_close(source_reader *r)
{
    if (r->bmp_open)
        bmp_reader_close(&r->bmp);
    r->bmp_open = 0;
    source_free(&r->whole);
    if (r->fd >= 0 && !r->from_stdin)
        close(r->fd);
    r->fd = -1;
}
