/*
 * Channels.cl - the conversions of the channel-last layouts (tiledconv.h's TC_PIXELS_U8, _U16
 * and _F32: H x W x C samples, C = 1, 3 or 4) to and from the float planes the filters run on:
 *
 *   unpack_samples  packed rows of samples -> one float plane per channel (and, unless the
 *                   target ROI covers the whole image, the output planes as copies of them:
 *                   pixels outside the target ROI keep the input; their padding columns
 *                   always)
 *   pack_samples    the filtered planes -> packed rows of output samples, with the output
 *                   mapping v * scale + offset inside the target ROI for integer outputs
 *
 * Both give exactly what the host computes (image.c: tc_sample_scaled, tc_map_byte,
 * tc_map_word): the same double-precision expressions in the same order, contraction off
 * (Samples.cl, which comes first, holds the pragmas and the output mapping). A device without
 * double precision never runs this program: the library converts on the host.
 *
 * Layout: the samples are packed, row y at y * width * channels samples of the buffer (the
 * host gathers the caller's strided rows into pinned memory and scatters them back, so the
 * bytes between a view's rows never cross the bus); or, for rows that came up as they lie
 * from page-locked memory, unpack_samples finds row y at y * in_pitch samples (the caller's
 * stride), or with flip at (height - 1 - y) * in_pitch: rows stored bottom-up (a BMP's).
 * pack_samples always writes packed rows (with flip, bottom-up). The planes have the filter kernels' row
 * pitch (a multiple of 32 floats), padding columns set to 0.
 */
/* tiledconv.h's tc_pixel_format values of the three sample types. */
#define SAMPLES_U8 6
#define SAMPLES_U16 7
#define SAMPLES_F32 8

/* Sample i of the packed rows as a value on the 0..255 scale. */
static inline float read_sample(__global const uchar *in, int format, size_t i)
{
    if (format == SAMPLES_U8)
        return (float)in[i];
    if (format == SAMPLES_U16) /* tc_sample_scaled(v, 65535), rounded once to float */
        return (float)((double)((__global const ushort *)in)[i] * 255.0 / 65535.0);
    return ((__global const float *)in)[i];
}

/* One work-item per plane element, padding included: (x, y), 0 <= x < pitch. The planes are
 * named one by one (no array of pointers, which some compilers keep in memory). */
__kernel void unpack_samples(__global const uchar *in, int format, int width, int height,
                             int channels, int pitch, int copy_to_dst,
                             __global float *p0, __global float *p1, __global float *p2,
                             __global float *p3, __global float *d0, __global float *d1,
                             __global float *d2, __global float *d3, int flip, int in_pitch)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= pitch || y >= height)
        return;
    const size_t at = (size_t)y * pitch + x;
    const size_t first = (size_t)(flip ? height - 1 - y : y) * (size_t)in_pitch +
                         (size_t)x * (size_t)channels;
    const bool pixel = x < width; /* the padding columns are 0 */
    /* The output planes' padding columns are set too: the tiled kernel's float4 stores at the
     * ROI's right edge read them back to keep them. */
    const bool to_dst = copy_to_dst || !pixel;
    const float v0 = pixel ? read_sample(in, format, first) : 0.0f;
    p0[at] = v0;
    if (to_dst)
        d0[at] = v0;
    if (channels == 1)
        return;
    const float v1 = pixel ? read_sample(in, format, first + 1) : 0.0f;
    const float v2 = pixel ? read_sample(in, format, first + 2) : 0.0f;
    p1[at] = v1;
    p2[at] = v2;
    if (to_dst) {
        d1[at] = v1;
        d2[at] = v2;
    }
    if (channels == 3)
        return;
    const float v3 = pixel ? read_sample(in, format, first + 3) : 0.0f;
    p3[at] = v3;
    if (to_dst)
        d3[at] = v3;
}

/* Sample i of the packed output rows from value v: integer formats mapped, floats as they are. */
static inline void write_sample(__global uchar *out, int format, size_t i, float v, double s, double o)
{
    if (format == SAMPLES_U8)
        out[i] = map_byte(v, s, o);
    else if (format == SAMPLES_U16)
        ((__global ushort *)out)[i] = map_word(v, s, o);
    else
        ((__global float *)out)[i] = v;
}

/* One work-item per pixel. Inside the target ROI integer outputs take the mapping; outside
 * it the pixel is the input's, only converted (an offset must not brighten what was never
 * filtered). Float outputs are the planes' values as they are. */
__kernel void pack_samples(__global const float *d0, __global const float *d1,
                           __global const float *d2, __global const float *d3, int pitch,
                           int width, int height, int channels, int format,
                           __global uchar *out, int tL, int tT, int w, int h, double scale,
                           double offset, int flip)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const size_t at = (size_t)y * pitch + x;
    const size_t first = ((size_t)(flip ? height - 1 - y : y) * width + x) * channels;
    const bool inside = x >= tL && x < tL + w && y >= tT && y < tT + h;
    const double s = inside ? scale : 1.0, o = inside ? offset : 0.0;
    write_sample(out, format, first, d0[at], s, o);
    if (channels == 1)
        return;
    write_sample(out, format, first + 1, d1[at], s, o);
    write_sample(out, format, first + 2, d2[at], s, o);
    if (channels == 4)
        write_sample(out, format, first + 3, d3[at], s, o);
}
