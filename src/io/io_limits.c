/* io_limits.c - the decoders' common limits (io_limits.h). */
#include "io_limits.h"

#include <stdio.h>

void io_limits_default(io_limits *l)
{
    l->max_pixels = IO_DEFAULT_MAX_PIXELS;
    l->allow_high_ratio = 0;
    l->pixels_hint = NULL;
    l->ratio_hint = NULL;
}

long long io_limits_max_pixels(const io_limits *l)
{
    if (!l || l->max_pixels <= 0)
        return IO_DEFAULT_MAX_PIXELS;
    return l->max_pixels > IO_HARD_MAX_PIXELS ? IO_HARD_MAX_PIXELS : l->max_pixels;
}

int io_limits_check_pixels(long long width, long long height, const io_limits *l,
                           char *err, size_t err_size)
{
    const long long max = io_limits_max_pixels(l);
    /* Both sides are at most 2^31 here, so the product fits in 64 bits. */
    if (width * height <= max)
        return 0;
    if (err && err_size)
        snprintf(err, err_size, "image size %lld x %lld (%lld pixels) exceeds the limit of %lld "
                                "pixels%s%s%s",
                 width, height, width * height, max, l && l->pixels_hint ? " (" : "",
                 l && l->pixels_hint ? l->pixels_hint : "",
                 l && l->pixels_hint ? " raises it)" : "");
    return -1;
}

int io_limits_check_ratio(long long width, long long height,
                          unsigned long long stream_bytes, unsigned max_ratio, const char *what,
                          const io_limits *l, char *err, size_t err_size)
{
    const long long pixels = width * height;
    if ((l && l->allow_high_ratio) || pixels <= IO_RATIO_FREE_PIXELS ||
        (unsigned long long)pixels <= (unsigned long long)max_ratio * stream_bytes)
        return 0;
    if (err && err_size)
        snprintf(err, err_size,
                 "%s data of %llu bytes for a %lld x %lld image: %.0f pixels a byte, more than "
                 "%u, a likely decompression bomb%s%s%s",
                 what, stream_bytes, width, height,
                 stream_bytes ? (double)pixels / (double)stream_bytes : (double)pixels, max_ratio,
                 l && l->ratio_hint ? " (" : "", l && l->ratio_hint ? l->ratio_hint : "",
                 l && l->ratio_hint ? " accepts it)" : "");
    return -1;
}
