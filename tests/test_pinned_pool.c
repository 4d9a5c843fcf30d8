/*
 * test_pinned_pool.c - the batch's pool of blocks (cli/pinned_pool.c) before any device has
 * opened: what it hands out is ordinary memory, on huge pages where the request is a few of
 * them (aligned to one, every byte usable), else malloc's; none of it counts as page-locked
 * (pinned_pool_holds), its excess counts in the overhead until it is given back, and giving
 * it back through the decoders' face of the pool (io_allocator) or directly frees it. Whether
 * the system backs the mapping with huge pages is its own affair (the advice may be ignored):
 * the test asks only what the pool promises.
 */
#include "test_util.h"

#include <stdint.h>
#include <string.h>

#include "pinned_pool.h"

#define MB ((size_t)1 << 20)

static void fill_and_check(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 4096)
        p[i] = (unsigned char)(i >> 12);
    p[n - 1] = 0xA5;
    for (size_t i = 0; i < n; i += 4096)
        assert_int_equal(p[i], (unsigned char)(i >> 12));
    assert_int_equal(p[n - 1], 0xA5);
}

static void before_the_device(void **state)
{
    (void)state;
    pinned_pool p;
    assert_int_equal(pinned_pool_init(&p, 8), 0);
    /* A 1080p gray image (just under a huge page) and a colour one (three of them). */
    const size_t sizes[] = {1920 * 1080, 1920 * 1080 * 3, 5 * MB, 4096, 100};
    void *got[5];
    for (int i = 0; i < 5; i++) {
        got[i] = pinned_pool_get(&p, sizes[i]);
        assert_non_null(got[i]);
        fill_and_check(got[i], sizes[i]);
        assert_false(pinned_pool_holds(&p, got[i])); /* nothing is page-locked yet */
    }
#if defined(__linux__)
    /* The ones of a few huge pages are mapped from a huge page's boundary. */
    for (int i = 0; i < 3; i++)
        assert_int_equal((uintptr_t)got[i] % (2 * MB), 0);
    assert_int_equal(p.huge_made, 3);
    assert_int_equal(p.huge_live, 3);
    /* Their rounding up counts in the overhead while they are out. */
    assert_true(pinned_pool_overhead(&p) >= (2 * MB - sizes[0]) + (6 * MB - sizes[1]));
#endif
    for (int i = 0; i < 5; i++)
        pinned_pool_put(&p, got[i]);
    assert_int_equal(p.huge_live, 0);
    assert_int_equal(pinned_pool_overhead(&p), 0);
    assert_int_equal(pinned_pool_idle(&p), 0); /* ordinary memory is not kept for later */
    /* Through the decoders' face: the same, and given back the same way. */
    const io_allocator *a = &p.io;
    void *q = a->alloc(a->arg, 3 * MB);
    assert_non_null(q);
    fill_and_check(q, 3 * MB);
    a->release(a->arg, q);
    assert_int_equal(p.huge_live, 0);
    /* The face for ordinary memory (reads far ahead of the lanes) gives the same kind, the
     * device open or not. */
    const io_allocator *o = &p.io_ordinary;
    void *r = o->alloc(o->arg, 3 * MB);
    assert_non_null(r);
    fill_and_check(r, 3 * MB);
    assert_false(pinned_pool_holds(&p, r));
    o->release(o->arg, r);
    assert_int_equal(p.huge_live, 0);
    /* One still out at the end is unmapped with the pool. */
    void *left = pinned_pool_get(&p, 4 * MB);
    assert_non_null(left);
    pinned_pool_release(&p, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(before_the_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
