/* bilinear.c - pairing the taps for the bilinear-tap trick, and its error bound (bilinear.h). */
#include "bilinear.h"

#include <math.h>
#include <string.h>

/* The pairing with the lone tap at `lone_tap` (0 or taps - 1): 0, or -1 with *bad the first
 * tap of a pair whose weights mix signs. */
static int pair_from(const float *k, int taps, int lone_tap, tc_bilinear_axis *a, int *bad)
{
    const int r = (taps - 1) / 2;
    memset(a, 0, sizeof *a);
    a->taps = taps;
    a->fetches = taps / 2 + 1;
    a->lone = lone_tap == 0 ? 0 : a->fetches - 1;
    int t = lone_tap == 0 ? 1 : 0; /* the first tap of the first pair */
    for (int s = 0; s < a->fetches; s++) {
        float *q = a->sample[s];
        if (s == a->lone) {
            q[0] = (float)(lone_tap - r);
            q[1] = 0.5f;
            q[2] = k[lone_tap];
            continue;
        }
        const double w1 = k[t], w2 = k[t + 1];
        if ((w1 < 0.0 && w2 > 0.0) || (w1 > 0.0 && w2 < 0.0)) {
            *bad = t;
            return -1;
        }
        const double w = w1 + w2;
        q[0] = (float)(t - r);
        q[1] = (float)(0.5 + (w != 0.0 ? w2 / w : 0.0));
        q[2] = (float)w;
        t += 2;
    }
    return 0;
}

int tc_bilinear_pair(const float *k, int taps, tc_bilinear_axis *a, int *bad)
{
    int first_bad = 0, other_bad = 0;
    if (pair_from(k, taps, taps - 1, a, &first_bad) == 0 ||
        pair_from(k, taps, 0, a, &other_bad) == 0)
        return 0;
    if (bad)
        *bad = first_bad;
    return -1;
}

double tc_bilinear_bound(double sum_kx, double sum_ky, double range, double coordinate)
{
    const double delta = ldexp(1.0, -TC_TEXTURE_FRACTION_BITS) + coordinate * ldexp(1.0, -24);
    return 2.0 * delta * sum_kx * sum_ky * range;
}
