/*
 * test_pinned_pool.c - the batch's pool of blocks (src/files/pinned_pool.c) before any device has
 * opened: what it hands out is ordinary memory, on huge pages where the request is a few of
 * them (aligned to one, every byte usable), else malloc's; none of it counts as page-locked
 * (pinned_pool_holds), its excess counts in the overhead until it is given back, and giving
 * it back through the decoders' face of the pool (io_allocator) or directly frees it. Whether
 * the system backs the mapping with huge pages is its own affair (the advice may be ignored):
 * the test asks only what the pool promises. Then, with a device: an image's pixels moved out
 * of ordinary memory into an idle block (job_move_input), and an image on the pool's huge
 * pages locked where it lies (job_lock_input_in_place), its memory kept as a page-locked block.
 */
#include "test_util.h"

#include <stdint.h>
#include <string.h>

#include "job.h"
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

/* An image waiting for a lane with its pixels in ordinary memory (decoded while the device
 * opened): job_move_input moves them into an idle page-locked block, and only into one (none
 * idle: nothing moves, nothing is made); the image's rows then point into the block, their
 * bytes the same, and giving the job's input back makes the block idle again. The same for a
 * BMP file whose bottom-up rows the device reads as they lie (its rows' start inside the file,
 * kept at the same offset). */
static void moves_into_idle_blocks(void **state)
{
    (void)state;
    enum { W = 300, H = 200 };
    pinned_pool p;
    tc_context *ctx;
    char err[512];
    assert_int_equal(pinned_pool_init(&p, 8), 0);
    job j;
    memset(&j, 0, sizeof j);
    j.pool = &p;
    const io_allocator *from = &p.io_ordinary;
    j.image = (io_image){W, H, 3, 8, 255, from->alloc(from->arg, (size_t)W * H * 3), from};
    for (size_t i = 0; i < (size_t)W * H * 3; i++)
        ((unsigned char *)j.image.pixels)[i] = (unsigned char)(i * 7 + i / 300);
    j.src = (tc_image){TC_PIXELS_RGB24, W, H, 0, j.image.pixels, 3L * W, NULL, 0};
    assert_int_equal(job_movable_bytes(&j), (size_t)W * H * 3);
    assert_int_equal(tc_open(NULL, &ctx, err, sizeof err), TC_OK);
    pinned_pool_set_context(&p, ctx);
    /* No idle block: nothing moves. */
    assert_int_equal(job_move_input(&j), 0);
    assert_int_equal(p.made, 0);
    /* An idle block a little larger than the image: the pixels move into it. */
    void *block = pinned_pool_get(&p, (size_t)W * H * 3 + 100);
    assert_true(pinned_pool_holds(&p, block));
    pinned_pool_put(&p, block);
    assert_int_equal(job_move_input(&j), 1);
    assert_ptr_equal(j.image.pixels, block);
    assert_ptr_equal(j.src.data, block);
    assert_int_equal(job_movable_bytes(&j), 0);
    assert_int_equal(pinned_pool_idle(&p), 0);
    for (size_t i = 0; i < (size_t)W * H * 3; i++)
        if (((unsigned char *)block)[i] != (unsigned char)(i * 7 + i / 300))
            fail_msg("byte %zu differs after the move", i);
    job_drop_input(&j);
    assert_true(pinned_pool_idle(&p) > 0);
    /* A BMP file read into ordinary memory, its rows bottom-up at an offset inside it. */
    const size_t size = 54 + (size_t)W * 3 * H;
    j.file = from->alloc(from->arg, size);
    j.file_from = from;
    j.file_size = size;
    for (size_t i = 0; i < size; i++)
        j.file[i] = (uint8_t)(i * 13);
    const size_t top = 54 + (size_t)W * 3 * (H - 1);
    j.src = (tc_image){TC_PIXELS_BGR24, W, H, 0, j.file + top, -3L * W, NULL, 0};
    assert_int_equal(job_movable_bytes(&j), size);
    assert_int_equal(job_move_input(&j), 1);
    assert_ptr_equal(j.file, block);
    assert_ptr_equal(j.src.data, (uint8_t *)block + top);
    for (size_t i = 0; i < size; i++)
        if (j.file[i] != (uint8_t)(i * 13))
            fail_msg("file byte %zu differs after the move", i);
    job_drop_input(&j);
    pinned_pool_release(&p, 1);
    tc_close(ctx);
}

/* A colour image decoded before the device opened lies on the pool's huge pages: once the
 * context is set, it is locked in place (not for another context's lane), its bytes and place
 * unchanged, counted as page-locked, and given back it stays in the pool as an idle block that
 * the next image of its size gets. Memory under a huge page (malloc's) is not lockable; the
 * move of a lockable image locks it too, with no idle block needed. */
static void locks_in_place(void **state)
{
    (void)state;
    enum { W = 1100, H = 700 };
    const size_t n = (size_t)W * H * 3;
    pinned_pool p;
    tc_context *ctx;
    char err[512];
    assert_int_equal(pinned_pool_init(&p, 8), 0);
    job j, k;
    memset(&j, 0, sizeof j);
    memset(&k, 0, sizeof k);
    j.pool = k.pool = &p;
    const io_allocator *from = &p.io_ordinary;
    j.image = (io_image){W, H, 3, 8, 255, from->alloc(from->arg, n), from};
    k.image = (io_image){W, H, 3, 8, 255, from->alloc(from->arg, n), from};
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)j.image.pixels)[i] = (unsigned char)(i * 7 + i / 300);
    j.src = (tc_image){TC_PIXELS_RGB24, W, H, 0, j.image.pixels, 3L * W, NULL, 0};
    k.src = (tc_image){TC_PIXELS_RGB24, W, H, 0, k.image.pixels, 3L * W, NULL, 0};
    void *small = pinned_pool_get(&p, 1000); /* malloc's */
    assert_int_equal(p.huge_live, 2);
    /* No context yet: nothing to lock with. */
    assert_int_equal(job_input_lockable(&j), 0);
    assert_int_equal(job_lock_input_in_place(&j, NULL), 0);
    assert_int_equal(tc_open(NULL, &ctx, err, sizeof err), TC_OK);
    pinned_pool_set_context(&p, ctx);
    assert_int_equal(pinned_pool_lockable(&p, small), 0);
    assert_int_equal(job_input_lockable(&j), 1);
    assert_int_equal(job_lock_input_in_place(&j, (const tc_context *)&p), 0); /* another's */
    assert_false(pinned_pool_holds(&p, j.image.pixels));
    void *place = j.image.pixels;
    assert_int_equal(job_lock_input_in_place(&j, ctx), 1);
    assert_ptr_equal(j.image.pixels, place);
    assert_true(pinned_pool_holds(&p, place));
    assert_int_equal(job_input_lockable(&j), 0);
    assert_int_equal(job_movable_bytes(&j), 0);
    assert_int_equal(p.huge_live, 1);
    assert_int_equal(p.locked_in_place, 1);
    for (size_t i = 0; i < n; i++)
        if (((unsigned char *)place)[i] != (unsigned char)(i * 7 + i / 300))
            fail_msg("byte %zu differs after the lock", i);
    /* The move of a lockable image locks it, with no block idle. */
    assert_int_equal(pinned_pool_idle(&p), 0);
    assert_int_equal(job_move_input(&k), 1);
    assert_true(pinned_pool_holds(&p, k.image.pixels));
    assert_int_equal(p.locked_in_place, 2);
    assert_int_equal(p.made, 0);
    /* Given back: kept, idle, page-locked; the next image of the size gets it. */
    job_drop_input(&j);
    assert_true(pinned_pool_idle(&p) >= n);
    assert_ptr_equal(pinned_pool_get(&p, n), place);
    assert_int_equal(p.made, 0);
    pinned_pool_put(&p, place);
    job_drop_input(&k);
    pinned_pool_put(&p, small);
    pinned_pool_trim(&p);
    assert_int_equal(pinned_pool_idle(&p), 0);
    pinned_pool_release(&p, 1);
    tc_close(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(before_the_device),
        cmocka_unit_test(moves_into_idle_blocks),
        cmocka_unit_test(locks_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
