/* test_hooks.c - the tests' hooks (test_hooks.h): environment variables read in a test build
 * only (-DTILEDCONV_TEST_HOOKS). */
#include "test_hooks.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "file_hooks.h"

#ifdef TILEDCONV_TEST_HOOKS

const char *test_hooks_note(void)
{
    return " (a test build: its TILEDCONV_TEST_CORRUPT, TILEDCONV_CLEAN_EXIT, "
           "TILEDCONV_TEST_BATCH_BUDGET, TILEDCONV_TEST_OPEN_DELAY_MS, "
           "TILEDCONV_TEST_LANE_PAUSE_MS, TILEDCONV_TEST_JPEG_INEXACT and "
           "TILEDCONV_TEST_JPEG_DECODE_CORRUPT hooks are compiled in)";
}

const char *test_hook_corrupt_spec(void)
{
    return getenv("TILEDCONV_TEST_CORRUPT");
}

int test_hook_clean_exit(void)
{
    return getenv("TILEDCONV_CLEAN_EXIT") != NULL;
}

/* A number from the environment, or 0. */
static unsigned long long env_number(const char *name)
{
    const char *v = getenv(name);
    return v ? strtoull(v, NULL, 10) : 0;
}

/* The hooks inside the library's run of files (file_hooks.h): TILEDCONV_TEST_BATCH_BUDGET
 * (the bytes a batch's images in flight may hold, in place of a quarter of the machine's
 * memory, so that a few small images show the bound), TILEDCONV_TEST_OPEN_DELAY_MS and
 * TILEDCONV_TEST_LANE_PAUSE_MS (how long the lanes wait before they open their devices and
 * before each call: a slow device's start-up, a slow lane), TILEDCONV_TEST_LANE_CALL_MS (how
 * much longer each lane's call takes: the lanes the bound), TILEDCONV_TEST_JPEG_INEXACT (the
 * JPEG path's lane takes every device decode as not TurboJPEG's: its fallback to the CPU),
 * TILEDCONV_TEST_JPEG_DECODE_CORRUPT (-e's comparison of the device's JPEG decode sees one
 * sample changed). */
void test_hooks_install(void)
{
    file_hooks.batch_budget = env_number("TILEDCONV_TEST_BATCH_BUDGET");
    file_hooks.open_delay_ms = (unsigned)env_number("TILEDCONV_TEST_OPEN_DELAY_MS");
    file_hooks.lane_pause_ms = (unsigned)env_number("TILEDCONV_TEST_LANE_PAUSE_MS");
    file_hooks.lane_call_ms = (unsigned)env_number("TILEDCONV_TEST_LANE_CALL_MS");
    file_hooks.jpeg_inexact = getenv("TILEDCONV_TEST_JPEG_INEXACT") != NULL;
    file_hooks.jpeg_decode_corrupt = getenv("TILEDCONV_TEST_JPEG_DECODE_CORRUPT") != NULL;
    file_hooks.corrupt_spec = test_hook_corrupt_spec();
}

#else

void test_hooks_install(void)
{
}

const char *test_hooks_note(void)
{
    return "";
}

const char *test_hook_corrupt_spec(void)
{
    return NULL;
}

int test_hook_clean_exit(void)
{
    return 0;
}

#endif

void test_hook_corrupt(float *plane, int width, int height)
{
    const char *spec = test_hook_corrupt_spec();
    float amount = 1.0f;
    int x, y;
    if (spec && sscanf(spec, "%d,%d,%f", &x, &y, &amount) >= 2 && x >= 0 && y >= 0 &&
        x < width && y < height)
        plane[(size_t)y * (size_t)width + (size_t)x] += amount;
}
