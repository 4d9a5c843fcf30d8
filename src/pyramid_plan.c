/*
 * pyramid_plan.c - the Gaussian scale space's plan (tiledconv.h, tc_pyramid): the octaves'
 * sizes and every Gaussian that the header's rule gives, each level's description, the CPU
 * reference and its tolerance. Pure host code; pyramid_launch.c runs a plan on a device.
 */
#include "pyramid_plan.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "image.h"
#include "reference.h"
#include "variants.h"

/* The largest sigma whose Gaussian fits TC_MAX_TAPS: round(6 sigma + 1) | 1 <= 63. */
#define MAX_SIGMA ((TC_MAX_TAPS - 0.5) / 6.0)

/* Level j's blur relative to sigma0 in its octave's pixels, k^j = 2^(j/L). */
static double scale_of(int j, int levels)
{
    return pow(2.0, (double)j / (double)levels);
}

/* The Gaussian that makes level j (j = L: the feed) of octave K from its base: the total blur
 * sigma0 k^j for octave 0 (the input taken as sharp), else the increment over the base's
 * sigma0, sigma0 sqrt(k^2j - 1); 0 for the base itself. */
static double applied_sigma(double sigma0, int octave, int j, int levels)
{
    if (octave == 0)
        return sigma0 * scale_of(j, levels);
    return j == 0 ? 0.0 : sigma0 * sqrt(pow(2.0, 2.0 * j / levels) - 1.0);
}

/* What names a slice in messages: "level (K, j)" or "the image that makes octave K + 1". */
static const char *slice_name(int octave, int j, int levels, char *buf, size_t size)
{
    if (j == levels)
        snprintf(buf, size, "the image at blur 2 sigma0 that makes octave %d", octave + 1);
    else
        snprintf(buf, size, "level (%d, %d)", octave, j);
    return buf;
}

int tc_pyramid_plan_make(int width, int height, const tc_pyramid_params *p,
                         tc_pyramid_plan *plan, tc_msg *m)
{
    char name[96];
    if (!p)
        return tc_fail(m, TC_EINVAL, "params is NULL");
    const int status = tc_check_size(width, height, "image", m);
    if (status != TC_OK)
        return status;
    if ((long long)tc_device_pitch(width) * height > 0x7fffffffLL)
        return tc_fail(m, TC_EINVAL, "image %d x %d: more pixels than the kernels can index "
                                     "(2^31 with rows padded to %d floats)",
                       width, height, tc_device_pitch(width));
    if (p->octaves < 1 || p->octaves > TC_PYRAMID_MAX_OCTAVES || p->levels < 1 ||
        p->levels > TC_PYRAMID_MAX_LEVELS)
        return tc_fail(m, TC_EINVAL, "%d octaves of %d levels: octaves must be 1..%d, levels "
                                     "1..%d",
                       p->octaves, p->levels, TC_PYRAMID_MAX_OCTAVES, TC_PYRAMID_MAX_LEVELS);
    if (!(p->sigma > 0.0) || !isfinite(p->sigma))
        return tc_fail(m, TC_EINVAL, "sigma %g: sigma0 must be a finite number above 0",
                       p->sigma);
    if (p->sigma < TC_MIN_SIGMA)
        return tc_fail(m, TC_EINVAL,
                       "sigma %g: too small; the smallest is %g (below it sigma^2 underflows "
                       "and the Gaussian's weights are not finite)",
                       p->sigma, TC_MIN_SIGMA);
    if ((int)p->border < 0 || p->border >= TC_BORDER_COUNT)
        return tc_fail(m, TC_EINVAL, "border %d: not a tc_border value", (int)p->border);
    if (!isfinite(p->border_value) || fabsf(p->border_value) > 1e30f)
        return tc_fail(m, TC_EINVAL, "border_value is not a finite number of at most 1e30");
    if ((int)p->launch < 0 || p->launch > TC_PYRAMID_PER_LEVEL)
        return tc_fail(m, TC_EINVAL, "launch %d: not a tc_pyramid_launch value", (int)p->launch);

    memset(plan, 0, sizeof *plan);
    plan->octaves = p->octaves;
    plan->levels = p->levels;
    plan->sigma0 = p->sigma;
    plan->border = p->border;
    plan->border_value = p->border_value;
    plan->launch = p->launch;
    int w = width, h = height;
    for (int k = 0; k < p->octaves; k++) {
        tc_pyramid_octave *oc = &plan->octave[k];
        if (k > 0 && (w < 2 || h < 2)) {
            int most = 1;
            for (int a = width, b = height; a >= 2 && b >= 2; a = (a + 1) / 2, b = (b + 1) / 2)
                most++;
            return tc_fail(m, TC_EINVAL,
                           "%d octaves: octave %d would be made from octave %d, which is %d x "
                           "%d: a side of 1 pixel does not halve; a %d x %d image takes at "
                           "most %d octaves (O octaves need min(W, H) > 2^(O - 2))",
                           p->octaves, k, k - 1, w, h, width, height, most);
        }
        if (k > 0) {
            w = (w + 1) / 2;
            h = (h + 1) / 2;
        }
        oc->width = w;
        oc->height = h;
        oc->feed = -1;
        const int last = k == p->octaves - 1 ? p->levels - 1 : p->levels;
        for (int j = k == 0 ? 0 : 1; j <= last; j++) {
            tc_pyramid_slice *s = &oc->slice[oc->slices];
            s->level = j;
            s->sigma = applied_sigma(p->sigma, k, j, p->levels);
            s->taps = tc_gauss_taps(s->sigma);
            if (s->taps > TC_MAX_TAPS)
                return tc_fail(m, TC_EINVAL,
                               "sigma0 %g: %s needs a Gaussian of sigma %.4g, %d taps; the "
                               "longest is %d taps (sigma below %.4g)%s",
                               p->sigma, slice_name(k, j, p->levels, name, sizeof name),
                               s->sigma, s->taps, TC_MAX_TAPS, MAX_SIGMA,
                               p->octaves > 1 ? ": sigma0 must stay below 5.208 with two octaves "
                                                "or more (2 sigma0 makes the next octave)"
                                              : "");
            tc_gauss_coefficients(s->taps, s->sigma, s->k);
            /* Whatever the sigma, no weight may leave the library as NaN or infinity. */
            for (int i = 0; i < s->taps; i++)
                if (!isfinite(s->k[i]))
                    return tc_fail(m, TC_EINVAL,
                                   "sigma0 %g: %s's Gaussian (sigma %g) has weight %d not "
                                   "finite",
                                   p->sigma, slice_name(k, j, p->levels, name, sizeof name),
                                   s->sigma, i);
            tc_job job;
            tc_pyramid_slice_job(plan, k, s, &job);
            s->acc_rows = tc_tiled_accumulating_rows(&job);
            if (s->acc_rows != 0 && s->acc_rows != 8) /* Pyramid.cl's P_ACC_BLOCK */
                return tc_fail(m, TC_EDEVICE, "the pyramid's kernel sums in tiled_conv's order "
                                              "for blocks of 8 rows, not %d", s->acc_rows);
            if (j == p->levels)
                oc->feed = oc->slices;
            oc->slices++;
        }
    }
    return TC_OK;
}

void tc_pyramid_plan_level(const tc_pyramid_plan *plan, int octave, int level,
                           tc_pyramid_level *out)
{
    const tc_pyramid_octave *oc = &plan->octave[octave];
    memset(out, 0, sizeof *out);
    out->octave = octave;
    out->level = level;
    out->width = oc->width;
    out->height = oc->height;
    out->sigma = plan->sigma0 * scale_of(level, plan->levels);
    out->sigma_input = out->sigma * ldexp(1.0, octave);
    out->sigma_applied = applied_sigma(plan->sigma0, octave, level, plan->levels);
    out->taps = out->sigma_applied > 0.0 ? tc_gauss_taps(out->sigma_applied) : 1;
}

void tc_pyramid_slice_job(const tc_pyramid_plan *plan, int octave, const tc_pyramid_slice *s,
                          tc_job *job)
{
    const tc_pyramid_octave *oc = &plan->octave[octave];
    memset(job, 0, sizeof *job);
    job->algorithm = TC_TILED;
    job->filter.taps_x = job->filter.taps_y = s->taps;
    memcpy(job->filter.kx, s->k, sizeof job->filter.kx);
    memcpy(job->filter.ky, s->k, sizeof job->filter.ky);
    job->filter.border = plan->border;
    job->filter.border_value = plan->border_value;
    job->roi.width = oc->width;
    job->roi.height = oc->height;
    job->block_x = TC_TILED_BLOCK_X;
    job->block_y = TC_TILED_BLOCK_Y;
    job->vector_io = 1;
    /* A slice is one prepared launch, one pass: beyond tiled_conv's lengths the long kernel,
     * whatever a study's --kernel (the split variant would take two passes). */
    if (s->taps > TC_TILED_MAX_TAPS)
        tc_variant_find("long", &job->filter, &job->variant, NULL);
    tc_job_decide(job);
}

/* ---- The reference and its tolerance ----------------------------------------------------- */

/* dst (w' x h', the next octave) = src's even rows and columns (src w x h). */
static void decimate(const float *src, int w, float *dst, int next_w, int next_h)
{
    for (int y = 0; y < next_h; y++)
        for (int x = 0; x < next_w; x++)
            dst[(size_t)y * next_w + x] = src[(size_t)(2 * y) * w + 2 * x];
}

int tc_pyramid_plan_reference(const tc_pyramid_plan *plan, const float *src,
                              float *const *levels, tc_msg *m)
{
    const int L = plan->levels;
    const float *base = src;
    float *feed = NULL;
    if (plan->octaves > 1 &&
        !(feed = malloc((size_t)plan->octave[0].width * plan->octave[0].height * sizeof *feed)))
        return tc_fail(m, TC_ENOMEM, "out of host memory for the reference's feed image");
    for (int k = 0; k < plan->octaves; k++) {
        const tc_pyramid_octave *oc = &plan->octave[k];
        const tc_plane in = {oc->width, oc->height, (float *)base};
        for (int i = 0; i < oc->slices; i++) {
            const tc_pyramid_slice *s = &oc->slice[i];
            tc_job job;
            tc_pyramid_slice_job(plan, k, s, &job);
            tc_plane out = {oc->width, oc->height, i == oc->feed ? feed : levels[k * L + s->level]};
            reference_convolve(&in, &job.roi, &job.filter, &out); /* never in place here */
        }
        if (oc->feed >= 0) {
            const tc_pyramid_octave *next = &plan->octave[k + 1];
            decimate(feed, oc->width, levels[(k + 1) * L], next->width, next->height);
            base = levels[(k + 1) * L];
        }
    }
    free(feed);
    return TC_OK;
}

/* The Gaussian's gain, sum|k| twice over (kx = ky). */
static double gain_of(const tc_pyramid_slice *s)
{
    double sum = 0.0;
    for (int i = 0; i < s->taps; i++)
        sum += fabs((double)s->k[i]);
    return sum * sum;
}

void tc_pyramid_plan_tolerance(const tc_pyramid_plan *plan, const float *src,
                               double *tolerance)
{
    const int L = plan->levels;
    const size_t n = (size_t)plan->octave[0].width * plan->octave[0].height;
    const double value = fabs((double)plan->border_value);
    /* bound: the largest |value| a base can hold (each octave's is the last one's through a
     * Gaussian: its gain times the larger of that and the constant border's value); carried:
     * how far the device's base may be from the reference's. Level (K, j) may then differ by
     * tc_tolerance's bound for its Gaussian on a base of that size, plus the Gaussian's gain
     * times what the base carries; the next octave's base by the feed's. */
    double bound = 0.0, carried = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs((double)src[i]) > bound)
            bound = fabs((double)src[i]);
    for (int k = 0; k < plan->octaves; k++) {
        const tc_pyramid_octave *oc = &plan->octave[k];
        const double in = (bound > value ? bound : value) + carried;
        if (k > 0)
            tolerance[k * L] = carried > 0.0 ? carried : FLT_MIN;
        double next_carried = 0.0, next_bound = 0.0;
        for (int i = 0; i < oc->slices; i++) {
            const tc_pyramid_slice *s = &oc->slice[i];
            const double gain = gain_of(s);
            const double own = 2.0 * (2 * s->taps) * FLT_EPSILON * in * gain;
            const double t = own + gain * carried;
            if (i == oc->feed) {
                next_carried = t;
                next_bound = gain * (bound > value ? bound : value);
            } else {
                tolerance[k * L + s->level] = t > 0.0 ? t : FLT_MIN;
            }
        }
        carried = next_carried;
        bound = next_bound;
    }
}
