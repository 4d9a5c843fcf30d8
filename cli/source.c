/* source.c - an input's bytes from a file or standard input, identified by their first bytes. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bmp.h"

int source_is_stdin(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

const char *source_name(const char *path)
{
    return source_is_stdin(path) ? "standard input" : path;
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

int source_read(const char *path, int map, source *s, char *err, size_t err_size)
{
    const int from_stdin = source_is_stdin(path);
    const char *name = source_name(path);
    uint8_t head[IO_IDENTIFY_BYTES];
    char why[256] = "";
    struct stat st;
    source got = {NULL, 0, IO_FORMAT_BMP, 0};
    int fd = from_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    int rc = -1;

    if (fd < 0) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        goto done;
    }
    if (fstat(fd, &st) != 0) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        goto done;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(why, sizeof why, "a folder, not an image file");
        goto done;
    }
    if (from_stdin && isatty(fd)) {
        snprintf(why, sizeof why, "a terminal; pipe or redirect an image into it (-s - < in.png)");
        goto done;
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > SOURCE_MAX_BYTES) {
        snprintf(why, sizeof why, "larger than the %lu MiB limit",
                 (unsigned long)(SOURCE_MAX_BYTES >> 20));
        goto done;
    }
    /* The first bytes alone decide whether the rest is worth reading: an endless stream of
     * zeros or text is refused here, having cost a few bytes. */
    ssize_t n = read_full(fd, head, sizeof head);
    if (n < 0) {
        snprintf(why, sizeof why, "read error: %s", strerror(errno));
        goto done;
    }
    if (io_identify(head, (size_t)n, &got.format, why, sizeof why))
        goto done;
    if (map && !from_stdin && S_ISREG(st.st_mode) && st.st_size > 0) {
        got.size = (size_t)st.st_size;
        void *m = mmap(NULL, got.size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            snprintf(why, sizeof why, "cannot map the file: %s", strerror(errno));
            goto done;
        }
        got.data = m;
        got.mapped = 1;
    } else if (read_rest(fd, &st, head, (size_t)n, &got.data, &got.size, why, sizeof why)) {
        goto done;
    }
    *s = got;
    rc = 0;
done:
    if (fd >= 0 && !from_stdin)
        close(fd);
    if (rc != 0)
        snprintf(err, err_size, "%s: %s", name, why);
    return rc;
}

void source_free(source *s)
{
    if (s->data && s->mapped)
        munmap(s->data, s->size);
    else
        free(s->data);
    s->data = NULL;
    s->size = 0;
    s->mapped = 0;
}

int source_decode(const source *s, const char *name, long max_pixels, long max_pixels_per_byte,
                  io_image *img, char *err, size_t err_size)
{
    char why[512] = "";
    if (s->format == IO_FORMAT_BMP) {
        /* The BMP reader directly, not io_decode's wrapper, so that its messages read as they
         * always have ("in.bmp: RLE run of ...", no "BMP:" between). */
        bmp_image b;
        if (bmp_decode_limited(s->data, s->size, max_pixels, &b, why, sizeof why)) {
            snprintf(err, err_size, "%s: %s", name, why);
            return -1;
        }
        *img = (io_image){b.width, b.height, 3, 8, 255, b.rgb};
        return 0;
    }
    if (io_decode(s->data, s->size, max_pixels, max_pixels_per_byte, img, why, sizeof why)) {
        snprintf(err, err_size, "%s: %s", name, why);
        return -1;
    }
    return 0;
}
