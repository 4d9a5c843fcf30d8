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
           "TILEDCONV_TEST_LANE_PAUSE_MS and TILEDCONV_TEST_JPEG_INEXACT hooks are compiled "
           "in)";
}

const char *test_hook_corrupt_spec(void)
{
    return getenv("TILEDCONV_TEST_CORRUPT");
}

int test_hook_clean_exit(void)
{
    return getenv("TILEDCONV_CLEAN_EXIT") != NULL;
}

unsigned long long test_hook_batch_budget(void)
{
    const char *v = getenv("TILEDCONV_TEST_BATCH_BUDGET");
    return v ? strtoull(v, NULL, 10) : 0;
}

unsigned test_hook_open_delay_ms(void)
{
    const char *v = getenv("TILEDCONV_TEST_OPEN_DELAY_MS");
    return v ? (unsigned)strtoul(v, NULL, 10) : 0;
}

unsigned test_hook_lane_pause_ms(void)
{
    const char *v = getenv("TILEDCONV_TEST_LANE_PAUSE_MS");
    return v ? (unsigned)strtoul(v, NULL, 10) : 0;
}

int test_hook_jpeg_inexact(void)
{
    return getenv("TILEDCONV_TEST_JPEG_INEXACT") != NULL;
}

void test_hooks_install(void)
{
    file_hooks.jpeg_inexact = test_hook_jpeg_inexact();
    file_hooks.batch_budget = test_hook_batch_budget();
    file_hooks.open_delay_ms = test_hook_open_delay_ms();
    file_hooks.lane_pause_ms = test_hook_lane_pause_ms();
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

unsigned long long test_hook_batch_budget(void)
{
    return 0;
}

unsigned test_hook_open_delay_ms(void)
{
    return 0;
}

unsigned test_hook_lane_pause_ms(void)
{
    return 0;
}

int test_hook_jpeg_inexact(void)
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
