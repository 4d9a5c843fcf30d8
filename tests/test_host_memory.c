/*
 * test_host_memory.c - tc_host_alloc and tc_host_free, tc_host_register and
 * tc_host_unregister, and the transfers straight from and to that memory (src/host_blocks.c,
 * src/stream_slot.c): a block is ordinary memory (of either kind, host-wrap=0 too); freeing NULL,
 * malloc's memory or a pointer inside a block does nothing; tc_filter_image and
 * tc_filter_images on images in such blocks give, byte for byte, what the same images in
 * malloc's memory give (gray and colour, 8-bit, 16-bit and float, odd widths, gaps between
 * rows, bottom-up rows, an image larger than the staging ring), the staging skipped where the
 * rows allow it (bottom-up rows too, moved as they lie) (tc_direct_transfers counts it) and kept with host-pinned=0; blocks made and
 * freed by other threads while filter calls run (the blocks are made outside the list's lock)
 * leave every block and every call's bytes intact; staged batches whose copies change hands
 * between calls (the calling thread alone, then a crew, as a batch's lane chooses) give the
 * same bytes; the caller's memory locked in place moves directly with the same bytes, stays
 * the caller's (tc_host_free ignores it, tc_host_unregister lets go of it and nothing else),
 * and bad requests (NULL, 0 bytes, too many, overlapping what is locked) are refused.
 */
#include "test_util.h"
#include "test_context.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tiledconv.h"
#include "tiledconv_internal.h"

static uint32_t rng = 4242;
static uint32_t next(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

/* Samples a pixel of the layout has: channels for U8, U16, F32; 1, 3 or 4 bytes for GRAY8,
 * RGB24, BGR24, BGRX32. */
static int samples_of(tc_pixel_format f, int c)
{
    return f == TC_PIXELS_GRAY8 ? 1
           : f == TC_PIXELS_RGB24 || f == TC_PIXELS_BGR24 ? 3
           : f == TC_PIXELS_BGRX32 ? 4
                                   : c;
}

/* An image in a block of its own: from tc_host_alloc (pinned 1), malloc's locked in place
 * (pinned 2: tc_host_register) or malloc's (0), rows `gap` bytes apart beyond the pixels,
 * bottom-up when asked; every byte starts as `fill_byte`. */
typedef struct {
    tc_image img;
    unsigned char *block;
    size_t size;
    int pinned;
} held_image;

static held_image make(tc_pixel_format f, int w, int h, int c, size_t gap, int bottom_up,
                       int pinned, unsigned char fill_byte)
{
    held_image t;
    const size_t row = (size_t)w * (size_t)samples_of(f, c) * sample_bytes(f);
    const size_t stride = row + gap * sample_bytes(f);
    t.size = stride * (size_t)h;
    t.pinned = pinned;
    t.block = pinned == 1 ? tc_host_alloc(ctx, t.size) : malloc(t.size);
    assert_non_null(t.block);
    if (pinned == 2)
        assert_int_equal(tc_host_register(ctx, t.block, t.size), TC_OK);
    memset(t.block, fill_byte, t.size);
    t.img = (tc_image){f, w, h, f == TC_PIXELS_U8 || f == TC_PIXELS_U16 || f == TC_PIXELS_F32 ? c : 0,
                       bottom_up ? t.block + stride * (size_t)(h - 1) : t.block,
                       bottom_up ? -(long)stride : (long)stride, NULL, 0};
    return t;
}

/* The pixels of src at random (floats 0..255 with fractions). */
static void fill(held_image *t)
{
    const tc_image *im = &t->img;
    const size_t n = (size_t)im->width * (size_t)samples_of(im->format, im->planes);
    for (int y = 0; y < im->height; y++) {
        unsigned char *r = (unsigned char *)im->data + (long)y * im->stride;
        for (size_t i = 0; i < n; i++) {
            if (im->format == TC_PIXELS_U16) {
                const uint16_t v = (uint16_t)next();
                memcpy(r + 2 * i, &v, 2);
            } else if (im->format == TC_PIXELS_F32) {
                const float v = (float)(next() % 25600) / 100.0f;
                memcpy(r + 4 * i, &v, 4);
            } else {
                r[i] = (unsigned char)next();
            }
        }
    }
}

/* The same pixels in another block (rows copied, gaps as the copy's own). */
static void copy_pixels(const held_image *from, held_image *to)
{
    const tc_image *a = &from->img, *b = &to->img;
    const size_t row =
        (size_t)a->width * (size_t)samples_of(a->format, a->planes) * sample_bytes(a->format);
    for (int y = 0; y < a->height; y++)
        memcpy((unsigned char *)b->data + (long)y * b->stride,
               (const unsigned char *)a->data + (long)y * a->stride, row);
}

static void release(held_image *t)
{
    if (t->pinned == 1) {
        tc_host_free(ctx, t->block);
    } else {
        if (t->pinned == 2)
            tc_host_unregister(ctx, t->block);
        free(t->block);
    }
    t->block = NULL;
}

static int has_pipeline(void)
{
    tc_device_info info;
    assert_int_equal(tc_context_device(ctx, &info), TC_OK);
    return info.has_double; /* without it the conversions run on the host: no pipeline */
}

/* Both blocks byte for byte (gaps included: both started as the same fill byte). */
static void same_blocks(const held_image *got, const held_image *want, const char *what)
{
    assert_int_equal(got->size, want->size);
    for (size_t i = 0; i < got->size; i++)
        if (got->block[i] != want->block[i])
            fail_msg("%s: byte %zu is %u, the staged way gives %u", what, i, got->block[i],
                     want->block[i]);
}

typedef struct {
    tc_pixel_format in, out;
    int channels, width, height;
    size_t gap;
    int bottom_up;
} pair_case;

/* One pair through tc_filter_image twice: in malloc's memory, and with src and dst in pinned
 * blocks (src_pinned, dst_pinned); the bytes equal. direct_expected: the pinned sides are
 * expected to skip the staging (counted). */
static void check_pair(const pair_case *k, int src_pinned, int dst_pinned, int direct_expected,
                       const tc_params *p)
{
    char what[160];
    held_image src = make(k->in, k->width, k->height, k->channels, k->gap, k->bottom_up, 0, 0);
    held_image psrc = make(k->in, k->width, k->height, k->channels, k->gap, k->bottom_up,
                           src_pinned, 0);
    held_image want = make(k->out, k->width, k->height, k->channels, k->gap, k->bottom_up, 0, 0xA5);
    held_image got = make(k->out, k->width, k->height, k->channels, k->gap, k->bottom_up,
                          dst_pinned, 0xA5);
    tc_direct_counts before, after;
    snprintf(what, sizeof what, "%d -> %d, %d channels, %d x %d, gap %zu%s, pinned %d%d",
             (int)k->in, (int)k->out, k->channels, k->width, k->height, k->gap,
             k->bottom_up ? ", bottom-up" : "", src_pinned, dst_pinned);
    fill(&src);
    copy_pixels(&src, &psrc);
    if (tc_filter_image(ctx, &src.img, &want.img, p) != TC_OK)
        fail_msg("%s: staged: %s", what, tc_error(ctx));
    tc_direct_transfers(ctx, &before);
    if (tc_filter_image(ctx, &psrc.img, &got.img, p) != TC_OK)
        fail_msg("%s: pinned: %s", what, tc_error(ctx));
    tc_direct_transfers(ctx, &after);
    same_blocks(&got, &want, what);
    const int pipeline = has_pipeline();
    assert_int_equal(after.up - before.up,
                     (unsigned long long)(pipeline && direct_expected && src_pinned));
    assert_int_equal(after.down - before.down,
                     (unsigned long long)(pipeline && direct_expected && dst_pinned));
    release(&src);
    release(&psrc);
    release(&want);
    release(&got);
}

/* Every case with src, dst, and both in host memory of this kind (check_pair's 1: pinned, 2:
 * registered), each expected to move directly. */
static void check_every_side(const pair_case *cases, size_t count, const tc_params *p, int kind)
{
    for (size_t i = 0; i < count; i++)
        for (int sides = 1; sides < 4; sides++)
            check_pair(&cases[i], sides & 1 ? kind : 0, sides & 2 ? kind : 0, 1, p);
}

static void test_alloc_and_free(void **state)
{
    (void)state;
    tc_device_info info;
    assert_int_equal(tc_context_device(ctx, &info), TC_OK);
    /* The size a binding's mirror of the counts must have (Python's direct_transfers). */
    assert_int_equal(tc_abi_size("tc_direct_counts"), sizeof(tc_direct_counts));
    assert_null(tc_host_alloc(ctx, 0));
    assert_null(tc_host_alloc(NULL, 64));
    assert_null(tc_host_alloc(ctx, (size_t)info.max_alloc_bytes + 1));
    unsigned char *a = tc_host_alloc(ctx, 1000), *b = tc_host_alloc(ctx, 3);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a + 1000 <= b || b + 3 <= a);
    memset(a, 7, 1000); /* ordinary memory, all of it */
    memset(b, 9, 3);
    /* Nothing of these is a block: each is ignored, and the blocks stay intact. */
    unsigned char *foreign = malloc(16);
    assert_non_null(foreign);
    tc_host_free(ctx, NULL);
    tc_host_free(ctx, foreign);
    tc_host_free(ctx, a + 1);
    tc_host_free(NULL, a);
    memset(foreign, 1, 16);
    free(foreign);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(a[i], 7);
    tc_host_free(ctx, a);
    tc_host_free(ctx, a); /* no longer a block: ignored */
    assert_int_equal(b[2], 9);
    tc_host_free(ctx, b);
}

static void test_single_images(void **state)
{
    (void)state;
    const pair_case cases[] = {
        {TC_PIXELS_U8, TC_PIXELS_U8, 1, 41, 19, 0, 0},
        {TC_PIXELS_U8, TC_PIXELS_U8, 3, 37, 23, 0, 0},
        {TC_PIXELS_U8, TC_PIXELS_F32, 4, 29, 17, 0, 0},
        {TC_PIXELS_U16, TC_PIXELS_U16, 3, 33, 21, 0, 0},
        {TC_PIXELS_F32, TC_PIXELS_U8, 1, 31, 15, 0, 0},
        {TC_PIXELS_GRAY8, TC_PIXELS_GRAY8, 1, 43, 27, 0, 0}, /* through the U8 view */
        {TC_PIXELS_RGB24, TC_PIXELS_RGB24, 3, 27, 13, 0, 0},
        {TC_PIXELS_U8, TC_PIXELS_U16, 3, 41, 19, 5, 0}, /* rows of a longer stride */
        {TC_PIXELS_F32, TC_PIXELS_F32, 1, 41, 19, 3, 0},
    };
    tc_params p = test_params_taps(5, 3);
    check_every_side(cases, sizeof cases / sizeof cases[0], &p, 1);
    /* An ROI: outside it the output keeps the input. */
    test_set_roi(&p, 3, 2, 3, 2, 20, 9);
    p.out_scale = 0.5;
    check_pair(&cases[1], 1, 1, 1, &p);
}

/* Rows stored bottom-up (a negative stride, as a BMP file lies) move directly too, as they
 * lie, and the conversions read and write them flipped: the same bytes as the staged way, for
 * packed rows (one plain transfer) and rows with gaps (a rectangle), each side on its own, an
 * older layout's view (a BMP's BGR24, its gaps zeroed) and with an ROI. */
static void test_bottom_up_direct(void **state)
{
    (void)state;
    const pair_case cases[] = {
        {TC_PIXELS_U8, TC_PIXELS_U8, 3, 35, 17, 2, 1},
        {TC_PIXELS_U8, TC_PIXELS_U8, 3, 36, 17, 0, 1},
        {TC_PIXELS_U8, TC_PIXELS_U8, 1, 41, 19, 3, 1},
        {TC_PIXELS_U16, TC_PIXELS_F32, 4, 23, 11, 1, 1},
        {TC_PIXELS_BGR24, TC_PIXELS_BGR24, 3, 37, 21, 3, 1}, /* a BMP's rows: the U8 view */
    };
    tc_params p = test_params_taps(7, 5);
    check_every_side(cases, sizeof cases / sizeof cases[0], &p, 1);
    test_set_roi(&p, 4, 3, 4, 3, 17, 8);
    check_pair(&cases[4], 1, 1, 1, &p);
}

/* Pairs of the older layouts that need a conversion on the way (the intensity of colour
 * rows, BGRX to RGB: tc_filter_image's pixel path, one image at a time) move directly too,
 * rows as they lie, padding and all: the same bytes as the staged way. */
static void test_conversions_direct(void **state)
{
    (void)state;
    const pair_case cases[] = {
        {TC_PIXELS_BGR24, TC_PIXELS_GRAY8, 3, 37, 21, 3, 1}, /* a gray job from a colour BMP */
        {TC_PIXELS_BGR24, TC_PIXELS_GRAY8, 3, 40, 17, 0, 1},
        {TC_PIXELS_BGRX32, TC_PIXELS_RGB24, 3, 29, 13, 0, 0},
        {TC_PIXELS_RGB24, TC_PIXELS_GRAY8, 3, 33, 19, 5, 0},
    };
    tc_params p = test_params_taps(5, 5);
    check_every_side(cases, sizeof cases / sizeof cases[0], &p, 1);
}

/* An image larger than the staging ring: the staged way goes in rounds, the direct one in a
 * single transfer; the same bytes. */
static void test_larger_than_ring(void **state)
{
    (void)state;
    const pair_case k = {TC_PIXELS_U8, TC_PIXELS_U8, 3, 61, 47, 0, 0};
    tc_params p = test_params_taps(7, 7);
    test_tune("staging-chunk=64");
    test_tune("pinned-bytes=256");
    check_pair(&k, 1, 1, 1, &p);
    check_pair(&k, 0, 1, 1, &p);
    test_untune();
}

/* host-pinned=0: pinned images go through the staging like any other. */
static void test_switched_off(void **state)
{
    (void)state;
    const pair_case k = {TC_PIXELS_U8, TC_PIXELS_U8, 1, 45, 21, 0, 0};
    tc_params p;
    tc_params_init(&p);
    test_tune("host-pinned=0");
    check_pair(&k, 1, 1, 0, &p);
    test_tune("host-pinned=1");
    check_pair(&k, 1, 1, 1, &p);
    test_tune("host-pinned=");
    check_pair(&k, 1, 1, 1, &p);
    test_untune();
}

/* host-wrap=0: blocks of the driver's own page-locked memory (mapped), the same bytes and the
 * same direct transfers as the wrapped kind. */
static void test_mapped_blocks(void **state)
{
    (void)state;
    const pair_case cases[] = {
        {TC_PIXELS_U8, TC_PIXELS_U8, 3, 37, 23, 0, 0},
        {TC_PIXELS_F32, TC_PIXELS_U16, 1, 31, 15, 2, 1},
    };
    tc_params p;
    tc_params_init(&p);
    p.taps_x = 5;
    test_tune("host-wrap=0");
    check_every_side(cases, sizeof cases / sizeof cases[0], &p, 1);
    test_alloc_and_free(state);
    test_untune();
}

/* The caller's memory locked in place: the same bytes as malloc's unlocked, moved directly;
 * still the caller's to write and free once let go of. */
static void test_registered_memory(void **state)
{
    (void)state;
    const pair_case cases[] = {
        {TC_PIXELS_U8, TC_PIXELS_U8, 1, 41, 19, 0, 0},
        {TC_PIXELS_U8, TC_PIXELS_U16, 3, 41, 19, 5, 0},
        {TC_PIXELS_BGR24, TC_PIXELS_BGR24, 3, 37, 21, 3, 1},
    };
    tc_params p = test_params_taps(7, 3);
    check_every_side(cases, sizeof cases / sizeof cases[0], &p, 2);
    /* A region written after its locking, and between two calls, moves what it holds then. */
    const pair_case k = {TC_PIXELS_U8, TC_PIXELS_U8, 1, 33, 17, 0, 0};
    held_image src = make(k.in, k.width, k.height, 1, 0, 0, 2, 0);
    held_image plain = make(k.in, k.width, k.height, 1, 0, 0, 0, 0);
    held_image want = make(k.out, k.width, k.height, 1, 0, 0, 0, 0);
    held_image got = make(k.out, k.width, k.height, 1, 0, 0, 2, 0);
    for (int round = 0; round < 2; round++) {
        fill(&plain);
        copy_pixels(&plain, &src);
        assert_int_equal(tc_filter_image(ctx, &plain.img, &want.img, &p), TC_OK);
        assert_int_equal(tc_filter_image(ctx, &src.img, &got.img, &p), TC_OK);
        same_blocks(&got, &want, "written after locking");
    }
    release(&src);
    release(&plain);
    release(&want);
    release(&got);
}

static void test_register_refusals(void **state)
{
    (void)state;
    tc_device_info info;
    assert_int_equal(tc_context_device(ctx, &info), TC_OK);
    unsigned char *mine = malloc(4096), *block = tc_host_alloc(ctx, 512);
    assert_non_null(mine);
    assert_non_null(block);
    memset(mine, 3, 4096);
    assert_int_equal(tc_host_register(NULL, mine, 64), TC_EINVAL);
    assert_int_equal(tc_host_register(ctx, NULL, 64), TC_EINVAL);
    assert_int_equal(tc_host_register(ctx, mine, 0), TC_EINVAL);
    assert_int_equal(tc_host_register(ctx, mine, (size_t)info.max_alloc_bytes + 1), TC_EINVAL);
    assert_int_equal(tc_host_register(ctx, block + 8, 64), TC_EINVAL); /* a block's bytes */
    assert_int_equal(tc_host_register(ctx, mine + 1024, 1024), TC_OK);
    assert_int_equal(tc_host_register(ctx, mine + 1024, 1024), TC_EINVAL); /* again */
    assert_int_equal(tc_host_register(ctx, mine, 1025), TC_EINVAL);        /* its first byte */
    assert_int_equal(tc_host_register(ctx, mine + 2047, 10), TC_EINVAL);   /* its last byte */
    assert_int_equal(tc_host_register(ctx, mine, 1024), TC_OK);            /* just before */
    assert_int_equal(tc_host_register(ctx, mine + 2048, 2048), TC_OK);     /* just after */
    /* Neither frees nor lets go of the other kind's memory; NULLs and strangers ignored. */
    tc_host_free(ctx, mine + 1024);
    tc_host_unregister(ctx, block);
    tc_host_unregister(ctx, NULL);
    tc_host_unregister(NULL, mine);
    tc_host_unregister(ctx, mine + 1);
    block[511] = 4;
    assert_int_equal(tc_host_register(ctx, mine + 1024, 1024), TC_EINVAL); /* still locked */
    tc_host_unregister(ctx, mine + 1024);
    tc_host_unregister(ctx, mine + 1024); /* no longer locked: ignored */
    assert_int_equal(tc_host_register(ctx, mine + 1024, 512), TC_OK); /* free again */
    tc_host_unregister(ctx, mine + 1024);
    tc_host_unregister(ctx, mine);
    tc_host_unregister(ctx, mine + 2048);
    for (int i = 0; i < 4096; i++)
        assert_int_equal(mine[i], 3);
    free(mine);
    assert_int_equal(block[511], 4);
    tc_host_free(ctx, block);
}

/* A batch of mixed memory, sizes and layouts through tc_filter_images: every image's bytes as
 * in malloc's memory, and one direct transfer counted for each pinned side. */
static void test_batch(void **state)
{
    (void)state;
    enum { N = 7 };
    const tc_pixel_format formats[N] = {TC_PIXELS_U8,  TC_PIXELS_U8,    TC_PIXELS_F32,
                                        TC_PIXELS_U16, TC_PIXELS_GRAY8, TC_PIXELS_U8,
                                        TC_PIXELS_U8};
    held_image src[N], psrc[N], want[N], got[N];
    tc_image s[N], d[N], ps[N], pd[N];
    unsigned long long pinned_in = 0, pinned_out = 0;
    tc_direct_counts before, after;
    tc_params p = test_params_taps(5, 5);
    for (int i = 0; i < N; i++) {
        const int c = formats[i] == TC_PIXELS_GRAY8 ? 1 : i % 2 ? 3 : 1;
        const int w = 19 + 14 * (i % 3), h = 11 + 4 * i, in_pin = i % 3 != 2, out_pin = i % 2;
        const size_t gap = i == 5 ? 6 : 0;
        src[i] = make(formats[i], w, h, c, gap, 0, 0, 0);
        psrc[i] = make(formats[i], w, h, c, gap, 0, in_pin, 0);
        want[i] = make(formats[i], w, h, c, gap, 0, 0, 0x3C);
        got[i] = make(formats[i], w, h, c, gap, 0, out_pin, 0x3C);
        fill(&src[i]);
        copy_pixels(&src[i], &psrc[i]);
        s[i] = src[i].img;
        d[i] = want[i].img;
        ps[i] = psrc[i].img;
        pd[i] = got[i].img;
        pinned_in += (unsigned long long)in_pin;
        pinned_out += (unsigned long long)out_pin;
    }
    if (tc_filter_images(ctx, s, d, N, &p) != TC_OK)
        fail_msg("staged batch: %s", tc_error(ctx));
    tc_direct_transfers(ctx, &before);
    if (tc_filter_images(ctx, ps, pd, N, &p) != TC_OK)
        fail_msg("pinned batch: %s", tc_error(ctx));
    tc_direct_transfers(ctx, &after);
    for (int i = 0; i < N; i++) {
        char what[64];
        snprintf(what, sizeof what, "batch image %d", i);
        same_blocks(&got[i], &want[i], what);
    }
    const int pipeline = has_pipeline();
    assert_int_equal(after.up - before.up, pipeline ? pinned_in : 0);
    assert_int_equal(after.down - before.down, pipeline ? pinned_out : 0);
    for (int i = 0; i < N; i++) {
        release(&src[i]);
        release(&psrc[i]);
        release(&want[i]);
        release(&got[i]);
    }
}

/* One thread's blocks: made, filled with its own byte, checked and freed, round after round. */
typedef struct {
    int id, rounds, bad;
} block_maker;

static void *make_blocks(void *arg)
{
    block_maker *k = arg;
    for (int r = 0; r < k->rounds; r++) {
        unsigned char *held[4];
        size_t sizes[4];
        for (int i = 0; i < 4; i++) {
            sizes[i] = 100 + (size_t)(r * 977 + i * 4099 + k->id * 31) % 70000;
            held[i] = tc_host_alloc(ctx, sizes[i]);
            if (held[i])
                memset(held[i], k->id + 1, sizes[i]);
        }
        for (int i = 0; i < 4; i++) {
            for (size_t j = 0; held[i] && j < sizes[i]; j += 97)
                k->bad += held[i][j] != (unsigned char)(k->id + 1);
            k->bad += held[i] == NULL;
            tc_host_free(ctx, held[i]);
        }
    }
    return NULL;
}

/* Four threads make and free blocks while this one filters an image held in a block, over and
 * over: every call's bytes as in malloc's memory, its transfers direct, no block disturbed. */
static void test_blocks_made_while_filtering(void **state)
{
    (void)state;
    enum { MAKERS = 4 };
    pthread_t threads[MAKERS];
    block_maker makers[MAKERS];
    held_image src = make(TC_PIXELS_U8, 53, 29, 3, 0, 0, 0, 0);
    held_image psrc = make(TC_PIXELS_U8, 53, 29, 3, 0, 0, 1, 0);
    held_image want = make(TC_PIXELS_U8, 53, 29, 3, 0, 0, 0, 0x3C);
    held_image got = make(TC_PIXELS_U8, 53, 29, 3, 0, 0, 1, 0x3C);
    tc_direct_counts before, after;
    tc_params p = test_params_taps(5, 5);
    fill(&src);
    copy_pixels(&src, &psrc);
    if (tc_filter_image(ctx, &src.img, &want.img, &p) != TC_OK)
        fail_msg("staged image: %s", tc_error(ctx));
    tc_direct_transfers(ctx, &before);
    for (int i = 0; i < MAKERS; i++) {
        makers[i] = (block_maker){i, 40, 0};
        assert_int_equal(pthread_create(&threads[i], NULL, make_blocks, &makers[i]), 0);
    }
    const int calls = 30;
    for (int c = 0; c < calls; c++) {
        memset(got.block, 0x3C, got.size);
        if (tc_filter_image(ctx, &psrc.img, &got.img, &p) != TC_OK)
            fail_msg("call %d: %s", c, tc_error(ctx));
        same_blocks(&got, &want, "an image in a block while others are made");
    }
    for (int i = 0; i < MAKERS; i++) {
        assert_int_equal(pthread_join(threads[i], NULL), 0);
        assert_int_equal(makers[i].bad, 0);
    }
    tc_direct_transfers(ctx, &after);
    const unsigned long long direct = has_pipeline() ? (unsigned long long)calls : 0;
    assert_int_equal(after.up - before.up, direct);
    assert_int_equal(after.down - before.down, direct);
    release(&src);
    release(&psrc);
    release(&want);
    release(&got);
}

/* Staged batches (malloc's memory both ways, a chunk smaller than an image) with the copies on
 * the calling thread, then on the crew, then alone again: every call's bytes the first's. */
static void test_copies_change_hands(void **state)
{
    (void)state;
    enum { N = 5 };
    held_image src[N], want[N], got[N];
    tc_image s[N], d[N], g[N];
    tc_params p = test_params_taps(5, 5);
    for (int i = 0; i < N; i++) {
        const int c = i % 2 ? 3 : 1, w = 61 + 9 * i, h = 37 + 5 * i;
        src[i] = make(TC_PIXELS_U8, w, h, c, 0, 0, 0, 0);
        want[i] = make(TC_PIXELS_U8, w, h, c, 0, 0, 0, 0x3C);
        got[i] = make(TC_PIXELS_U8, w, h, c, 0, 0, 0, 0x3C);
        fill(&src[i]);
        s[i] = src[i].img;
        d[i] = want[i].img;
        g[i] = got[i].img;
    }
    test_tune("staging-chunk=4096");
    tc_copy_threads_here(1);
    if (tc_filter_images(ctx, s, d, N, &p) != TC_OK)
        fail_msg("copies on the caller: %s", tc_error(ctx));
    const int widths[] = {0, 1, 0, 2, 1};
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        tc_copy_threads_here(widths[k]);
        for (int i = 0; i < N; i++)
            memset(got[i].block, 0x3C, got[i].size);
        if (tc_filter_images(ctx, s, g, N, &p) != TC_OK)
            fail_msg("copies on %d threads: %s", widths[k], tc_error(ctx));
        for (int i = 0; i < N; i++)
            same_blocks(&got[i], &want[i], "a batch whose copies changed hands");
    }
    tc_copy_threads_here(0);
    test_tune("staging-chunk=");
    /* The default chunk, an image's bytes over the copying threads (at least 512 KiB): a 5.8 MB
     * image moves in chunks whose size changes with the width, through one ring. */
    held_image big = make(TC_PIXELS_U8, 1600, 1200, 3, 0, 0, 0, 0);
    held_image big_want = make(TC_PIXELS_U8, 1600, 1200, 3, 0, 0, 0, 0x3C);
    held_image big_got = make(TC_PIXELS_U8, 1600, 1200, 3, 0, 0, 0, 0x3C);
    fill(&big);
    tc_copy_threads_here(1);
    if (tc_filter_image(ctx, &big.img, &big_want.img, &p) != TC_OK)
        fail_msg("a large image, copies on the caller: %s", tc_error(ctx));
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        tc_copy_threads_here(widths[k]);
        memset(big_got.block, 0x3C, big_got.size);
        if (tc_filter_image(ctx, &big.img, &big_got.img, &p) != TC_OK)
            fail_msg("a large image, copies on %d threads: %s", widths[k], tc_error(ctx));
        same_blocks(&big_got, &big_want, "a large image whose copies changed hands");
    }
    tc_copy_threads_here(0);
    release(&big);
    release(&big_want);
    release(&big_got);
    for (int i = 0; i < N; i++) {
        release(&src[i]);
        release(&want[i]);
        release(&got[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_and_free),
        cmocka_unit_test(test_single_images),
        cmocka_unit_test(test_bottom_up_direct),
        cmocka_unit_test(test_conversions_direct),
        cmocka_unit_test(test_larger_than_ring),
        cmocka_unit_test(test_switched_off),
        cmocka_unit_test(test_mapped_blocks),
        cmocka_unit_test(test_registered_memory),
        cmocka_unit_test(test_register_refusals),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_blocks_made_while_filtering),
        cmocka_unit_test(test_copies_change_hands),
    };
    return cmocka_run_group_tests(tests, context_setup, context_teardown);
}
