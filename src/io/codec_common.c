/*
 * codec_common.c - the checks every codec makes.
 */
#include "codec_common.h"

#include <stdlib.h>

long io_pixel_limit(long max_pixels)
{
    if (max_pixels <= 0)
        return IO_MAX_PIXELS;
    return max_pixels > IO_HARD_MAX_PIXELS ? (long)IO_HARD_MAX_PIXELS : max_pixels;
}

int io_check_size(const char *what, long width, long height, long max_pixels, char *err,
                  size_t err_size)
{
    long limit = io_pixel_limit(max_pixels);
    if (width < 1 || height < 1)
        return io_fail(err, err_size, "%s: no pixels (%ld x %ld)", what, width, height);
    if (width > IO_MAX_SIDE || height > IO_MAX_SIDE)
        return io_fail(err, err_size, "%s: %ld x %ld is larger than %d on a side", what, width,
                       height, IO_MAX_SIDE);
    /* Both sides are at most 2^16, so the product fits in 64 bits whatever long is. */
    long long pixels = (long long)width * height;
    if (pixels > limit)
        return io_fail(err, err_size, "%s: %ld x %ld is %lld pixels, more than the limit of %ld",
                       what, width, height, pixels, limit);
    return 0;
}

int io_check_ratio(const char *what, long width, long height, size_t file_size,
                   long max_pixels_per_byte, char *err, size_t err_size)
{
    /* In floating point, so that no product with a size_t can overflow; the sides are checked
     * (at most 2^16 each), so the pixel count is exact in a double. */
    double pixels = (double)width * (double)height;
    if (max_pixels_per_byte <= 0 || pixels <= (double)IO_BOMB_FLOOR_PIXELS ||
        pixels <= (double)max_pixels_per_byte * (double)file_size)
        return 0;
    return io_fail(err, err_size,
                   "%s: %ld x %ld pixels from a file of %lu bytes (%.0f pixels per byte, more "
                   "than %ld) is refused as a likely decompression bomb",
                   what, width, height, (unsigned long)file_size,
                   pixels / (double)(file_size ? file_size : 1), max_pixels_per_byte);
}

size_t io_image_bytes(long width, long height, int channels, int depth)
{
    if (width < 1 || height < 1 || channels < 1 || (depth != 8 && depth != 16))
        return 0;
    size_t sample = depth == 16 ? 2 : 1;
    size_t per_row = (size_t)channels * sample;
    if ((size_t)width > SIZE_MAX / per_row)
        return 0;
    per_row *= (size_t)width;
    if ((size_t)height > SIZE_MAX / per_row)
        return 0;
    return per_row * (size_t)height;
}

int io_check_image(const io_image *img, const char *path, char *err, size_t err_size)
{
    if (!img || !img->pixels || img->width < 1 || img->height < 1)
        return io_fail(err, err_size, "%s: no image to write", path);
    if (img->channels != 1 && img->channels != 3)
        return io_fail(err, err_size, "%s: cannot write an image of %d channels (1 or 3)", path,
                       img->channels);
    if (img->depth != 8 && img->depth != 16)
        return io_fail(err, err_size, "%s: cannot write %d-bit samples (8 or 16)", path,
                       img->depth);
    if (img->maxval < 1 || img->maxval > (img->depth == 8 ? 255 : 65535))
        return io_fail(err, err_size, "%s: maxval %d does not fit %d-bit samples", path,
                       img->maxval, img->depth);
    if (io_image_bytes(img->width, img->height, img->channels, img->depth) == 0)
        return io_fail(err, err_size, "%s: %d x %d image too large for this machine", path,
                       img->width, img->height);
    return 0;
}

/* The allocator of the decode running on this thread, if any. */
static _Thread_local const io_allocator *thread_allocator;

void io_pixels_use(const io_allocator *a)
{
    thread_allocator = a;
}

void *io_pixels_alloc(size_t bytes, const io_allocator **from)
{
    const io_allocator *a = thread_allocator;
    void *p = a && bytes ? a->alloc(a->arg, bytes) : NULL;
    *from = p ? a : NULL;
    return p ? p : malloc(bytes ? bytes : 1);
}

void io_pixels_free(void *pixels, const io_allocator *from)
{
    if (pixels && from)
        from->release(from->arg, pixels);
    else
        free(pixels);
}

void io_image_free(io_image *img)
{
    if (!img)
        return;
    io_pixels_free(img->pixels, img->allocator);
    img->pixels = NULL;
    img->allocator = NULL;
}
