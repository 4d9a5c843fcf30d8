/* name_list.c - a --files-from list read whole, within its caps (name_list.h). */
#include "name_list.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The reader's state between blocks of the list. */
typedef struct {
    name_list *out;
    const name_list_caps *caps;
    size_t capacity; /* of out->text */
    size_t line_at;  /* where the current line's bytes start in out->text */
    size_t raw;      /* the current line's bytes so far, carriage returns included */
    long line;       /* its number, from 1 */
    char *err;
    size_t err_size;
} reader;

/* Room for `more` bytes after out->text's size. The text never holds more than the bytes read
 * and one NUL, so it grows at most to the byte cap and two. 0, or -1 out of memory. */
static int reserve(reader *r, size_t more)
{
    name_list *l = r->out;
    if (l->size + more <= r->capacity)
        return 0;
    size_t grown = r->capacity ? 2 * r->capacity : 65536;
    const size_t most = r->caps->max_bytes + 2;
    if (grown > most)
        grown = most;
    if (grown < l->size + more)
        grown = l->size + more;
    char *text = realloc(l->text, grown);
    if (!text) {
        snprintf(r->err, r->err_size, "out of host memory at line %ld", r->line);
        return -1;
    }
    l->text = text;
    r->capacity = grown;
    return 0;
}

/* The current line ends: one trailing carriage return dropped (a Windows line end; a name
 * may end in another), kept as a name unless it is empty. 0, or 2 past the names cap, or 1 out of memory. */
static int end_line(reader *r)
{
    name_list *l = r->out;
    if (l->size > r->line_at && l->text[l->size - 1] == '\r')
        l->size--;
    if (l->size - r->line_at > NAME_LIST_MAX_NAME) {
        snprintf(r->err, r->err_size, "line %ld: longer than %d bytes, more than a path can "
                                      "have (PATH_MAX)", r->line, NAME_LIST_MAX_NAME);
        return 2;
    }
    if (l->size > r->line_at) {
        if (l->count >= r->caps->max_names) {
            snprintf(r->err, r->err_size, "line %ld: more than %ld names, the most a list may "
                                          "hold", r->line, r->caps->max_names);
            return 2;
        }
        if (reserve(r, 1))
            return 1;
        l->text[l->size++] = '\0';
        l->count++;
    }
    r->line_at = l->size;
    r->raw = 0;
    r->line++;
    return 0;
}

/* A block of the list: each line's bytes checked (no NUL, not too long) before they are kept.
 * 0, 2 (refused) or 1 (out of memory). */
static int take(reader *r, const unsigned char *p, size_t n)
{
    while (n > 0) {
        /* Empty lines cost a count each, so that a gigabyte of them (`yes ''`) takes about a
         * second to reach the byte cap. */
        for (; r->raw == 0 && n > 0 && *p == '\n'; p++, n--)
            r->line++;
        if (n == 0)
            return 0;
        const unsigned char *nl = memchr(p, '\n', n);
        const size_t seg = nl ? (size_t)(nl - p) : n;
        const unsigned char *nul = memchr(p, '\0', seg);
        if (nul) {
            snprintf(r->err, r->err_size, "line %ld: a NUL byte (a list is text, one name a "
                                          "line)", r->line);
            return 2;
        }
        /* One carriage return more than a name may have: a Windows line end. */
        if (r->raw + seg > (size_t)NAME_LIST_MAX_NAME + 1) {
            snprintf(r->err, r->err_size, "line %ld: longer than %d bytes, more than a path "
                                          "can have (PATH_MAX)", r->line, NAME_LIST_MAX_NAME);
            return 2;
        }
        if (reserve(r, seg))
            return 1;
        memcpy(r->out->text + r->out->size, p, seg);
        r->out->size += seg;
        r->raw += seg;
        if (!nl)
            return 0;
        const int rc = end_line(r);
        if (rc)
            return rc;
        p = nl + 1;
        n -= seg + 1;
    }
    return 0;
}

int name_list_read(FILE *f, const name_list_caps *caps, name_list *out, char *err,
                   size_t err_size)
{
    static const name_list_caps tool_caps = {NAME_LIST_MAX_NAMES, NAME_LIST_MAX_BYTES};
    unsigned char block[65536];
    size_t total = 0;
    int rc = 0;
    memset(out, 0, sizeof *out);
    reader r = {out, caps ? caps : &tool_caps, 0, 0, 0, 1, err, err_size};
    for (;;) {
        size_t n = fread(block, 1, sizeof block, f);
        if (n == 0)
            break;
        /* Only the bytes within the cap are taken: what lies beyond is not kept. */
        const size_t room = r.caps->max_bytes - total;
        if ((rc = take(&r, block, n < room ? n : room)) != 0)
            break;
        if (n > room) {
            snprintf(err, err_size, "line %ld: the list passes %zu bytes, the most it may hold",
                     r.line, r.caps->max_bytes);
            rc = 2;
            break;
        }
        total += n;
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, err_size, "read error: %s", strerror(errno ? errno : EIO));
        rc = 1;
    }
    if (rc == 0 && r.raw > 0) /* a last line without its line end */
        rc = end_line(&r);
    if (rc)
        name_list_free(out);
    return rc;
}

const char *name_list_next(const name_list *l, const char *name)
{
    if (!name)
        return l->count > 0 ? l->text : NULL;
    const char *next = name + strlen(name) + 1;
    return next < l->text + l->size ? next : NULL;
}

void name_list_free(name_list *l)
{
    free(l->text);
    memset(l, 0, sizeof *l);
}
