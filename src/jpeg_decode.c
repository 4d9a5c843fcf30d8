/*
 * jpeg_decode.c - a JPEG's pixels from its coefficients on the device (jpeg_decode.h): the
 * components' layouts worked out on the host, libjpeg-turbo's choice of upsampler made for each
 * component as jdsample.c's jinit_upsampler makes it, the coefficients uploaded as they lie, the
 * two kernels of JpegDecode.cl run, and the count of blocks outside TurboJPEG's SIMD bounds
 * read back.
 */
#include "jpeg_decode.h"

#include <limits.h>
#include <string.h>

#include "buffers.h"
#include "kernel_args.h"

/* JpegDecode.cl's UP_ names. */
enum { UP_FULLSIZE, UP_REPLICATE, UP_H2V1, UP_H1V2, UP_H2V2 };

/* The events of the decode in flight, if any. */
static void release_events(tc_jpeg_decoder *dec)
{
    for (int i = 0; i < 2; i++) {
        tc_event_release(&dec->up[i]);
        tc_event_release(&dec->blocks[i]);
    }
}

void tc_jpeg_decoder_release(tc_jpeg_decoder *dec)
{
    cl_mem *mems[] = {&dec->wrong, &dec->planes, &dec->quant, &dec->coef};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    release_events(dec);
    if (dec->color)
        clReleaseKernel(dec->color);
    if (dec->idct)
        clReleaseKernel(dec->idct);
    memset(dec, 0, sizeof *dec);
}

size_t tc_jpeg_decoded_bytes(const jpeg_coefs *c, int channels)
{
    return (size_t)c->width * (size_t)c->height * (size_t)channels;
}

/* One decode's layout: per component (lanes of the kernels' int4s), the blocks shown and
 * stored a row, where its coefficients and its samples start, its upsampler; the bytes of the
 * coefficients the output reads (the first components' of c's block). */
typedef struct {
    int components; /* the ones the output reads: 1 or 3 */
    int block_end[3], blocks_used[3], blocks_stored[3], coef_start[3], plane_start[3];
    int method[3], h_expand[3], v_expand[3];
    size_t coef_bytes, plane_bytes, blocks;
} layout;

/* jinit_upsampler's choice for a component expanded h x v times (do_fancy holds: TurboJPEG
 * leaves fancy upsampling on, and no IDCT scaling): the fancy h2v1 and h2v2 only where the
 * component is wider than 2 samples, which their SIMD versions need. */
static int upsampler(int h, int v, int samples_wide)
{
    if (h == 1 && v == 1)
        return UP_FULLSIZE;
    if (h == 2 && v == 1)
        return samples_wide > 2 ? UP_H2V1 : UP_REPLICATE;
    if (h == 1 && v == 2)
        return UP_H1V2;
    if (h == 2 && v == 2)
        return samples_wide > 2 ? UP_H2V2 : UP_REPLICATE;
    return UP_REPLICATE; /* int_upsample: 4:1:1 and any other integral ratio */
}

/* c's layout checked and worked out for `channels` outputs. TC_OK or TC_EINVAL. */
static int plan(const jpeg_coefs *c, int channels, layout *l, tc_msg *m)
{
    memset(l, 0, sizeof *l);
    if (channels != 1 && channels != 3)
        return tc_fail(m, TC_EINVAL, "channels %d: a JPEG decodes to 1 (gray) or 3 (RGB)",
                       channels);
    if (c->components != 1 && c->components != 3)
        return tc_fail(m, TC_EINVAL, "%d components: the device decoder takes 1 or 3",
                       c->components);
    if (channels > c->components)
        return tc_fail(m, TC_EINVAL, "RGB asked of a JPEG of one component");
    if (c->width < 1 || c->height < 1 || c->max_h < 1 || c->max_v < 1)
        return tc_fail(m, TC_EINVAL, "a JPEG of %d x %d pixels, sampling %d x %d", c->width,
                       c->height, c->max_h, c->max_v);
    l->components = channels;
    size_t blocks = 0, plane_bytes = 0, values = 0;
    for (int i = 0; i < channels; i++) {
        const jpeg_coef_component *k = &c->comp[i];
        const int used_wide = (k->width + 7) / 8, used_high = (k->height + 7) / 8;
        /* The components lie one after another from the block's start (jpeg_coefs_alloc). */
        if (!k->coef || k->coef != (const int16_t *)c->block + values)
            return tc_fail(m, TC_EINVAL, "component %d's coefficients do not follow the ones "
                                         "before it in the block (jpeg_coefs_alloc)", i);
        if (k->h_samp < 1 || k->v_samp < 1 || c->max_h % k->h_samp || c->max_v % k->v_samp ||
            k->width < 1 || k->height < 1 || used_wide > k->blocks_wide ||
            used_high > k->blocks_high)
            return tc_fail(m, TC_EINVAL,
                           "component %d: %d x %d samples at %d x %d in %d x %d blocks does not "
                           "fit a %d x %d sampling",
                           i, k->width, k->height, k->h_samp, k->v_samp, k->blocks_wide,
                           k->blocks_high, c->max_h, c->max_v);
        l->h_expand[i] = c->max_h / k->h_samp;
        l->v_expand[i] = c->max_v / k->v_samp;
        l->method[i] = upsampler(l->h_expand[i], l->v_expand[i], k->width);
        l->blocks_used[i] = used_wide;
        l->blocks_stored[i] = k->blocks_wide;
        l->plane_start[i] = (int)plane_bytes;
        l->coef_start[i] = (int)values;
        blocks += (size_t)used_wide * (size_t)used_high;
        l->block_end[i] = (int)blocks;
        values += (size_t)k->blocks_wide * (size_t)k->blocks_high * 64;
        plane_bytes += (size_t)used_wide * (size_t)used_high * 64;
        /* The kernels index in int: a decode stays under 2 GiB of samples and coefficients. */
        if (plane_bytes > INT_MAX || values > INT_MAX)
            return tc_fail(m, TC_EINVAL, "a JPEG of %d x %d pixels is too large to decode on "
                                         "the device in one piece", c->width, c->height);
    }
    for (int i = channels; i < 3; i++)
        l->block_end[i] = (int)blocks;
    l->blocks = blocks;
    l->plane_bytes = plane_bytes;
    l->coef_bytes = values * sizeof(int16_t);
    return TC_OK;
}

/* The two kernels, made once for the decoder from the program cache. */
static int ensure_kernels(const tc_jpeg_decode_parts *p, tc_msg *m)
{
    tc_jpeg_decoder *dec = p->decoder;
    cl_program program;
    double build_ms;
    cl_int err;
    int status;
    if (dec->idct && dec->color)
        return TC_OK;
    if ((status = tc_program_get(p->programs, p->device, TC_SOURCE_JPEG_DECODE, "-cl-std=CL1.2",
                                 &program, &build_ms, m)) != TC_OK)
        return status;
    if (!dec->idct) {
        dec->idct = clCreateKernel(program, "jpeg_idct", &err);
        if (err != CL_SUCCESS) {
            dec->idct = NULL;
            return cl_fail(m, err, "clCreateKernel(jpeg_idct)");
        }
    }
    dec->color = clCreateKernel(program, "jpeg_color", &err);
    if (err != CL_SUCCESS) {
        dec->color = NULL;
        return cl_fail(m, err, "clCreateKernel(jpeg_color)");
    }
    return TC_OK;
}

/* The decoder's buffers large enough for l (on a CPU device, the host's room checked first). */
static int ensure_buffers(const tc_jpeg_decode_parts *p, const layout *l, tc_msg *m)
{
    const tc_device *d = p->device;
    tc_jpeg_decoder *dec = p->decoder;
    const size_t quant_bytes = 3 * 64 * sizeof(uint16_t);
    int status;
    const unsigned long long more = tc_new_bytes(dec->planes_bytes, l->plane_bytes) +
                                    tc_new_bytes(dec->coef_bytes, l->coef_bytes);
    if ((status = tc_check_host_room(d, more, "the JPEG decoder's buffers", m)) != TC_OK)
        return status;
    const cl_mem quant_before = dec->quant;
    status = tc_ensure_buffer(d, &dec->quant, &dec->quant_bytes, quant_bytes, CL_MEM_READ_ONLY,
                              "clCreateBuffer(JPEG quantisers)", m);
    if (dec->quant != quant_before) /* a new buffer holds no tables yet */
        dec->quant_sent = 0;
    if (status != TC_OK ||
        (status = tc_ensure_buffer(d, &dec->coef, &dec->coef_bytes, l->coef_bytes,
                                   CL_MEM_READ_ONLY, "clCreateBuffer(JPEG coefficients)", m)) !=
            TC_OK ||
        (status = tc_ensure_buffer(d, &dec->planes, &dec->planes_bytes, l->plane_bytes,
                                   CL_MEM_READ_WRITE, "clCreateBuffer(JPEG sample planes)", m)) !=
            TC_OK ||
        (status = tc_ensure_buffer(d, &dec->wrong, &dec->wrong_bytes, sizeof(cl_int),
                                   CL_MEM_READ_WRITE, "clCreateBuffer(JPEG block count)", m)) !=
            TC_OK)
        return status;
    return TC_OK;
}

/* The coefficients (one transfer from c's block), the quantisers where they are not those the
 * buffer holds, and a zero count to the device. The writes do not block: the caller waits for
 * the queue before c may change. */
static int upload(const tc_jpeg_decode_parts *p, cl_command_queue q, const jpeg_coefs *c,
                  const layout *l, cl_event ev[2], tc_msg *m)
{
    tc_jpeg_decoder *dec = p->decoder;
    uint16_t quant[JPEG_COEFS_MAX_COMPONENTS][64];
    const cl_int zero = 0;
    int status = TC_OK;
    memcpy(quant, dec->quant_host, sizeof quant);
    for (int i = 0; i < l->components; i++)
        memcpy(quant[i], c->comp[i].quant, sizeof quant[i]);
    CL_CALL(status, done, m,
            clEnqueueWriteBuffer(q, dec->coef, CL_FALSE, 0, l->coef_bytes, c->block, 0, NULL,
                                 ev ? &ev[0] : NULL));
    if (!dec->quant_sent || memcmp(quant, dec->quant_host, sizeof quant) != 0) {
        memcpy(dec->quant_host, quant, sizeof quant);
        dec->quant_sent = 0; /* until the write is in the queue */
        CL_CALL(status, done, m,
                clEnqueueWriteBuffer(q, dec->quant, CL_FALSE, 0, sizeof quant, dec->quant_host,
                                     0, NULL, ev ? &ev[1] : NULL));
        dec->quant_sent = 1;
    }
    CL_CALL(status, done, m,
            clEnqueueFillBuffer(q, dec->wrong, &zero, sizeof zero, 0, sizeof zero, 0, NULL,
                                NULL));
done:
    return status;
}

static cl_int4 int4_of(const int v[3])
{
    cl_int4 r = {{v[0], v[1], v[2], 0}};
    return r;
}

/* jpeg_idct over every shown block, then jpeg_color over every pixel into out. */
static int launch(const tc_jpeg_decode_parts *p, cl_command_queue q, const jpeg_coefs *c,
                  int channels, const layout *l, cl_mem out, cl_event ev[2], tc_msg *m)
{
    tc_jpeg_decoder *dec = p->decoder;
    int pitch[3], wide[3], high[3];
    for (int i = 0; i < 3; i++) {
        pitch[i] = l->blocks_used[i] * 8;
        wide[i] = i < l->components ? c->comp[i].width : 0;
        high[i] = i < l->components ? c->comp[i].height : 0;
    }
    const cl_int4 block_end = int4_of(l->block_end), used = int4_of(l->blocks_used),
                  stored = int4_of(l->blocks_stored), coef_start = int4_of(l->coef_start),
                  plane_start = int4_of(l->plane_start), pitch4 = int4_of(pitch),
                  wide4 = int4_of(wide), high4 = int4_of(high), method = int4_of(l->method),
                  h_expand = int4_of(l->h_expand), v_expand = int4_of(l->v_expand);
    const cl_int width = c->width, height = c->height, ch = channels;
    const tc_kernel_arg idct_args[] = {TC_KARG(dec->coef),      TC_KARG(dec->quant),
                                       TC_KARG(dec->planes),    TC_KARG(dec->wrong),
                                       TC_KARG(block_end),      TC_KARG(used),
                                       TC_KARG(stored),         TC_KARG(coef_start),
                                       TC_KARG(plane_start)};
    const tc_kernel_arg color_args[] = {TC_KARG(dec->planes), TC_KARG(out),
                                        TC_KARG(width),       TC_KARG(height),
                                        TC_KARG(ch),          TC_KARG(plane_start),
                                        TC_KARG(pitch4),      TC_KARG(wide4),
                                        TC_KARG(high4),       TC_KARG(method),
                                        TC_KARG(h_expand),    TC_KARG(v_expand)};
    const size_t blocks = l->blocks, pixels[2] = {(size_t)c->width, (size_t)c->height};
    int status;
    if ((status = tc_set_args(dec->idct, "jpeg_idct", idct_args,
                              (int)(sizeof idct_args / sizeof idct_args[0]), m)) != TC_OK ||
        (status = tc_enqueue_range(q, dec->idct, 1, &blocks, NULL, ev ? &ev[0] : NULL, m)) !=
            TC_OK ||
        (status = tc_set_args(dec->color, "jpeg_color", color_args,
                              (int)(sizeof color_args / sizeof color_args[0]), m)) != TC_OK ||
        (status = tc_enqueue(q, dec->color, pixels, NULL, ev ? &ev[1] : NULL, m)) != TC_OK)
        return status;
    return TC_OK;
}

int tc_jpeg_decode_enqueue(const tc_jpeg_decode_parts *p, cl_command_queue queue,
                           const jpeg_coefs *c, int channels, cl_mem out, tc_msg *m)
{
    tc_jpeg_decoder *dec = p->decoder;
    layout l;
    int status;
    release_events(dec); /* a decode before that was never finished */
    if ((status = plan(c, channels, &l, m)) != TC_OK ||
        (status = ensure_kernels(p, m)) != TC_OK || (status = ensure_buffers(p, &l, m)) != TC_OK ||
        (status = upload(p, queue, c, &l, p->times ? dec->up : NULL, m)) != TC_OK ||
        (status = launch(p, queue, c, channels, &l, out, p->times ? dec->blocks : NULL, m)) !=
            TC_OK)
        goto done;
    CL_CALL(status, done, m,
            clEnqueueReadBuffer(queue, dec->wrong, CL_FALSE, 0, sizeof dec->wrong_host,
                                &dec->wrong_host, 0, NULL, NULL));
done:
    if (status != TC_OK) /* whatever the queue made of it, the next decode sends its tables */
        dec->quant_sent = 0;
    return status;
}

int tc_jpeg_decode_finish(const tc_jpeg_decode_parts *p, int *exact, tc_msg *m)
{
    tc_jpeg_decoder *dec = p->decoder;
    double up_ms = 0.0, blocks_ms = 0.0;
    int status = TC_OK;
    *exact = dec->wrong_host == 0;
    /* Tables the buffer held already: the coefficients' one transfer is the whole span. */
    if (p->times && dec->up[0] &&
        (status = tc_stat_span_ms(dec->up[0], dec->up[1] ? dec->up[1] : dec->up[0], &up_ms,
                                  m)) == TC_OK &&
        (status = tc_stat_span_ms(dec->blocks[0], dec->blocks[1], &blocks_ms, m)) == TC_OK) {
        p->times->up_ms += up_ms;
        p->times->blocks_ms += blocks_ms;
    }
    release_events(dec);
    return status;
}

int tc_jpeg_decode(const tc_jpeg_decode_parts *p, const jpeg_coefs *c, int channels, cl_mem out,
                   int *exact, tc_msg *m)
{
    const cl_command_queue q = p->device->queue;
    int status = tc_jpeg_decode_enqueue(p, q, c, channels, out, m);
    /* Waits for the uploads too, whatever happened: they read c. */
    const cl_int err = clFinish(q);
    if (status == TC_OK && err != CL_SUCCESS)
        status = cl_fail(m, err, "clFinish(JPEG decode)");
    if (status == TC_OK)
        return tc_jpeg_decode_finish(p, exact, m);
    release_events(p->decoder);
    return status;
}
