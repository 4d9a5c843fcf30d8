/* synth.c - the synthetic test image. */
#include "synth.h"

/* "lowbias32" by Chris Wellons: a fast integer hash whose output bits all depend on all input
 * bits, so neighbouring pixels get unrelated noise. */
static uint32_t hash32(uint32_t v)
{
    v ^= v >> 16;
    v *= 0x7feb352dU;
    v ^= v >> 15;
    v *= 0x846ca68bU;
    v ^= v >> 16;
    return v;
}

float synth_pixel(uint32_t x, uint32_t y)
{
    uint32_t ramp = (x + 2U * y) & 255U;
    uint32_t noise = hash32(x * 0x9e3779b1U ^ y) & 255U;
    return 0.5f * (float)ramp + 0.5f * (float)noise;
}

void synth_fill(tc_plane *p)
{
    for (int y = 0; y < p->height; y++)
        for (int x = 0; x < p->width; x++)
            p->px[(size_t)y * (size_t)p->width + (size_t)x] = synth_pixel((uint32_t)x, (uint32_t)y);
}
