/*
 * fuzz_stream.c - libFuzzer harness for the stream scanner, src/io/stream_bounds.c (make fuzz,
 * tests/fuzz-readers.sh), seeded with the PNG, JPEG and PGM/PPM fixtures.
 *
 * The input is a stream's bytes (its format from its first bytes, as the tool finds it). It is
 * scanned as a reader would take it, in blocks of 1, 7 and 4096 bytes and exactly where the
 * scanner asks, and the harness asserts what the reader relies on: each step asks for more
 * than it has and no more than its limit; the result and the end found are the same however
 * the bytes arrive; a refusal is one line naming the format; and the scanner never cuts an
 * image: when the whole input decodes, the bytes up to the end found decode to the same pixels.
 */
#include "codec.h"
#include "stream_bounds.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    io_stream_status status; /* IO_STREAM_MORE: the input ran out first */
    size_t end;
    char err[512];
} result;

static result scan(io_format fmt, const uint8_t *data, size_t size, size_t block)
{
    io_stream s;
    result r = {IO_STREAM_MORE, 0, ""};
    size_t len = size < IO_IDENTIFY_BYTES ? size : IO_IDENTIFY_BYTES;
    io_stream_init(&s, fmt);
    for (;;) {
        size_t want = 0;
        r.status = io_stream_scan(&s, data, len, &want, r.err, sizeof r.err);
        if (r.status == IO_STREAM_END) {
            if (s.end > len)
                abort();
            r.end = s.end;
            return r;
        }
        if (r.status == IO_STREAM_REFUSED) {
            if (!r.err[0] || strchr(r.err, '\n') || len > s.limit)
                abort();
            return r;
        }
        if (r.status != IO_STREAM_MORE || want <= len || want > s.limit)
            abort();
        if (len == size) {
            r.end = len;
            return r;
        }
        len = want > len + 1 ? want : len + block;
        if (len > size)
            len = size;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    io_format fmt;
    if (io_detect(data, size, &fmt) != 0 || fmt == IO_FORMAT_BMP)
        return 0;
    const result a = scan(fmt, data, size, 1), b = scan(fmt, data, size, 7),
                 c = scan(fmt, data, size, 4096);
    if (a.status != b.status || a.status != c.status || a.end != b.end || a.end != c.end ||
        strcmp(a.err, b.err) != 0 || strcmp(a.err, c.err) != 0)
        abort();
    if (a.status != IO_STREAM_END || a.end == size)
        return 0;
    /* Cut short: the image must be whole in what the scanner kept. */
    io_image whole, cut;
    char err[512];
    if (io_decode(data, size, 0, IO_MAX_PIXELS_PER_BYTE, &whole, err, sizeof err) != 0)
        return 0;
    if (io_decode(data, a.end, 0, IO_MAX_PIXELS_PER_BYTE, &cut, err, sizeof err) != 0)
        abort();
    const size_t bytes = (size_t)whole.width * (size_t)whole.height * (size_t)whole.channels *
                         (size_t)(whole.depth / 8);
    if (cut.width != whole.width || cut.height != whole.height ||
        cut.channels != whole.channels || cut.depth != whole.depth ||
        cut.maxval != whole.maxval || memcmp(cut.pixels, whole.pixels, bytes) != 0)
        abort();
    io_image_free(&whole);
    io_image_free(&cut);
    return 0;
}
