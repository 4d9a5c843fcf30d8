/*
 * Pixels.cl - the conversions between a file's pixels and the float planes the filters run on,
 * done on the device so that bytes, not floats, cross the bus:
 *
 *   unpack_pixels  8-bit gray, RGB, BGR, BGRX or palette indices -> the intensity plane,
 *                  or the R, G and B planes; the output planes start as copies (pixels
 *                  outside the target ROI keep the input)
 *   pack_pixels    the filtered planes -> 8-bit gray or colour pixels, with the output mapping
 *                  v * scale + offset inside the target ROI
 *
 * Both must give exactly what the host computes (src/image.c): the same double-precision
 * expressions, evaluated in the same order, with contraction off (no fused multiply-add may
 * change a rounding; Samples.cl, which comes first, holds the pragmas and the output mapping).
 * A device without double precision never runs this program: the library converts on the host
 * instead.
 *
 * Layout: the bytes are the rows as the caller holds them, a file's own layout: row y starts at
 * byte `base + y * stride` of the buffer, where stride is negative for rows stored bottom-up
 * (a BMP) and |stride| may include padding; so the host moves one block and copies no row. The
 * planes have the row pitch of the filter kernels (a multiple of 32 floats), padding columns
 * set to 0.
 */
/* tiledconv.h's tc_pixel_format. */
#define PIX_GRAY8 0
#define PIX_RGB24 1
#define PIX_BGR24 2
#define PIX_BGRX32 3
#define PIX_INDEXED8 4

/* The R, G, B bytes of the pixel at `px`, the first byte of its row plus x times its size. */
static inline uchar3 read_rgb(__global const uchar *px, int format, __constant const uchar *palette)
{
    switch (format) {
    case PIX_GRAY8:
        return (uchar3)(px[0], px[0], px[0]);
    case PIX_RGB24:
        return (uchar3)(px[0], px[1], px[2]);
    case PIX_BGR24:
    case PIX_BGRX32:
        return (uchar3)(px[2], px[1], px[0]);
    default: { /* PIX_INDEXED8: the host checked every index against the palette's size */
        const int p = px[0];
        return (uchar3)(palette[3 * p], palette[3 * p + 1], palette[3 * p + 2]);
    }
    }
}

/* Bytes of one pixel in a format. */
static inline int pixel_bytes(int format)
{
    return format == PIX_RGB24 || format == PIX_BGR24 ? 3 : format == PIX_BGRX32 ? 4 : 1;
}

/* One work-item per plane element, padding included: (x, y), 0 <= x < pitch. */
__kernel void unpack_pixels(__global const uchar *in, long base, long stride, int format,
                            int width, int height, __constant const uchar *palette, int planes,
                            int pitch,
                            __global float *p0, __global float *p1, __global float *p2,
                            __global float *d0, __global float *d1, __global float *d2)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= pitch || y >= height)
        return;
    const size_t at = (size_t)y * pitch + x;
    float v0 = 0.0f, v1 = 0.0f, v2 = 0.0f;
    if (x < width) {
        const uchar3 c = read_rgb(in + base + y * stride + (long)x * pixel_bytes(format), format,
                                  palette);
        if (planes == 1) {
            /* image.c's tc_plane_from_rgb, term by term: (0.299 R + 0.587 G) + 0.114 B in
             * double, rounded once to float. */
            const double r = c.x, g = c.y, b = c.z;
            v0 = (float)(0.299 * r + 0.587 * g + 0.114 * b);
        } else {
            v0 = c.x;
            v1 = c.y;
            v2 = c.z;
        }
    }
    p0[at] = v0;
    d0[at] = v0;
    if (planes == 3) {
        p1[at] = v1;
        d1[at] = v1;
        p2[at] = v2;
        d2[at] = v2;
    }
}

/* One work-item per pixel. Inside the target ROI the mapping applies; outside, the pixel is
 * the input's and is only converted (an offset must not brighten what was never filtered).
 * The rows go where the caller's rows are (base, stride); the bytes after a row's pixels up to
 * the next row (a BMP's padding, `gap` bytes) are set to 0 by the row's first work-item. */
__kernel void pack_pixels(__global const float *d0, __global const float *d1,
                          __global const float *d2, int pitch, int width, int height,
                          int planes, int format, __global uchar *out, long base, long stride,
                          int gap, int tL, int tT, int w, int h, double scale, double offset)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const size_t at = (size_t)y * pitch + x;
    const int ob = pixel_bytes(format);
    __global uchar *row = out + base + y * stride;
    __global uchar *px = row + (long)x * ob;
    const bool inside = x >= tL && x < tL + w && y >= tT && y < tT + h;
    const double s = inside ? scale : 1.0, o = inside ? offset : 0.0;
    /* The row stored last (row 0 when they run bottom-up) ends the block moved: its padding
     * is not in it. */
    const bool stored_last = stride < 0 ? y == 0 : y == height - 1;
    if (x == 0 && !stored_last)
        for (int i = 0; i < gap; i++)
            row[(long)width * ob + i] = 0;
    if (planes == 1) {
        px[0] = map_byte(d0[at], s, o);
        return;
    }
    const uchar r = map_byte(d0[at], s, o), g = map_byte(d1[at], s, o), b = map_byte(d2[at], s, o);
    if (format == PIX_RGB24) {
        px[0] = r;
        px[1] = g;
        px[2] = b;
    } else { /* PIX_BGR24, PIX_BGRX32 */
        px[0] = b;
        px[1] = g;
        px[2] = r;
        if (format == PIX_BGRX32)
            px[3] = 0;
    }
}
