/*
 * host_api.c - the calls of tiledconv.h that need no device: the CPU reference and its
 * tolerance on a tc_params, the tiled kernel's tiles and their classes, the named filters and
 * masks, and a mask's factors; and for the tool (tiledconv_internal.h) the name of the kernel
 * a filter runs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bilinear.h"
#include "params.h"
#include "reference.h"
#include "tiledconv.h"

TC_API int tc_reference(const float *src, float *dst, int width, int height,
                        const tc_params *p, char *err, size_t err_size)
{
    tc_msg m = {""};
    tc_job job;
    int status = !src || !dst ? tc_fail(&m, TC_EINVAL, "%s is NULL", src ? "dst" : "src")
                              : tc_job_from_params(p, width, height, &job, &m);
    if (status == TC_OK) {
        const tc_plane in = {width, height, (float *)src};
        tc_plane out = {width, height, dst};
        if ((status = reference_convolve(&in, &job.roi, &job.filter, &out)) != TC_OK)
            tc_fail(&m, status, "out of host memory for the reference's copy of the input");
    }
    if (status != TC_OK && err && err_size)
        snprintf(err, err_size, "%s", m.text);
    return status;
}

TC_API double tc_tolerance(const float *src, int width, int height, const tc_params *p)
{
    tc_job job;
    if (!src || tc_job_from_params(p, width, height, &job, NULL) != TC_OK)
        return -1.0;
    const tc_plane in = {width, height, (float *)src};
    const double tolerance = reference_tolerance(&in, &job.filter);
    if (job.algorithm != TC_BILINEAR)
        return tolerance;
    /* Texture interpolation's share (bilinear.h): the sROI's range of values, the sums of the
     * absolute weights, and the largest sample coordinate. */
    const tc_roi *r = &job.roi;
    double lo = src[(size_t)r->src_top * (size_t)width + (size_t)r->src_left], hi = lo;
    double sum_kx = 0.0, sum_ky = 0.0;
    for (int y = r->src_top; y < r->src_top + r->height; y++)
        for (int x = r->src_left; x < r->src_left + r->width; x++) {
            const double v = src[(size_t)y * (size_t)width + (size_t)x];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    for (int i = 0; i < job.filter.taps_x; i++)
        sum_kx += fabs(job.filter.kx[i]);
    for (int i = 0; i < job.filter.taps_y; i++)
        sum_ky += fabs(job.filter.ky[i]);
    return tolerance +
           tc_bilinear_bound(sum_kx, sum_ky, hi - lo, (width > height ? width : height) + 2.0);
}

typedef struct {
    const tc_roi *roi;
    tc_tile *tiles;
    int capacity, count;
} tile_list;

static void list_tile(void *arg, const tc_tile_class *t)
{
    tile_list *list = arg;
    if (list->count < list->capacity)
        list->tiles[list->count] =
            (tc_tile){list->roi->dst_left + t->l, list->roi->dst_top + t->t, t->width,
                      t->height, t->free_on_read ? 1 : 2, t->free_on_write ? 3 : 4};
    list->count++;
}

TC_API int tc_tiles(const tc_params *p, int width, int height, tc_tile *tiles, int capacity,
                    int *count, char *err, size_t err_size)
{
    tc_msg m = {""};
    tc_job job;
    int status = !count || capacity < 0 || (capacity > 0 && !tiles)
                     ? tc_fail(&m, TC_EINVAL, "tc_tiles: count is NULL or tiles too small")
                     : tc_job_from_params(p, width, height, &job, &m);
    if (status == TC_OK) {
        tile_list list = {&job.roi, tiles, capacity, 0};
        job.algorithm = TC_TILED;
        tc_job_decide(&job);
        tc_tiled_tiles(&job, 64ULL << 10, list_tile, &list);
        *count = list.count;
    } else if (err && err_size) {
        snprintf(err, err_size, "%s", m.text);
    }
    return status;
}

TC_API int tc_named_filter(const char *name, int taps, double sigma, float *kx, float *ky,
                           char *err, size_t err_size)
{
    tc_msg m = {""};
    tc_filter_spec f;
    int id = name ? tc_named_find(name) : -1, status = TC_OK;
    if (id < 0)
        status = tc_fail(&m, TC_EINVAL, "filter '%s': unknown; use box, gauss, binomial, "
                                        "sobel-x, sobel-y, scharr-x or scharr-y",
                         name ? name : "(null)");
    else if (tc_named_is_mask((tc_named)id))
        status = tc_fail(&m, TC_EINVAL, "filter '%s': a 3 x 3 mask, not separable: use "
                                        "tc_named_mask",
                         name);
    else if (!kx || !ky)
        status = tc_fail(&m, TC_EINVAL, "kx and ky must not be NULL");
    else if (isnan(sigma) || isinf(sigma))
        status = tc_fail(&m, TC_EINVAL, "sigma is not a finite number");
    else if (sigma > 0.0 && sigma < TC_MIN_SIGMA)
        status = tc_fail(&m, TC_EINVAL,
                         "sigma %g: too small; the smallest is %g (below it sigma^2 underflows "
                         "and the Gaussian's weights are not finite)",
                         sigma, TC_MIN_SIGMA);
    else if (tc_filter_named(&f, (tc_named)id, taps, sigma) != 0)
        status = tc_fail(&m, TC_EINVAL, "filter %s: no %d-tap version (%s)", name, taps,
                         !tc_taps_valid(taps)                   ? "odd lengths 3..63"
                         : id == TC_NAMED_SOBEL_X || id == TC_NAMED_SOBEL_Y ? "3..31 taps"
                                                                : "3 taps only");
    if (status != TC_OK) {
        if (err && err_size)
            snprintf(err, err_size, "%s", m.text);
        return status;
    }
    memcpy(kx, f.kx, (size_t)taps * sizeof *kx);
    memcpy(ky, f.ky, (size_t)taps * sizeof *ky);
    return TC_OK;
}

TC_API int tc_named_mask(const char *name, double amount, float *mask, int capacity, int *width,
                         int *height, char *err, size_t err_size)
{
    tc_msg m = {""};
    tc_filter_spec f;
    int id = name ? tc_named_find(name) : -1, status = TC_OK;
    if (id < 0 || !tc_named_is_mask((tc_named)id))
        status = tc_fail(&m, TC_EINVAL, "mask '%s': unknown; use laplacian, laplacian8 or sharpen",
                         name ? name : "(null)");
    else if (!mask || !width || !height)
        status = tc_fail(&m, TC_EINVAL, "mask, width and height must not be NULL");
    else if (capacity < 9)
        status = tc_fail(&m, TC_EINVAL, "capacity %d: the mask needs 9 floats (3 x 3)", capacity);
    else if (!isfinite(amount) || fabs(amount) > 1e30)
        status = tc_fail(&m, TC_EINVAL, "amount is not a finite number of at most 1e30");
    if (status != TC_OK) {
        if (err && err_size)
            snprintf(err, err_size, "%s", m.text);
        return status;
    }
    tc_filter_named_mask(&f, (tc_named)id, amount);
    memcpy(mask, f.mask, 9 * sizeof *mask);
    *width = *height = 3;
    return TC_OK;
}

TC_API int tc_mask_factors(const float *mask, int width, int height, float *kx, float *ky)
{
    if (!mask || !kx || !ky || !tc_mask_size_valid(width, height))
        return -1;
    for (int k = 0; k < width * height; k++)
        if (!isfinite(mask[k]))
            return -1;
    return tc_mask_factor(mask, width, height, kx, ky);
}

void tc_kernel_describe(const tc_filter_spec *f, tc_algorithm algorithm, const char *kernel,
                        tc_kernel_about *k)
{
    const tc_variant *variant = NULL;
    const tc_kernel_kind kind = tc_kernel_for_variant(f, algorithm, kernel, &variant);
    k->name = tc_kernel_name(kind);
    k->variant = variant ? variant->name : NULL;
    k->tiled = tc_kernel_is_tiled(kind);
    k->columns = kind == TC_KERNEL_TILED_LONG;
    k->strip_tile_w = kind == TC_KERNEL_TILED_SLIDE && variant ? variant->tile_w : 0;
}

const char *tc_mask_kernel_name(tc_algorithm algorithm)
{
    return tc_kernel_name(algorithm == TC_ONEPASS ? TC_KERNEL_ONEPASS_MASK : TC_KERNEL_TILED_MASK);
}
