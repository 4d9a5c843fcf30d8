/* stream_bounds.c - how far a PNG, JPEG or PGM/PPM on a stream goes (stream_bounds.h). */
#include "stream_bounds.h"

#include "codec_common.h"

#include <stdint.h>
#include <string.h>

enum { ST_GAP, ST_NUMBER, ST_COMMENT, ST_LAST_COMMENT, ST_DONE };

/* A number of bytes that cannot be reached, for bounds past what size_t holds. */
static size_t clamp_size(unsigned long long v)
{
    return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

/* a * b, saturating at a value far above any stream (2^62). */
static unsigned long long times(unsigned long long a, unsigned long long b)
{
    const unsigned long long big = 1ULL << 62;
    return a && b > big / a ? big : a * b;
}

static unsigned long long be32(const uint8_t *p)
{
    return (unsigned long long)p[0] << 24 | (unsigned long long)p[1] << 16 |
           (unsigned long long)p[2] << 8 | p[3];
}

static unsigned be16(const uint8_t *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

void io_stream_init(io_stream *s, io_format fmt)
{
    memset(s, 0, sizeof *s);
    s->format = fmt;
    s->limit = IO_STREAM_MAX_META;
    s->pos = fmt == IO_FORMAT_PNG ? 8 : 2; /* after the signature, SOI, or the magic */
    s->state = ST_GAP;
}

static io_stream_status end_at(io_stream *s, size_t end)
{
    s->end = end;
    s->state = ST_DONE;
    return IO_STREAM_END;
}

/* Why the stream is refused: it would pass s->limit. */
static io_stream_status refuse(const io_stream *s, const uint8_t *data, char *err,
                               size_t err_size)
{
    /* (A PGM/PPM is scanned only once its two-byte magic is there.) */
    const char *pnm =
        s->format == IO_FORMAT_PNM && (data[1] == '3' || data[1] == '6') ? "PPM" : "PGM";
    if (!s->have_size && s->format == IO_FORMAT_JPEG)
        io_fail(err, err_size, "JPEG: more than %zu bytes of markers before the image size "
                               "(SOF)", s->limit);
    else if (!s->have_size)
        io_fail(err, err_size, "%s: a header of more than %zu bytes", pnm, s->limit);
    else if (s->format == IO_FORMAT_PNG)
        io_fail(err, err_size, "PNG: more than %zu bytes, what a %lld x %lld image can take "
                               "(twice its raw rows and %zu MiB of other chunks)",
                s->limit, s->width, s->height, IO_STREAM_MAX_META >> 20);
    else if (s->format == IO_FORMAT_JPEG)
        io_fail(err, err_size, "JPEG: more than %zu bytes, what a %lld x %lld image of %d "
                               "components can take (4 bytes a sample and %zu MiB of markers)",
                s->limit, s->width, s->height, s->channels, IO_STREAM_MAX_META >> 20);
    else
        io_fail(err, err_size, "%s: more than %zu bytes, what %lld x %lld text samples can "
                               "take (8 bytes a sample)", pnm, s->limit, s->width, s->height);
    return IO_STREAM_REFUSED;
}

/* The stream must reach n bytes: read on, or refused when n passes the limit. */
static io_stream_status need(const io_stream *s, const uint8_t *data, unsigned long long n,
                             size_t *want, char *err, size_t err_size)
{
    if (n > s->limit)
        return refuse(s, data, err, err_size);
    *want = (size_t)n;
    return IO_STREAM_MORE;
}

/* ---- PNG: chunks, IHDR first, up to the end of IEND ----------------------------------------- */

/* A chunk the decoder reads on past: any ancillary one (bit 5 of its first byte set: libspng
 * skips those it does not know, whatever their other bytes), or a critical one it knows. */
static int chunk_known(const uint8_t *t)
{
    return (t[0] & 0x20) || memcmp(t, "IHDR", 4) == 0 || memcmp(t, "PLTE", 4) == 0 ||
           memcmp(t, "IDAT", 4) == 0 || memcmp(t, "IEND", 4) == 0;
}

/* Samples a pixel for a valid colour type and depth; 0 for any other. */
static int png_samples(unsigned type, unsigned depth)
{
    switch (type) {
    case 0: return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16 ? 1 : 0;
    case 3: return depth == 1 || depth == 2 || depth == 4 || depth == 8 ? 1 : 0;
    case 2: return depth == 8 || depth == 16 ? 3 : 0;
    case 4: return depth == 8 || depth == 16 ? 2 : 0;
    case 6: return depth == 8 || depth == 16 ? 4 : 0;
    }
    return 0;
}

/* IHDR's size, and the bound it sets: twice the raw rows (a filter byte and the packed samples
 * of each; with interlacing at most 4 bytes more a row for the passes' own), and the other
 * chunks' allowance. 0, or -1 when the header is not a valid IHDR. */
static int png_size(io_stream *s, const uint8_t *ihdr)
{
    const unsigned long long w = be32(ihdr), h = be32(ihdr + 4);
    const int spp = png_samples(ihdr[9], ihdr[8]);
    if (!w || !h || w > 0x7fffffffULL || h > 0x7fffffffULL || !spp)
        return -1;
    const unsigned long long row = 1 + (times(times(w, (unsigned)spp), ihdr[8]) + 7) / 8;
    const unsigned long long raw = times(h, row + 4) + 64;
    s->have_size = 1;
    s->width = (long long)w;
    s->height = (long long)h;
    s->channels = ihdr[9] == 3 ? 3 : spp; /* a palette's indices are RGB */
    s->limit = clamp_size(times(raw, 2) + IO_STREAM_MAX_META);
    return 0;
}

static io_stream_status scan_png(io_stream *s, const uint8_t *d, size_t len, size_t *want,
                                 char *err, size_t err_size)
{
    for (;;) {
        if (len < s->pos + 8)
            return need(s, d, (unsigned long long)s->pos + 8, want, err, err_size);
        const uint8_t *c = d + s->pos;
        const unsigned long long length = be32(c);
        if (length > 0x7fffffffULL || !chunk_known(c + 4))
            return end_at(s, s->pos + 8); /* no chunk: the decoder says what is wrong */
        if (!s->have_size) {
            if (memcmp(c + 4, "IHDR", 4) != 0 || length != 13)
                return end_at(s, s->pos + 8);
            if (len < s->pos + 8 + 13)
                return need(s, d, (unsigned long long)s->pos + 8 + 13, want, err, err_size);
            if (png_size(s, c + 8))
                return end_at(s, s->pos + 8 + 13);
        }
        const unsigned long long chunk_end = (unsigned long long)s->pos + 12 + length;
        if (chunk_end > s->limit) /* judged from the length, before its bytes are read */
            return refuse(s, d, err, err_size);
        if (memcmp(c + 4, "IEND", 4) == 0)
            return len < chunk_end ? need(s, d, chunk_end, want, err, err_size)
                                   : end_at(s, (size_t)chunk_end);
        s->pos = (size_t)chunk_end;
    }
}

/* ---- JPEG: markers and segments, entropy-coded data, up to EOI ------------------------------ */

/* SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC). */
static int is_sof(uint8_t code)
{
    return code >= 0xc0 && code <= 0xcf && code != 0xc4 && code != 0xc8 && code != 0xcc;
}

/* Between segments every byte that is not a marker is skipped, as libjpeg skips what it finds
 * before a marker; inside entropy-coded data FF 00 (a stuffed FF) and the restart markers
 * FF D0..D7 belong to the data. */
static io_stream_status scan_jpeg(io_stream *s, const uint8_t *d, size_t len, size_t *want,
                                  char *err, size_t err_size)
{
    for (;;) {
        const uint8_t *ff = s->pos < len ? memchr(d + s->pos, 0xff, len - s->pos) : NULL;
        if (!ff) {
            s->pos = len;
            return need(s, d, (unsigned long long)len + 1, want, err, err_size);
        }
        const size_t at = (size_t)(ff - d);
        size_t i = at + 1;
        while (i < len && d[i] == 0xff) /* fill bytes */
            i++;
        if (i >= len) {
            s->pos = at;
            return need(s, d, (unsigned long long)len + 1, want, err, err_size);
        }
        const uint8_t code = d[i];
        if (code == 0xd9) /* EOI */
            return end_at(s, i + 1);
        if (code == 0x00 || (code >= 0xd0 && code <= 0xd7) || code == 0x01 || code == 0xd8) {
            s->pos = i + 1; /* no length follows */
            continue;
        }
        if (len < i + 3) {
            s->pos = at;
            return need(s, d, (unsigned long long)i + 3, want, err, err_size);
        }
        const unsigned length = be16(d + i + 1);
        if (length < 2) {
            /* A length under 2 counts itself short: libjpeg reads on right after the two
             * length bytes (skip_variable has nothing left to skip), so the stream goes on
             * there too; a frame header that short is the decoder's to refuse. */
            if (is_sof(code) && !s->have_size)
                return end_at(s, i + 3);
            s->pos = i + 3;
            continue;
        }
        const unsigned long long seg_end = (unsigned long long)i + 1 + length;
        if (is_sof(code) && !s->have_size) {
            if (length < 8)
                return end_at(s, i + 3);
            if (len < i + 9) {
                s->pos = at;
                return need(s, d, (unsigned long long)i + 9, want, err, err_size);
            }
            const unsigned h = be16(d + i + 4), w = be16(d + i + 6), nf = d[i + 8];
            if (!h || !w || !nf)
                return end_at(s, i + 9); /* a DNL height, or no image: the decoder's to judge */
            s->have_size = 1;
            s->width = w;
            s->height = h;
            s->channels = (int)nf;
            s->limit = clamp_size(times(times(times(w, h), nf), 4) + IO_STREAM_MAX_META);
        }
        if (seg_end > s->limit) /* judged from the length, before its bytes are read */
            return refuse(s, d, err, err_size);
        if (len < seg_end) {
            s->pos = at;
            return need(s, d, seg_end, want, err, err_size);
        }
        s->pos = (size_t)seg_end;
    }
}

/* ---- PGM/PPM: the header's three numbers, then the raster ----------------------------------- */

static int pnm_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The header's maxval has ended at byte `at` (a whitespace byte, which ends the header): the
 * size, and the bound. 0, or -1 when the header is not one the decoder takes. */
static int pnm_size(io_stream *s, const uint8_t *d, size_t at, int channels, int text)
{
    const unsigned long long w = s->header[0], h = s->header[1], maxval = s->header[2];
    if (!pnm_space(d[at]) || !w || !h || w > IO_MAX_SIDE || h > IO_MAX_SIDE || !maxval ||
        maxval > 65535)
        return -1;
    s->have_size = 1;
    s->width = (long long)w;
    s->height = (long long)h;
    s->channels = channels;
    s->samples = w * h * (unsigned long long)channels;
    s->pos = at + 1; /* the raster's first byte */
    if (text)
        s->limit = clamp_size(s->pos + times(s->samples, 8) + IO_STREAM_MAX_TEXT_SLACK);
    else
        s->limit = clamp_size(s->pos + s->samples * (maxval > 255 ? 2 : 1));
    return 0;
}

/* A binary raster, its size known: exactly its bytes (s->limit). */
static io_stream_status raster_end(io_stream *s, const uint8_t *d, size_t len, size_t *want,
                                   char *err, size_t err_size)
{
    return len < s->limit ? need(s, d, s->limit, want, err, err_size) : end_at(s, s->limit);
}

static io_stream_status scan_pnm(io_stream *s, const uint8_t *d, size_t len, size_t *want,
                                 char *err, size_t err_size)
{
    const int text = d[1] == '2' || d[1] == '3', channels = d[1] == '3' || d[1] == '6' ? 3 : 1;
    if (d[0] != 'P' || (!text && d[1] != '5' && d[1] != '6'))
        return end_at(s, 2);
    if (s->have_size && !text) /* a binary raster: exactly its bytes */
        return raster_end(s, d, len, want, err, err_size);
    while (s->pos < len) {
        const uint8_t c = d[s->pos];
        if (s->state == ST_LAST_COMMENT) { /* after the maxval: its line end ends the header */
            if (c != '\n' && c != '\r') {
                s->pos++;
                continue;
            }
            s->state = ST_GAP;
            if (pnm_size(s, d, s->pos, channels, text))
                return end_at(s, s->pos + 1);
            if (!text)
                return raster_end(s, d, len, want, err, err_size);
            continue;
        }
        if (s->state == ST_COMMENT) { /* up to its line end, found with memchr */
            const uint8_t *lf = memchr(d + s->pos, '\n', len - s->pos);
            const uint8_t *cr = memchr(d + s->pos, '\r', (lf ? (size_t)(lf - d) : len) - s->pos);
            const uint8_t *eol = cr ? cr : lf;
            if (!eol) {
                s->pos = len;
                break;
            }
            s->state = ST_GAP;
            s->pos = (size_t)(eol - d) + 1;
            continue;
        }
        if (s->state == ST_NUMBER) {
            if (c >= '0' && c <= '9') {
                if (s->value < (1ULL << 40)) /* beyond any valid field: no need to go on */
                    s->value = s->value * 10 + (unsigned)(c - '0');
                s->pos++;
                continue;
            }
            s->state = ST_GAP;
            if (!s->have_size) {
                s->header[s->field++] = s->value;
                if (s->field == 3 && c == '#') { /* a comment in the separator's place */
                    s->state = ST_LAST_COMMENT;
                    s->pos++;
                    continue;
                }
                if (s->field == 3) {
                    if (pnm_size(s, d, s->pos, channels, text))
                        return end_at(s, s->pos + 1);
                    if (!text)
                        return raster_end(s, d, len, want, err, err_size);
                    continue;
                }
            } else if (++s->numbers == s->samples) {
                return end_at(s, s->pos); /* the last sample's last digit */
            }
        }
        if (pnm_space(c)) {
            s->pos++;
        } else if (c == '#') {
            s->state = ST_COMMENT;
            s->pos++;
        } else if (c >= '0' && c <= '9') {
            s->state = ST_NUMBER;
            s->value = (unsigned)(c - '0');
            s->pos++;
        } else {
            return end_at(s, s->pos + 1); /* no PGM/PPM: the decoder says why */
        }
    }
    return need(s, d, (unsigned long long)len + 1, want, err, err_size);
}

io_stream_status io_stream_scan(io_stream *s, const uint8_t *data, size_t len, size_t *want,
                                char *err, size_t err_size)
{
    if (s->state == ST_DONE)
        return IO_STREAM_END;
    if (len < 2 || s->format == IO_FORMAT_BMP)
        return s->format == IO_FORMAT_BMP ? end_at(s, len)
                                          : need(s, data, 2, want, err, err_size);
    switch (s->format) {
    case IO_FORMAT_PNG: return scan_png(s, data, len, want, err, err_size);
    case IO_FORMAT_JPEG: return scan_jpeg(s, data, len, want, err, err_size);
    case IO_FORMAT_PNM: return scan_pnm(s, data, len, want, err, err_size);
    default: return end_at(s, len);
    }
}
