/*
 * io_limits.h - what decoding an image may cost, checked from its header before any pixel buffer
 * is allocated: the largest image (the command line's --max-pixels, like ImageMagick's
 * "-limit area" and Pillow's MAX_IMAGE_PIXELS) and, for compressed formats, the largest ratio
 * of decoded pixels to compressed bytes, beyond which a file is refused as a likely
 * decompression bomb (a few bytes of RLE can describe 2^28 pixels; --allow-high-ratio lifts it).
 * Every codec applies the same two rules with the same words.
 */
#ifndef TILEDCONV_IO_LIMITS_H
#define TILEDCONV_IO_LIMITS_H

#include "tool_visible.h"

#include <stddef.h>

/* The hard limit, whatever the caller asks for: 2^30 pixels (32768 x 32768), so that every
 * index the kernels compute fits an int even with padded rows. */
#define IO_HARD_MAX_PIXELS (1LL << 30)
/* The default: 2^28 pixels, 16384 x 16384 (1 GiB per float plane), the largest size the GPU
 * sweeps use; --max-pixels raises it up to IO_HARD_MAX_PIXELS. */
#define IO_DEFAULT_MAX_PIXELS (1LL << 28)
/* Images of at most this many pixels (1024 x 1024: 3 MiB of RGB, 4 MiB a plane) skip the ratio
 * check: a small image costs little however it is encoded, and tiny test files are legitimately
 * all header. */
#define IO_RATIO_FREE_PIXELS (1LL << 20)

typedef struct {
    long long max_pixels;    /* <= 0: IO_DEFAULT_MAX_PIXELS; above IO_HARD_MAX_PIXELS: that */
    int allow_high_ratio;    /* 1: compressed data may expand without limit */
    const char *pixels_hint; /* how the caller raises max_pixels, for messages (the command
                              * line's "--max-pixels"), or NULL */
    const char *ratio_hint;  /* how the caller lifts the ratio check ("--allow-high-ratio") */
} io_limits;

/* The defaults: IO_DEFAULT_MAX_PIXELS, the ratio checked, no hints. */
void io_limits_default(io_limits *l);

/* The pixel limit l stands for (l NULL: the default), within IO_HARD_MAX_PIXELS. */
long long io_limits_max_pixels(const io_limits *l);

/* A width x height image within the limit: 0, or -1 with the reason in err ("image size W x H
 * (N pixels) exceeds the limit of M pixels (HINT raises it)"). */
TC_TOOL int io_limits_check_pixels(long long width, long long height, const io_limits *l,
                           char *err, size_t err_size);

/* Compressed data of stream_bytes that decodes to a width x height image: refused (-1, the
 * reason in err) when the image has more than IO_RATIO_FREE_PIXELS pixels and more than
 * max_ratio pixels per compressed byte, unless l allows high ratios. `what` names the
 * compression ("RLE8"). */
int io_limits_check_ratio(long long width, long long height,
                          unsigned long long stream_bytes, unsigned max_ratio, const char *what,
                          const io_limits *l, char *err, size_t err_size);

#endif
