/*
 * test_hooks.h - what the tests reach inside the tool, compiled in only in a test build: the
 * Makefile builds build/test/tiledconv (and the sanitizer's build) with
 * -DTILEDCONV_TEST_HOOKS, and the end-to-end suites run it. In the product (./tiledconv, an
 * installed tiledconv) every hook does nothing and no environment variable is read.
 */
#ifndef TILEDCONV_TEST_HOOKS_H
#define TILEDCONV_TEST_HOOKS_H

/* Hands the hooks that reach inside the library's run of files (file_hooks.h) to it, read from
 * the environment (test_hooks.c lists them): once, at the start, in a test build; nothing in
 * the product. */
void test_hooks_install(void);

/* What --version adds: "" in the product, a note that the hooks are compiled in otherwise. */
const char *test_hooks_note(void);

/* TILEDCONV_TEST_CORRUPT="x,y" or "x,y,v", or NULL: a fault to inject into a result, so that
 * the tests can show -e catching a wrong pixel. */
const char *test_hook_corrupt_spec(void);

/* Adds v (1 when the spec gives none) to pixel (x, y) of a width x height plane, when
 * TILEDCONV_TEST_CORRUPT names one inside it. */
void test_hook_corrupt(float *plane, int width, int height);

/* TILEDCONV_CLEAN_EXIT: the process closes its contexts and frees everything before it ends,
 * for the leak-checked runs and to measure what that costs; without it the tool ends at once
 * when every output is in place. */
int test_hook_clean_exit(void);

#endif
