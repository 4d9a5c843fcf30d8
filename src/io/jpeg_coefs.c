/*
 * jpeg_coefs.c - a JPEG file read as far as its quantised coefficients (jpeg_coefs.h), for the
 * device decoder, with every refusal of jpeg.c's TurboJPEG decoder; and the files whose pixels
 * the device could not make as TurboJPEG makes them told apart, so that they stay on the CPU.
 *
 * The arithmetic after the coefficients is libjpeg-turbo 2.1's as tjDecompress2 runs it with
 * jpeg.c's flags: dequantisation and the islow inverse DCT, the upsampler jdsample.c picks for
 * each component, the YCbCr tables of jdcolor.c. What that arithmetic does not cover:
 *   - colour spaces other than YCbCr and gray (an RGB JPEG is copied, or made gray from RGB);
 *   - block smoothing: libjpeg-turbo 2.1 smooths the blocks of a progressive file while any of
 *     the first nine AC coefficients of a component is not fully refined (jdcoefct.c,
 *     smoothing_ok), from the coefficients' bit positions left after the last scan;
 *   - a coefficient times its quantiser beyond +-32767: TurboJPEG's SIMD inverse DCT multiplies
 *     in 16 bits and wraps, where the C one libjpeg documents does not.
 */
#include "jpeg_coefs.h"

#include "codec_common.h"
#include "jpeg.h"
#include "jpeg_arrays.h"
#include "jpeg_trap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jpeg_coefs_free(jpeg_coefs *c)
{
    if (!c)
        return;
    io_pixels_free(c->block, c->allocator);
    memset(c, 0, sizeof *c);
}

/* One component's coefficients, in values. */
static size_t component_values(const jpeg_coef_component *k)
{
    return (size_t)k->blocks_wide * (size_t)k->blocks_high * 64;
}

size_t jpeg_coefs_bytes(const jpeg_coefs *c)
{
    size_t values = 0;
    for (int i = 0; i < c->components; i++)
        values += component_values(&c->comp[i]);
    return values * sizeof(int16_t);
}

int jpeg_coefs_alloc(jpeg_coefs *c)
{
    const io_allocator *from;
    int16_t *at = io_pixels_alloc(jpeg_coefs_bytes(c), &from);
    if (!at)
        return -1;
    c->block = at;
    c->allocator = from;
    for (int i = 0; i < c->components; i++) {
        c->comp[i].coef = at;
        at += component_values(&c->comp[i]);
    }
    return 0;
}

/* The "stays on the CPU" answer: 1, with the reason. */
static int cpu_only(char *err, size_t err_size, const char *why)
{
    if (err && err_size)
        snprintf(err, err_size, "%s", why);
    return 1;
}

#ifdef TC_HAVE_JPEGLIB

/* The decompressor and what the jump back from libjpeg must find intact (on the heap, not in
 * locals that setjmp would leave indeterminate). */
typedef struct {
    struct jpeg_decompress_struct d;
    jpeg_trap trap;
    struct jpeg_progress_mgr progress;
    jpeg_arrays arrays; /* libjpeg's arrays on coefs' block */
    jpeg_coefs coefs;
} coef_reader;

/* libjpeg-turbo 2.1's smoothing_ok (jdcoefct.c), on the state after the last scan: 1 when
 * tjDecompress2 would smooth the blocks (a progressive file, every component's DC seen, the
 * quantisers of the first nine AC coefficients non-zero, and one of those coefficients not
 * fully refined in some component). */
static int smoothing_applies(j_decompress_ptr d)
{
    /* Q01, Q10, Q20, Q11, Q02, Q03, Q12, Q21, Q30 in natural order, as jdcoefct.c's SAVED_COEFS
     * positions after the DC. */
    static const int positions[] = {1, 8, 16, 9, 2, 3, 10, 17, 24};
    const int count = (int)(sizeof positions / sizeof positions[0]);
    int useful = 0;
    if (!d->progressive_mode || !d->coef_bits)
        return 0;
    for (int ci = 0; ci < d->num_components; ci++) {
        const JQUANT_TBL *q = d->comp_info[ci].quant_table;
        const int *bits = d->coef_bits[ci];
        if (!q || q->quantval[0] == 0)
            return 0;
        for (int i = 0; i < count; i++)
            if (q->quantval[positions[i]] == 0)
                return 0;
        if (bits[0] < 0)
            return 0;
        for (int i = 1; i <= count; i++)
            if (bits[i] != 0)
                useful = 1;
    }
    return useful;
}

/* Why the header alone sends the file to the CPU, or NULL. */
static const char *header_refusal(j_decompress_ptr d, int luma_only)
{
    const int keep = luma_only ? 1 : d->num_components;
    if (!(d->num_components == 1 && d->jpeg_color_space == JCS_GRAYSCALE) &&
        !(d->num_components == 3 && d->jpeg_color_space == JCS_YCbCr))
        return "the colour space is neither YCbCr nor gray";
    if (d->num_components > JPEG_COEFS_MAX_COMPONENTS)
        return "more components than the device decoder takes";
    for (int ci = 0; ci < keep; ci++) {
        const jpeg_component_info *c = &d->comp_info[ci];
        if (d->max_h_samp_factor % c->h_samp_factor || d->max_v_samp_factor % c->v_samp_factor)
            return "a sampling that is not an integral ratio";
    }
    return NULL;
}

/* The largest and the smallest value of each position of a row's blocks kept in high[] and
 * low[]: signed 16-bit maxima and minima, which the baseline x86-64 instructions do eight at a
 * time (an absolute value and an unsigned maximum took three times as many). */
static void scan_row(const int16_t *restrict from, int blocks, int16_t *restrict high,
                     int16_t *restrict low)
{
    for (int b = 0; b < blocks; b++, from += DCTSIZE2)
        for (int k = 0; k < DCTSIZE2; k++) {
            const int16_t v = from[k];
            high[k] = v > high[k] ? v : high[k];
            low[k] = v < low[k] ? v : low[k];
        }
}

/* Component ci's blocks as libjpeg decoded them into c->coef: the largest magnitude of each of
 * the 64 positions of the image's blocks kept in most[], and the dummy blocks past them zeroed
 * (an interleaved scan decodes those of its last MCUs; nothing shows them). */
static void check_blocks(j_decompress_ptr d, int ci, jpeg_coef_component *c,
                         long most[DCTSIZE2])
{
    int16_t high[DCTSIZE2] = {0}, low[DCTSIZE2] = {0};
    const jpeg_component_info *info = &d->comp_info[ci];
    const int used_wide = (int)info->width_in_blocks, used_high = (int)info->height_in_blocks;
    const size_t row_values = (size_t)c->blocks_wide * DCTSIZE2;
    const size_t used_values = (size_t)used_wide * DCTSIZE2;
    for (int y = 0; y < used_high; y++) {
        int16_t *row = c->coef + (size_t)y * row_values;
        scan_row(row, used_wide, high, low);
        memset(row + used_values, 0, (row_values - used_values) * sizeof *row);
    }
    memset(c->coef + (size_t)used_high * row_values, 0,
           (size_t)(c->blocks_high - used_high) * row_values * sizeof *c->coef);
    for (int k = 0; k < DCTSIZE2; k++)
        most[k] = -(long)low[k] > high[k] ? -(long)low[k] : high[k];
}

/* The component's size and quantisers from libjpeg's (a component no scan carried has no table:
 * its coefficients are all zero, and libjpeg's IDCT multiplies them by zeros). */
static void describe(j_decompress_ptr d, int ci, jpeg_coef_component *c)
{
    const jpeg_component_info *info = &d->comp_info[ci];
    c->h_samp = info->h_samp_factor;
    c->v_samp = info->v_samp_factor;
    c->width = (int)info->downsampled_width;
    c->height = (int)info->downsampled_height;
    for (int k = 0; k < DCTSIZE2; k++)
        c->quant[k] = info->quant_table ? (uint16_t)info->quant_table->quantval[k] : 0;
}

/* The kept components' arrays (jpeg_arrays_place): one block, allocated now for the sizes
 * libjpeg asked for (jpeg_coefs_alloc: the thread's allocator) and zeroed, as libjpeg zeroes
 * its own, since its decoder writes only a block's non-zero coefficients. */
static int place_decoded(void *user, int count, const JDIMENSION wide[],
                         const JDIMENSION high[], JBLOCKROW first[])
{
    jpeg_coefs *k = user;
    k->components = count;
    for (int i = 0; i < count; i++) {
        k->comp[i].blocks_wide = (int)wide[i];
        k->comp[i].blocks_high = (int)high[i];
    }
    if (jpeg_coefs_alloc(k))
        return -1;
    memset(k->block, 0, jpeg_coefs_bytes(k));
    for (int i = 0; i < count; i++)
        first[i] = (JBLOCKROW)k->comp[i].coef;
    return 0;
}

/* The read itself, inside the trap: 0, -1 (the trap's message) or 1 (reason in err). */
static int read_coefs(coef_reader *r, const uint8_t *data, size_t size, int luma_only,
                      char *err, size_t err_size)
{
    j_decompress_ptr d = &r->d;
    jpeg_create_decompress(d);
    /* The components kept are decoded straight into r->coefs' block, allocated (and zeroed)
     * when libjpeg makes its arrays; the others into libjpeg's own. */
    jpeg_arrays_install((j_common_ptr)d, &r->arrays, luma_only ? 1 : JPEG_COEFS_MAX_COMPONENTS,
                        place_decoded, &r->coefs);
    r->progress.progress_monitor = jpeg_trap_limit_scans;
    d->progress = &r->progress;
    jpeg_mem_src(d, data, (unsigned long)size);
    jpeg_read_header(d, TRUE);
    const char *why = header_refusal(d, luma_only);
    if (why)
        return cpu_only(err, err_size, why);
    (void)jpeg_read_coefficients(d);
    if (smoothing_applies(d))
        return cpu_only(err, err_size,
                        "a progressive file whose low AC coefficients are not fully refined "
                        "(libjpeg-turbo smooths its blocks)");
    jpeg_coefs *out = &r->coefs;
    out->width = (int)d->image_width;
    out->height = (int)d->image_height;
    out->max_h = d->max_h_samp_factor;
    out->max_v = d->max_v_samp_factor;
    if (out->components != (luma_only ? 1 : d->num_components) || !out->block)
        return io_fail(err, err_size, "JPEG: %d of the %d components' coefficients decoded",
                       out->components, luma_only ? 1 : d->num_components);
    for (int ci = 0; ci < out->components; ci++) {
        jpeg_coef_component *c = &out->comp[ci];
        long most[DCTSIZE2];
        describe(d, ci, c);
        check_blocks(d, ci, c, most);
        for (int k = 0; k < DCTSIZE2; k++)
            if (most[k] * c->quant[k] > 32767)
                return cpu_only(err, err_size, "a coefficient times its quantiser leaves "
                                               "+-32767 (TurboJPEG's SIMD inverse DCT wraps)");
    }
    jpeg_finish_decompress(d); /* on to EOI, as tjDecompress2 reads */
    return 0;
}

int jpeg_coefs_read(const uint8_t *data, size_t size, int luma_only, long max_pixels,
                    long max_pixels_per_byte, jpeg_coefs *out, char *err, size_t err_size)
{
    io_header hd;
    coef_reader *r;
    int rc;
    if (!out)
        return io_fail(err, err_size, "JPEG: no place for the coefficients");
    if (jpeg_probe(data, size, max_pixels, max_pixels_per_byte, &hd, err, err_size))
        return -1;
    if (!(r = calloc(1, sizeof *r)))
        return io_fail(err, err_size, "JPEG: out of memory for the coefficient reader");
    jpeg_trap_init(&r->trap);
    r->d.err = &r->trap.pub;
    if (setjmp(r->trap.jump))
        rc = r->arrays.out_of_memory
                 ? io_fail(err, err_size, "JPEG: out of memory for the coefficients of a "
                                          "%u x %u image",
                           (unsigned)r->d.image_width, (unsigned)r->d.image_height)
                 : io_fail(err, err_size, "JPEG: %s", r->trap.msg);
    else
        rc = read_coefs(r, data, size, luma_only, err, err_size);
    jpeg_destroy_decompress(&r->d);
    if (rc == 0)
        *out = r->coefs;
    else
        jpeg_coefs_free(&r->coefs);
    free(r);
    return rc;
}

#else /* no libjpeg header: TurboJPEG alone has no coefficient API */

int jpeg_coefs_read(const uint8_t *data, size_t size, int luma_only, long max_pixels,
                    long max_pixels_per_byte, jpeg_coefs *out, char *err, size_t err_size)
{
    io_header hd;
    (void)luma_only;
    (void)out;
    if (jpeg_probe(data, size, max_pixels, max_pixels_per_byte, &hd, err, err_size))
        return -1;
    return cpu_only(err, err_size, "built without libjpeg's coefficient reader");
}

#endif
