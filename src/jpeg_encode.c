/* jpeg_encode.c - pixels to a JPEG's coefficients on the device (jpeg_encode.h). */
#include "jpeg_encode.h"

#include "kernel_args.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "buffers.h" /* tc_ensure_buffer */

/* Work-items (blocks) a group, where the kernel allows as many. */
#define BLOCKS_PER_GROUP 64

/* x / y rounded up, for positive ints (libjpeg's jdiv_round_up). */
static long div_up(long x, long y)
{
    return (x + y - 1) / y;
}

/* The index of the highest bit set, plus 1 (jcdctmgr.c's flss); v > 0. */
static int highest_bit(unsigned v)
{
    int bit = 0;
    while (v) {
        bit++;
        v >>= 1;
    }
    return bit;
}

/* jcdctmgr.c's compute_reciprocal for the accurate DCT's divisor q << 3 (which undoes the
 * DCT's scaling), with libjpeg-turbo's 16-bit DCTELEM (its SIMD builds): the reciprocal, the
 * correction with the rounding folded in, and the whole shift (libjpeg's shift + 16). q << 3
 * is at least 8, so libjpeg's divisor-of-1 case never arises. */
static void reciprocal(unsigned q, cl_int *recip, cl_int *corr, cl_int *shift)
{
    const unsigned divisor = q << 3;
    int r = 16 + highest_bit(divisor) - 1;
    unsigned fq = (1u << r) / divisor, fr = (1u << r) % divisor, c = divisor / 2;
    if (fr == 0) { /* a power of two: fq one bit too wide for 16 bits */
        fq >>= 1;
        r--;
    } else if (fr <= divisor / 2) { /* the fraction below one half */
        c++;
    } else {
        fq++;
    }
    *recip = (cl_int)fq;
    *corr = (cl_int)c;
    *shift = r;
}

static void divisors_of(const uint16_t quant[64], cl_int out[TC_JPEG_DIVISOR_INTS])
{
    for (int i = 0; i < 64; i++)
        reciprocal(quant[i], &out[i], &out[64 + i], &out[128 + i]);
}

/* The kernel's table of c's components, checked: the blocks libjpeg would make for the
 * image's size and sampling, ratios the kernel reproduces (1 or 2 across, and 2 down only
 * with 2 across, as jcsample.c's h2v2), tables of 1..255 (baseline's, which jpeg_set_quality
 * forces). *blocks: real blocks in all (the range), *array_blocks: with the dummies. */
static int block_layouts(const jpeg_coefs *c, tc_jpeg_block_layout *out, size_t *blocks,
                         size_t *array_blocks, tc_msg *m)
{
    long first = 0, coef_block = 0;
    if (c->components != 1 && c->components != 3)
        return tc_fail(m, TC_EINVAL, "a JPEG of %d components: gray (1) and YCbCr (3) only",
                       c->components);
    if (c->width <= 0 || c->height <= 0 || c->max_h < 1 || c->max_v < 1)
        return tc_fail(m, TC_EINVAL, "a %d x %d JPEG with sampling %d x %d: nothing to encode",
                       c->width, c->height, c->max_h, c->max_v);
    int max_h = 1, max_v = 1; /* the components' largest factors, which c's must be */
    for (int i = 0; i < c->components; i++) {
        max_h = c->comp[i].h_samp > max_h ? c->comp[i].h_samp : max_h;
        max_v = c->comp[i].v_samp > max_v ? c->comp[i].v_samp : max_v;
    }
    if (max_h != c->max_h || max_v != c->max_v)
        return tc_fail(m, TC_EINVAL, "largest sampling %d x %d, where the components' is %d x %d",
                       c->max_h, c->max_v, max_h, max_v);
    for (int i = 0; i < c->components; i++) {
        const jpeg_coef_component *k = &c->comp[i];
        if (k->h_samp < 1 || k->v_samp < 1 || c->max_h % k->h_samp || c->max_v % k->v_samp)
            return tc_fail(m, TC_EINVAL, "component %d: sampling %d x %d under a largest %d x %d",
                           i, k->h_samp, k->v_samp, c->max_h, c->max_v);
        const int hr = c->max_h / k->h_samp, vr = c->max_v / k->v_samp;
        if (hr > 2 || vr > hr)
            return tc_fail(m, TC_EINVAL,
                           "component %d: downsampled %d x %d, which libjpeg averages with "
                           "other roundings (the device does 1 x 1, 2 x 1 and 2 x 2)",
                           i, hr, vr);
        const long wib = div_up((long)c->width * k->h_samp, 8L * c->max_h);
        const long hib = div_up((long)c->height * k->v_samp, 8L * c->max_v);
        if (k->blocks_wide != div_up(wib, k->h_samp) * k->h_samp ||
            k->blocks_high != div_up(hib, k->v_samp) * k->v_samp)
            return tc_fail(m, TC_EINVAL,
                           "component %d: %d x %d blocks, where libjpeg makes %ld x %ld", i,
                           k->blocks_wide, k->blocks_high, div_up(wib, k->h_samp) * k->h_samp,
                           div_up(hib, k->v_samp) * k->v_samp);
        for (int j = 0; j < 64; j++)
            if (k->quant[j] < 1 || k->quant[j] > 255)
                return tc_fail(m, TC_EINVAL, "component %d: quantiser %d is %u (1..255 here)", i,
                               j, k->quant[j]);
        if (first + wib * hib > INT_MAX - BLOCKS_PER_GROUP ||
            coef_block + (long)k->blocks_wide * k->blocks_high > INT_MAX / 64)
            return tc_fail(m, TC_EINVAL, "a %d x %d JPEG: too many blocks for one range",
                           c->width, c->height);
        out[i] = (tc_jpeg_block_layout){(cl_int)first,       (cl_int)wib,
                                     (cl_int)hib,         k->blocks_wide,
                                     k->blocks_high,      (cl_int)coef_block,
                                     k->h_samp,           k->v_samp,
                                     hr,                  vr,
                                     (cl_int)(div_up(c->height, c->max_v) * k->v_samp),
                                     c->components == 1 ? 0 : i};
        first += wib * hib;
        coef_block += (long)k->blocks_wide * k->blocks_high;
    }
    *blocks = (size_t)first;
    *array_blocks = (size_t)coef_block;
    return TC_OK;
}

/* pixels holds the c->width x c->height x channels bytes the kernel reads. */
static int check_pixels(cl_mem pixels, const jpeg_coefs *c, tc_msg *m)
{
    size_t size = 0;
    const size_t need = (size_t)c->width * (size_t)c->height * (size_t)c->components;
    const cl_int err = clGetMemObjectInfo(pixels, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS)
        return cl_fail(m, err, "clGetMemObjectInfo(pixels)");
    if (size < need)
        return tc_fail(m, TC_EINVAL, "the pixel buffer holds %zu bytes; a %d x %d x %d image "
                                     "takes %zu",
                       size, c->width, c->height, c->components, need);
    return TC_OK;
}

/* Every component's coefficients read from the device's buffer into c's block in one transfer
 * (not waited for): the kernel lays them out as jpeg_coefs_alloc does, one after another. */
static int download(cl_command_queue q, cl_mem coef, jpeg_coefs *c,
                    const tc_jpeg_block_layout *l, size_t array_blocks, cl_event *ev, tc_msg *m)
{
    int status = TC_OK;
    for (int i = 0; i < c->components; i++)
        if (c->comp[i].coef != (int16_t *)c->block + (size_t)l[i].coef_block * 64)
            return tc_fail(m, TC_EINVAL, "component %d's coefficients do not follow the ones "
                                         "before it in the block (jpeg_coefs_alloc)", i);
    CL_CALL(status, cleanup, m,
            clEnqueueReadBuffer(q, coef, CL_FALSE, 0, array_blocks * 64 * sizeof(int16_t),
                                c->block, 0, NULL, ev));
cleanup:
    return status;
}

void tc_jpeg_encoder_release(tc_jpeg_encoder *enc)
{
    tc_event_release(&enc->kernel_done);
    tc_event_release(&enc->down);
    cl_mem *mems[] = {&enc->coef, &enc->divisors, &enc->layouts};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    if (enc->kernel)
        clReleaseKernel(enc->kernel);
    memset(enc, 0, sizeof *enc);
}

/* The encode program's kernel and the buffers of c's layout, kept or made (grown) now. */
static int ensure_encoder(tc_jpeg_encoder *enc, const tc_device *d, tc_program_cache *programs,
                          size_t array_blocks, int components, tc_msg *m)
{
    cl_program program;
    double build_ms;
    cl_int err;
    int status;
    if (!enc->kernel) {
        if ((status = tc_program_get(programs, d, TC_SOURCE_JPEG_ENCODE, "", &program, &build_ms,
                                     m)) != TC_OK)
            return status;
        enc->kernel = clCreateKernel(program, "jpeg_encode_blocks", &err);
        if (err != CL_SUCCESS)
            return cl_fail(m, err, "clCreateKernel(jpeg_encode_blocks)");
    }
    if (!enc->group) {
        CL_CALL(status, failed, m,
                clGetKernelWorkGroupInfo(enc->kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE,
                                         sizeof enc->group, &enc->group, NULL));
        enc->group = enc->group < BLOCKS_PER_GROUP ? enc->group : BLOCKS_PER_GROUP;
    }
    const size_t layout_bytes = sizeof(tc_jpeg_block_layout) * (size_t)components,
                 divisor_bytes = sizeof(cl_int) * TC_JPEG_DIVISOR_INTS * (size_t)components;
    const cl_mem layouts_before = enc->layouts, divisors_before = enc->divisors;
    status = tc_ensure_buffer(d, &enc->layouts, &enc->layouts_size, layout_bytes,
                              CL_MEM_READ_ONLY, "clCreateBuffer(JPEG component layouts)", m);
    if (status == TC_OK)
        status = tc_ensure_buffer(d, &enc->divisors, &enc->divisors_size, divisor_bytes,
                                  CL_MEM_READ_ONLY, "clCreateBuffer(JPEG quantisation divisors)",
                                  m);
    if (enc->layouts != layouts_before || enc->divisors != divisors_before)
        enc->tables_sent = 0; /* a new buffer holds no tables yet */
    if (status != TC_OK)
        return status;
    return tc_ensure_buffer(d, &enc->coef, &enc->coef_size, array_blocks * 64 * sizeof(int16_t),
                            CL_MEM_WRITE_ONLY, "clCreateBuffer(JPEG coefficients)", m);
failed:
    enc->group = 0;
    return status;
}

/* The kernel over `blocks` work-items on queue, its tables written before it where send. */
static int run_kernel(tc_jpeg_encoder *enc, cl_command_queue q, cl_mem pixels,
                      const jpeg_coefs *c, size_t blocks, int send, int timed, tc_msg *m)
{
    const cl_int width = c->width, height = c->height, channels = c->components;
    const cl_int components = c->components;
    const tc_kernel_arg args[] = {TC_KARG(pixels),       TC_KARG(width),    TC_KARG(height),
                                  TC_KARG(channels),     TC_KARG(enc->layouts),
                                  TC_KARG(components),   TC_KARG(enc->divisors),
                                  TC_KARG(enc->coef)};
    int status = TC_OK;
    if (send) {
        CL_CALL(status, cleanup, m,
                clEnqueueWriteBuffer(q, enc->layouts, CL_FALSE, 0,
                                     sizeof enc->layout_host[0] * (size_t)components,
                                     enc->layout_host, 0, NULL, NULL));
        CL_CALL(status, cleanup, m,
                clEnqueueWriteBuffer(q, enc->divisors, CL_FALSE, 0,
                                     sizeof enc->divisor_host[0] * (size_t)components,
                                     enc->divisor_host, 0, NULL, NULL));
    }
    /* Groups of a fixed size (the range rounded up; the kernel skips the items past the last
     * block): PoCL compiles a kernel again for each group size it meets, which a size of the
     * driver's choice, following the image's, would make once an image. */
    size_t group = enc->group;
    const size_t global = (blocks + group - 1) / group * group;
    if ((status = tc_set_args(enc->kernel, "jpeg_encode_blocks", args,
                              (int)(sizeof args / sizeof args[0]), m)) == TC_OK)
        status = tc_enqueue_range(q, enc->kernel, 1, &global, &group,
                                  timed ? &enc->kernel_done : NULL, m);
cleanup:
    return status;
}

int tc_jpeg_encode_enqueue(tc_jpeg_encoder *enc, const tc_device *d, tc_program_cache *programs,
                           cl_command_queue queue, cl_mem pixels, jpeg_coefs *c, int timed,
                           tc_msg *m)
{
    tc_jpeg_block_layout layouts[JPEG_COEFS_MAX_COMPONENTS];
    cl_int divisors[JPEG_COEFS_MAX_COMPONENTS][TC_JPEG_DIVISOR_INTS];
    size_t blocks = 0, array_blocks = 0;
    int status;
    tc_event_release(&enc->kernel_done); /* an encode before that was never finished */
    tc_event_release(&enc->down);
    if (!c->block)
        return tc_fail(m, TC_EINVAL, "the coefficients have no block (jpeg_coefs_alloc)");
    if ((status = block_layouts(c, layouts, &blocks, &array_blocks, m)) != TC_OK ||
        (status = check_pixels(pixels, c, m)) != TC_OK ||
        (status = ensure_encoder(enc, d, programs, array_blocks, c->components, m)) != TC_OK)
        goto done;
    for (int i = 0; i < c->components; i++)
        divisors_of(c->comp[i].quant, divisors[i]);
    const size_t n = (size_t)c->components;
    const int send = enc->tables_sent != c->components ||
                     memcmp(layouts, enc->layout_host, n * sizeof layouts[0]) != 0 ||
                     memcmp(divisors, enc->divisor_host, n * sizeof divisors[0]) != 0;
    if (send) {
        memcpy(enc->layout_host, layouts, n * sizeof layouts[0]);
        memcpy(enc->divisor_host, divisors, n * sizeof divisors[0]);
        enc->tables_sent = 0; /* until their writes are in the queue */
    }
    if ((status = run_kernel(enc, queue, pixels, c, blocks, send, timed, m)) != TC_OK)
        goto done;
    enc->tables_sent = c->components;
    status = download(queue, enc->coef, c, layouts, array_blocks, timed ? &enc->down : NULL, m);
done:
    if (status != TC_OK) /* whatever the queue made of them, the next encode sends its tables */
        enc->tables_sent = 0;
    return status;
}

int tc_jpeg_encode_finish(tc_jpeg_encoder *enc, tc_jpeg_times *times, tc_msg *m)
{
    double blocks_ms = 0.0, down_ms = 0.0;
    int status = TC_OK;
    if (times && enc->kernel_done &&
        (status = tc_stat_ms(enc->kernel_done, &blocks_ms, m)) == TC_OK &&
        (status = tc_stat_ms(enc->down, &down_ms, m)) == TC_OK) {
        times->blocks_ms += blocks_ms;
        times->down_ms += down_ms;
    }
    tc_event_release(&enc->kernel_done);
    tc_event_release(&enc->down);
    return status;
}

int tc_jpeg_encode_coefs(const tc_device *d, tc_program_cache *programs, cl_mem pixels,
                         jpeg_coefs *c, tc_jpeg_times *times, tc_msg *m)
{
    tc_jpeg_encoder enc;
    const int made = !c->block;
    memset(&enc, 0, sizeof enc);
    if (made && jpeg_coefs_alloc(c))
        return tc_fail(m, TC_ENOMEM, "out of host memory for %zu bytes of coefficients",
                       jpeg_coefs_bytes(c));
    int status = tc_jpeg_encode_enqueue(&enc, d, programs, d->queue, pixels, c, times != NULL, m);
    /* Waits for the reads too, whatever happened, so that c may be freed. */
    const cl_int err = clFinish(d->queue);
    if (status == TC_OK && err != CL_SUCCESS)
        status = cl_fail(m, err, "clFinish(JPEG encode)");
    if (status == TC_OK)
        status = tc_jpeg_encode_finish(&enc, times, m);
    tc_jpeg_encoder_release(&enc);
    if (status != TC_OK && made) {
        io_pixels_free(c->block, c->allocator);
        c->block = NULL;
        c->allocator = NULL;
        for (int i = 0; i < c->components; i++)
            c->comp[i].coef = NULL;
    }
    return status;
}
