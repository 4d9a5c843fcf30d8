/*
 * test_context.h - what the suites that run filters share, included after test_util.h: the
 * one context a suite opens on the default device (context_setup and context_teardown, cmocka's
 * group setup and teardown), and a deterministic generator (repeatable on every libc: tests
 * must be), its state seeded by the suite (rng_state = SEED) where a case needs its own draws;
 * and the bytes of one sample of an image layout.
 */
#ifndef TILEDCONV_TEST_CONTEXT_H
#define TILEDCONV_TEST_CONTEXT_H

#include <stdint.h>
#include <stdio.h>

#include "tiledconv.h"

static tc_context *ctx;

static int context_setup(void **state)
{
    char err[512];
    (void)state;
    if (tc_open(NULL, &ctx, err, sizeof err) != TC_OK) {
        fprintf(stderr, "no OpenCL device: %s\n", err);
        return -1;
    }
    return 0;
}

static int context_teardown(void **state)
{
    (void)state;
    tc_close(ctx);
    return 0;
}

#ifndef TEST_RNG_SEED
#define TEST_RNG_SEED 12345
#endif

static uint64_t rng_state = TEST_RNG_SEED;

static inline uint32_t rng_next(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}

/* lo .. hi, both included. */
static inline int rng_range(int lo, int hi)
{
    return lo + (int)(rng_next() % (uint32_t)(hi - lo + 1));
}

/* Bytes of one sample of a layout: 2 for TC_PIXELS_U16, 4 for TC_PIXELS_F32, else 1. */
static inline size_t sample_bytes(tc_pixel_format f)
{
    return f == TC_PIXELS_U16 ? 2 : f == TC_PIXELS_F32 ? 4 : 1;
}

#endif
