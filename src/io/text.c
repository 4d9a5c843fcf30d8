/* text.c - escaping and shortening text for one-line messages (text.h). */
#include "text.h"

#include <stdarg.h>

#include <stdio.h>
#include <string.h>

/* The next unit of s as a message shows it, into out (at most 4 bytes and a NUL): a control
 * character escaped, a UTF-8 sequence whole (so that a cut never splits a character), or the
 * byte itself. *used receives how many bytes of s the unit took; returns the shown length. */
static size_t next_unit(const char *s, char out[5], size_t *used)
{
    const unsigned char c = (unsigned char)s[0];
    size_t n = 1;
    *used = 1;
    switch (c) {
    case '\n': return (size_t)snprintf(out, 5, "\\n");
    case '\r': return (size_t)snprintf(out, 5, "\\r");
    case '\t': return (size_t)snprintf(out, 5, "\\t");
    default:
        break;
    }
    if (c < 0x20 || c == 0x7f)
        return (size_t)snprintf(out, 5, "\\x%02x", c);
    out[0] = (char)c;
    if (c >= 0xc0 && c <= 0xf7) { /* a lead byte: keep its continuation bytes with it */
        const size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
        while (n < want && ((unsigned char)s[n] & 0xc0) == 0x80) {
            out[n] = s[n];
            n++;
        }
        *used = n;
    }
    out[n] = '\0';
    return n;
}

/* The length of s as shown. */
static size_t shown_length(const char *s)
{
    char unit[5];
    size_t total = 0, used;
    while (*s) {
        total += next_unit(s, unit, &used);
        s += used;
    }
    return total;
}

/* The units of s whose shown bytes lie wholly in [from, to), appended to out (which has room
 * for to - from bytes and a NUL); a unit that straddles either end is left out whole. */
static size_t copy_shown(const char *s, size_t from, size_t to, char *out)
{
    char unit[5];
    size_t pos = 0, n = 0, used;
    while (*s && pos < to) {
        const size_t len = next_unit(s, unit, &used);
        if (pos >= from && pos + len <= to) {
            memcpy(out + n, unit, len);
            n += len;
        }
        pos += len;
        s += used;
    }
    out[n] = '\0';
    return n;
}

char *text_escape_line(const char *s, char *buf, size_t size, size_t head)
{
    static const char dots[] = "...";
    if (!buf || size == 0)
        return buf;
    if (!s)
        s = "(null)";
    const size_t total = shown_length(s);
    if (total < size) {
        copy_shown(s, 0, total, buf);
        return buf;
    }
    if (size < sizeof dots + 2) { /* no room for a cut: the start, as far as it goes */
        copy_shown(s, 0, size - 1, buf);
        return buf;
    }
    /* head bytes, "...", and the end of the text in the rest. */
    const size_t room = size - 1 - (sizeof dots - 1);
    if (head > room / 2)
        head = room / 2;
    size_t n = copy_shown(s, 0, head, buf);
    memcpy(buf + n, dots, sizeof dots);
    n += sizeof dots - 1;
    copy_shown(s, total - (room - head), total, buf + n);
    return buf;
}

const char *text_show(const char *s, text_shown *out)
{
    return text_escape_line(s, out->s, sizeof out->s, TEXT_SHOWN_HEAD);
}

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
