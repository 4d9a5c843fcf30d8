/*
 * params.c - tc_params, the C API's description of a filter run, checked against an image
 * and turned into the job the launchers run (launch.h): the filter (lengths, coefficients or
 * mask, border), the ROIs, the algorithm and the tiled kernel's options. Every call that takes
 * a tc_params goes through tc_job_from_params, so each rule and its message exist once.
 */
#include "params.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "bilinear.h"

/* The C API's names for the ROI fields, for messages. */
static const tc_roi_names param_names = {"src_left", "src_top",   "dst_left",
                                         "dst_top",  "roi_width", "roi_height"};

TC_API void tc_params_init(tc_params *p)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->taps_x = p->taps_y = 3;
    p->border = TC_BORDER_REPLICATE;
    p->algorithm = TC_TILED;
    p->block_width = 4;
    p->block_height = 4;
    p->vector_io = 1;
    p->out_scale = 1.0;
    p->out_offset = 0.0;
}

/* One axis's coefficients: the given ones, checked, or the binomial of that length. */
static int set_coefficients(const char *name, const float *given, int taps, const float *binomial,
                            float *k, tc_msg *m)
{
    for (int i = 0; i < TC_MAX_TAPS; i++)
        k[i] = i < taps ? (given ? given[i] : binomial[i]) : 0.0f;
    for (int i = 0; given && i < taps; i++)
        if (!isfinite(k[i]))
            return tc_fail(m, TC_EINVAL, "%s[%d] is not a finite number", name, i);
    return TC_OK;
}

static int check_taps(const char *name, int taps, tc_msg *m)
{
    if (!tc_axis_taps_valid(taps))
        return tc_fail(m, TC_EINVAL,
                       "%s %d: the filter length must be odd, %d..%d (1: that axis unfiltered)",
                       name, taps, 1, TC_MAX_TAPS);
    return TC_OK;
}

/* Sums that cannot leave float32 on 8-bit input (0..255) or the constant border: a filter that
 * could overflow would give infinities, and then NaN, without a word (filter.h). */
static int check_range(const tc_filter_spec *f, tc_msg *m)
{
    double reach = 0.0;
    const char *what = f->mask_width ? "mask" : "kx and ky";
    const char *gain = f->mask_width ? "sum|mask|" : "sum|kx| x sum|ky|";
    if (tc_filter_check(f, 255.0, NULL, &reach) != TC_FILTER_OVERFLOW)
        return TC_OK;
    if (f->border == TC_BORDER_CONSTANT && fabs(f->border_value) > 255.0f)
        return tc_fail(m, TC_EINVAL,
                       "%s with border_value %g: a sum could reach %s x |border_value| = %.3g, "
                       "past float32's largest value (%.3g); scale the coefficients or the "
                       "border value down",
                       what, (double)f->border_value, gain, reach, (double)FLT_MAX);
    return tc_fail(m, TC_EINVAL,
                   "%s: on inputs up to 255 a sum could reach %s x 255 = %.3g, past float32's "
                   "largest value (%.3g); scale the coefficients down",
                   what, gain, reach, (double)FLT_MAX);
}

/* p's mask, checked and set into f (factored when it is rank 1). */
static int mask_from_params(const tc_params *p, tc_filter_spec *f, tc_msg *m)
{
    const int w = p->mask_width, h = p->mask_height;
    if (!tc_mask_size_valid(w, h))
        return tc_fail(m, TC_EINVAL,
                       "mask_width %d, mask_height %d: each must be odd, 1..%d, and not both 1 "
                       "(a 1 x 1 mask only scales)",
                       w, h, TC_MAX_MASK_SIZE);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++)
            if (!isfinite(p->mask[j * w + i]))
                return tc_fail(m, TC_EINVAL, "mask[%d][%d] (row %d, column %d) is not a finite "
                                             "number",
                               j, i, j, i);
    tc_filter_set_mask(f, p->mask, w, h);
    return TC_OK;
}

/* The filter of p: lengths, coefficients or mask, and border rule, checked. */
static int filter_from_params(const tc_params *p, tc_filter_spec *f, tc_msg *m)
{
    int status;
    if ((int)p->border < 0 || p->border >= TC_BORDER_COUNT)
        return tc_fail(m, TC_EINVAL, "border %d: not a tc_border value", (int)p->border);
    if (!isfinite(p->border_value))
        return tc_fail(m, TC_EINVAL, "border_value is not a finite number");
    if (p->mask) {
        /* taps_x, taps_y, kx and ky are not used with a mask: tc_params_init's 3 taps need
         * not be changed to the mask's size. */
        if ((status = mask_from_params(p, f, m)) != TC_OK)
            return status;
    } else if (p->mask_width || p->mask_height) {
        return tc_fail(m, TC_EINVAL, "mask_width %d, mask_height %d: set, but mask is NULL",
                       p->mask_width, p->mask_height);
    } else {
        if ((status = check_taps("taps_x", p->taps_x, m)) != TC_OK ||
            (status = check_taps("taps_y", p->taps_y, m)) != TC_OK)
            return status;
        if (p->taps_x == 1 && p->taps_y == 1)
            return tc_fail(m, TC_EINVAL, "taps_x 1 and taps_y 1: that filters nothing; at least "
                                         "one axis needs 3 taps or more");
        tc_filter_binomial_xy(f, p->taps_x, p->taps_y);
        if ((status = set_coefficients("kx", p->kx, p->taps_x, f->kx, f->kx, m)) != TC_OK ||
            (status = set_coefficients("ky", p->ky, p->taps_y, f->ky, f->ky, m)) != TC_OK)
            return status;
    }
    f->border = p->border;
    f->border_value = p->border_value;
    return check_range(f, m);
}

/* Bilinear's samples need each pair of taps to share a sign (bilinear.h), on both axes. */
static int check_pairs(const tc_filter_spec *f, tc_msg *m)
{
    const float *k[2] = {f->kx, f->ky};
    const int taps[2] = {f->taps_x, f->taps_y};
    for (int axis = 0; axis < 2; axis++) {
        tc_bilinear_axis a;
        int bad = 0;
        if (tc_bilinear_pair(k[axis], taps[axis], &a, &bad) == 0)
            continue;
        return tc_fail(m, TC_EINVAL,
                       "%s: bilinear reads two neighbouring taps with one sample, which needs "
                       "their weights to share a sign, but %s[%d] = %g and %s[%d] = %g do not "
                       "(nor do two taps of the other pairing); use another algorithm",
                       axis ? "ky" : "kx", axis ? "ky" : "kx", bad, (double)k[axis][bad],
                       axis ? "ky" : "kx", bad + 1, (double)k[axis][bad + 1]);
    }
    return TC_OK;
}

/* p checked against a width x height image and turned into the job the launchers run. */
int tc_job_from_params(const tc_params *p, int width, int height, tc_job *job, tc_msg *m)
{
    int status;
    if (!p)
        return tc_fail(m, TC_EINVAL, "params is NULL");
    if ((status = tc_check_size(width, height, "image", m)) != TC_OK)
        return status;
    /* Every index the kernels compute is an int: the padded plane must stay below 2^31 (a
     * narrow image's rows padded to 32 floats can pass it under the pixel limit). */
    if ((long long)tc_device_pitch(width) * height > 0x7fffffffLL)
        return tc_fail(m, TC_EINVAL, "image %d x %d: more pixels than the kernels can index "
                                     "(2^31 with rows padded to %d floats)",
                       width, height, tc_device_pitch(width));
    if ((int)p->algorithm < 0 || p->algorithm > TC_BILINEAR)
        return tc_fail(m, TC_EINVAL, "algorithm %d: not a tc_algorithm value",
                       (int)p->algorithm);
    if ((int)p->storage < 0 || p->storage > TC_STORAGE_IMAGE)
        return tc_fail(m, TC_EINVAL, "storage %d: not a tc_storage value", (int)p->storage);
    if (p->storage == TC_STORAGE_IMAGE && p->algorithm == TC_TWOPASS)
        return tc_fail(m, TC_EINVAL, "storage image: twopass reads buffers only (tiled and "
                                     "onepass read an image; bilinear always does)");
    if (p->roi_width < 0 || p->roi_height < 0)
        return tc_fail(m, TC_EINVAL, "%s %d: must be at least 1 (0: the largest that fits)",
                       p->roi_width < 0 ? "roi_width" : "roi_height",
                       p->roi_width < 0 ? p->roi_width : p->roi_height);
    const int block_x = p->block_width ? p->block_width : 4;
    const int block_y = p->block_height ? p->block_height : 4;
    if ((block_x != 4 && block_x != 8) || block_y < 1 || block_y > 16)
        return tc_fail(m, TC_EINVAL, "block %dx%d: the tiled kernel takes a width of 4 or 8 "
                                     "and a height of 1..16",
                       block_x, block_y);
    const tc_roi_request req = {p->src_left,
                                p->src_top,
                                p->dst_left,
                                p->dst_top,
                                p->roi_width ? p->roi_width : -1,
                                p->roi_height ? p->roi_height : -1};
    memset(job, 0, sizeof *job);
    if ((status = filter_from_params(p, &job->filter, m)) != TC_OK ||
        (status = tc_roi_resolve(&req, width, height, &param_names, &job->roi, m)) != TC_OK)
        return status;
    if (p->algorithm == TC_TWOPASS && job->filter.mask_width && !job->filter.mask_separable)
        return tc_fail(m, TC_EINVAL,
                       "twopass: the %d x %d mask is not separable (not rank 1), so it cannot "
                       "be filtered in two 1-D passes; use tiled or onepass",
                       job->filter.mask_width, job->filter.mask_height);
    if (p->algorithm == TC_BILINEAR && job->filter.mask_width && !job->filter.mask_separable)
        return tc_fail(m, TC_EINVAL,
                       "bilinear: the %d x %d mask is not separable (not rank 1), and the "
                       "trick pairs the taps of two 1-D passes; use tiled or onepass",
                       job->filter.mask_width, job->filter.mask_height);
    if (p->algorithm == TC_BILINEAR && (status = check_pairs(&job->filter, m)) != TC_OK)
        return status;
    /* The tiled kernel's variant (a study option; the other algorithms ignore it, but a name
     * that fits no run is refused whatever the algorithm, as -a all runs tiled too). */
    if ((status = tc_variant_find(p->kernel, &job->filter, &job->variant, m)) != TC_OK)
        return status;
    job->algorithm = p->algorithm;
    job->storage = p->algorithm == TC_BILINEAR ? TC_STORAGE_IMAGE : p->storage;
    job->block_x = block_x;
    job->block_y = block_y;
    job->vector_io = p->vector_io != 0;
    job->count_classes = p->count_classes != 0;
    tc_job_decide(job);
    return TC_OK;
}
