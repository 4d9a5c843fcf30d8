/*
 * image_files.c - one image file read into memory, or written from it (tc_read_image,
 * tc_write_image in tiledconv_files.h): the pipeline's own reader (source.h: the format from
 * the first bytes, the limits before any pixel) and its safe writer (outputs_put_image: a
 * temporary file, synced, renamed into place), with a run's settings.
 */
#include "tiledconv_files.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "files_run.h"
#include "bmp.h"
#include "outputs.h"
#include "plan.h"
#include "source.h"

static int fail(char *err, size_t err_size, const char *path, const char *why)
{
    if (err && err_size)
        snprintf(err, err_size, "%s: %s", path, why);
    return TC_EINVAL;
}

/* ---- Reading ----------------------------------------------------------------------------- */

/* The samples of a PGM/PPM whose maxval is neither 255 nor 65535, on the 0..255 scale as the
 * library takes them (v * 255 / maxval in double, rounded to float). NULL: no memory. */
static float *to_scale(const io_image *img)
{
    const size_t n = (size_t)img->width * (size_t)img->height * (size_t)img->channels;
    float *out = malloc(n * sizeof *out);
    for (size_t i = 0; out && i < n; i++) {
        const double v = img->depth == 16 ? ((const uint16_t *)img->pixels)[i]
                                          : ((const uint8_t *)img->pixels)[i];
        out[i] = (float)(v * 255.0 / img->maxval);
    }
    return out;
}

/* The decoded image as a tc_image that owns its samples (malloc'd). TC_OK or TC_ENOMEM. */
static int take_image(io_image *img, tc_image *image)
{
    const int full = img->maxval == (img->depth == 16 ? 65535 : 255);
    void *data = img->pixels;
    long sample = img->depth == 16 ? 2 : 1;
    tc_pixel_format format = img->depth == 16 ? TC_PIXELS_U16 : TC_PIXELS_U8;
    if (!full) {
        if (!(data = to_scale(img)))
            return TC_ENOMEM;
        io_image_free(img);
        sample = 4;
        format = TC_PIXELS_F32;
    } else if (img->allocator) { /* not malloc's: tc_image_free frees with free() */
        const size_t bytes = (size_t)img->width * (size_t)img->height * (size_t)img->channels *
                             (size_t)sample;
        if (!(data = malloc(bytes)))
            return TC_ENOMEM;
        memcpy(data, img->pixels, bytes);
        io_image_free(img);
    }
    *image = (tc_image){.format = format, .width = img->width, .height = img->height,
                        .planes = img->channels, .data = data,
                        .stride = (long)img->width * img->channels * sample};
    img->pixels = NULL;
    return TC_OK;
}

TC_API int tc_read_image(tc_files *run, const char *path, tc_image *image, char *err,
                         size_t err_size)
{
    if (!run || !path || !image)
        return fail(err, err_size, path ? path : "(null)", "no run, path or image");
    files_parsed p;
    io_limits lim;
    int status = files_parse_locked(run, path, 0, &p, err, err_size);
    if (status != TC_OK)
        return status;
    plan_io_limits(&p.o, &lim); /* the limits are all a read takes */
    files_parsed_end(&p);
    lim.pixels_hint = "the run's \"max-pixels\"";
    lim.ratio_hint = "\"allow-high-ratio\"";
    /* The tool's reader: the header and the limits first, then the samples. */
    source_reader reader;
    io_image img = {0};
    if (source_reader_open(path, &lim, &reader, err, err_size) != 0)
        return TC_EINVAL;
    if (source_reader_decode(&reader, &img, err, err_size) != 0)
        status = TC_EINVAL;
    source_reader_close(&reader);
    if (status == TC_OK && (status = take_image(&img, image)) != TC_OK)
        fail(err, err_size, source_name(path), "out of host memory for its samples");
    io_image_free(&img);
    return status;
}

TC_API void tc_image_free(tc_image *image)
{
    if (!image)
        return;
    free(image->data);
    image->data = NULL;
}

/* ---- Writing ----------------------------------------------------------------------------- */

/* One sample of the image as the output's: 8 bits floor(clamp(v, 0, 255) + 0.5), 16 bits
 * round(clamp(v, 0, 255) * 65535 / 255) in double, halves up, v on the 0..255 scale (the
 * command line's rule for filtered values); U8 and U16 samples exact where the depth is
 * theirs. */
static unsigned sample_out(const tc_image *im, const uint8_t *row, size_t i, int depth)
{
    double v;
    if (im->format == TC_PIXELS_U8) {
        if (depth == 8)
            return row[i];
        v = row[i];
    } else if (im->format == TC_PIXELS_U16) {
        const unsigned s = ((const uint16_t *)(const void *)row)[i];
        if (depth == 16)
            return s;
        v = s * 255.0 / 65535.0;
    } else {
        v = ((const float *)(const void *)row)[i];
    }
    v = v != v ? 0.0 : v < 0.0 ? 0.0 : v > 255.0 ? 255.0 : v; /* NaN as 0, as the tool */
    return depth == 8 ? (unsigned)floor(v + 0.5) : (unsigned)floor(v * 65535.0 / 255.0 + 0.5);
}

/* The image's samples packed at the output's depth into img->pixels (malloc'd); refusal() has
 * bounded the image to TC_MAX_PIXELS. */
static int pack(const tc_image *im, int depth, io_image *img)
{
    const size_t n = (size_t)im->width * (size_t)im->planes;
    const size_t bytes = (size_t)n * (size_t)im->height * (depth == 16 ? 2 : 1);
    uint8_t *out = malloc(bytes ? bytes : 1);
    if (!out)
        return TC_ENOMEM;
    for (int y = 0; y < im->height; y++) {
        const uint8_t *row = (const uint8_t *)im->data + (size_t)y * (size_t)im->stride;
        for (size_t i = 0; i < n; i++) {
            const unsigned s = sample_out(im, row, i, depth);
            if (depth == 16)
                ((uint16_t *)(void *)out)[(size_t)y * n + i] = (uint16_t)s;
            else
                out[(size_t)y * n + i] = (uint8_t)s;
        }
    }
    *img = (io_image){im->width, im->height, im->planes, depth, depth == 16 ? 65535 : 255, out,
                      NULL};
    return TC_OK;
}

/* libjpeg's largest side (JPEG_MAX_DIMENSION). */
#define JPEG_MAX_SIDE 65500

/* Whether the format holds an image of this size: refused as the tool's writer refuses it
 * (JPEG's largest side, a BMP's largest file), so that what the encoder would refuse is a
 * refusal (TC_EINVAL), not a failed write. NULL, or why not. */
static const char *size_refusal(io_format fmt, const tc_image *im)
{
    size_t file_size, offbits, stride;
    if (fmt == IO_FORMAT_JPEG && (im->width > JPEG_MAX_SIDE || im->height > JPEG_MAX_SIDE))
        return "JPEG holds at most 65500 pixels a side";
    if (fmt == IO_FORMAT_BMP &&
        bmp_layout(im->width, im->height, im->planes == 1 ? 8 : 24, &file_size, &offbits, &stride))
        return "the image is too large for a BMP file";
    return NULL;
}

/* What the writer takes: U8, U16 or F32 samples, 1 or 3 channels, rows top first. NULL, or why
 * not. */
static const char *refusal(const tc_image *im)
{
    const long sample = im->format == TC_PIXELS_U8 ? 1 : im->format == TC_PIXELS_U16 ? 2 : 4;
    if (im->format != TC_PIXELS_U8 && im->format != TC_PIXELS_U16 && im->format != TC_PIXELS_F32)
        return "the image's samples are not TC_PIXELS_U8, U16 or F32";
    if (im->planes != 1 && im->planes != 3)
        return "an image file holds 1 channel (gray) or 3 (RGB)";
    if (im->width < 1 || im->height < 1 || !im->data)
        return "the image has no pixels";
    if ((long long)im->width * im->height > TC_MAX_PIXELS)
        return "the image has more pixels than the library takes (TC_MAX_PIXELS)";
    if (im->stride < (long)im->width * im->planes * sample || im->stride % sample)
        return "the image's stride is less than a row or not a multiple of its sample";
    if (((uintptr_t)im->data) % (uintptr_t)sample)
        return "the image's data is not aligned to its sample";
    return NULL;
}

TC_API int tc_write_image(tc_files *run, const char *path, const tc_image *image, char *err,
                          size_t err_size)
{
    if (!run || !path || !image)
        return fail(err, err_size, path ? path : "(null)", "no run, path or image");
    const char *why = refusal(image);
    if (why)
        return fail(err, err_size, path, why);
    if (outputs_is_stdout(path))
        return fail(err, err_size, path, "standard output is the command line's; give a file");
    files_parsed p;
    int status = files_parse_locked(run, path, 1, &p, err, err_size);
    if (status != TC_OK)
        return status;
    const tc_options *o = &p.o;
    const io_format fmt = o->image_format; /* "format", else the path's extension */
    io_image img = {0};
    const int depth = o->depth ? o->depth
                               : image->format == TC_PIXELS_U16 && io_format_holds_16_bits(fmt)
                                     ? 16
                                     : 8;
    if (status == TC_OK && io_check_writable(fmt, depth, depth == 16 ? 65535 : 255, path, err,
                                             err_size) != 0)
        status = TC_EINVAL;
    if (status == TC_OK && (why = size_refusal(fmt, image)) != NULL)
        status = fail(err, err_size, path, why);
    if (status == TC_OK && (outputs_check_flag("output", path, NULL, err, err_size) != 0 ||
                            outputs_check_replaceable("output", path, o->force, err,
                                                      err_size) != 0))
        status = TC_EINVAL;
    if (status == TC_OK && (status = pack(image, depth, &img)) != TC_OK)
        fail(err, err_size, path, "out of host memory for its samples");
    if (status == TC_OK) {
        atomic_file_read_umask();
        io_set_jpeg_sampling(o->sampling);
        if (outputs_put_image(path, fmt, &img, o->quality,
                              o->no_sync ? OUTPUTS_SYNC_NONE : OUTPUTS_SYNC_ALL, err,
                              err_size) != 0)
            status = TC_EDEVICE; /* the disk's failure (full, gone): the tool's exit 1 */
    }
    files_parsed_end(&p);
    io_image_free(&img);
    return status;
}
