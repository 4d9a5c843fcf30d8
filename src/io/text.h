/*
 * text.h - user-supplied text (file names, flag values) made fit for a one-line message:
 * control characters escaped, so that a newline in a name cannot split the line or a carriage
 * return overwrite it, and long names shortened in the middle, so that the reason after them
 * is never cut off by a fixed-size message buffer. And the one-line failure every reader and
 * writer of src/io/ reports (io_fail).
 */
#ifndef TILEDCONV_TEXT_H
#define TILEDCONV_TEXT_H

#include "tool_visible.h"

#include <stddef.h>

/* The longest name a message shows, in bytes: the first TEXT_SHOWN_HEAD bytes, "...", and the
 * last bytes (the file name itself, which is what a user recognises). With two names and a
 * reason, a message still fits the 512-byte buffers messages travel in. */
#define TEXT_SHOWN_MAX 160
#define TEXT_SHOWN_HEAD 40

/* A buffer for one shown name: TEXT_SHOWN_MAX bytes and the terminating NUL. */
typedef struct {
    char s[TEXT_SHOWN_MAX + 1];
} text_shown;

/* Writes s as a message shows it into *out and returns out->s: \n, \r and \t as those two
 * characters, any other control character (bytes below 0x20, and 0x7f) as \xHH; longer than
 * TEXT_SHOWN_MAX, the middle replaced by "...". Other bytes, UTF-8 included, are kept.
 * s NULL shows as "(null)". */
TC_TOOL const char *text_show(const char *s, text_shown *out);

/* The same escaping for a whole message of any length, into buf (size bytes), cut in the middle
 * when it does not fit so that its end (where the reason usually is) survives: keeps the first
 * `head` bytes of the escaped text and as much of its end as fits. Returns buf. */
char *text_escape_line(const char *s, char *buf, size_t size, size_t head);

#if defined(__GNUC__)
#define IO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define IO_PRINTF(f, a)
#endif

/* Formats the one-line reason into err (when err is not NULL) and returns -1, so that a check
 * reads `return io_fail(err, err_size, "...", ...);`. */
int io_fail(char *err, size_t err_size, const char *fmt, ...) IO_PRINTF(3, 4);

#endif
