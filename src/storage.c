/* storage.c - image objects beside buffers, and the bilinear-tap trick's passes (storage.h). */
#include "storage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bilinear.h"
#include "config.h"
#include "hostmem.h"
#include "kernel_args.h"
#include "tuning.h"

TC_API const char *tc_storage_name(tc_storage s)
{
    return s == TC_STORAGE_BUFFER ? "buffer" : s == TC_STORAGE_IMAGE ? "image" : "?";
}

int tc_reads_image(tc_algorithm algorithm, tc_storage storage)
{
    return algorithm == TC_BILINEAR ||
           (storage == TC_STORAGE_IMAGE && (algorithm == TC_TILED || algorithm == TC_ONEPASS));
}

void tc_image_buffers_release(tc_image_buffers *b)
{
    cl_mem *mems[] = {&b->fetch_y, &b->fetch_x, &b->tmp, &b->src};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    memset(b, 0, sizeof *b);
}

static const cl_image_format r_float = {CL_R, CL_FLOAT};

/* Whether the device lists CL_R / CL_FLOAT among its 2-D image formats for these flags. */
static int has_r_float(const tc_device *d, cl_mem_flags flags, tc_msg *m, int *found)
{
    int status = TC_OK;
    cl_uint count = 0;
    cl_image_format *formats = NULL;
    *found = 0;
    CL_CALL(status, cleanup, m,
            clGetSupportedImageFormats(d->context, flags, CL_MEM_OBJECT_IMAGE2D, 0, NULL,
                                       &count));
    if (count == 0)
        goto cleanup;
    if (!(formats = malloc(count * sizeof *formats))) {
        status = tc_fail(m, TC_ENOMEM, "out of host memory for the device's image formats");
        goto cleanup;
    }
    CL_CALL(status, cleanup, m,
            clGetSupportedImageFormats(d->context, flags, CL_MEM_OBJECT_IMAGE2D, count, formats,
                                       NULL));
    for (cl_uint i = 0; i < count; i++)
        if (formats[i].image_channel_order == CL_R &&
            formats[i].image_channel_data_type == CL_FLOAT)
            *found = 1;
cleanup:
    free(formats);
    return status;
}

int tc_images_check(const tc_device *d, tc_algorithm algorithm, tc_storage storage, int width,
                    int height, const tc_roi *roi, tc_msg *m)
{
    const char *what = algorithm == TC_BILINEAR ? "bilinear" : "storage image";
    cl_bool support = CL_FALSE;
    size_t max_w = 0, max_h = 0;
    int status = TC_OK, found = 0;
    if (!tc_reads_image(algorithm, storage))
        return TC_OK;
    CL_CALL(status, cleanup, m,
            clGetDeviceInfo(d->device, CL_DEVICE_IMAGE_SUPPORT, sizeof support, &support, NULL));
    if (tc_tuning_now()->no_images) /* the tests' device without images */
        support = CL_FALSE;
    if (!support)
        return tc_fail(m, TC_EINVAL,
                       "%s: %s has no image support (CL_DEVICE_IMAGE_SUPPORT is false); use "
                       "%s, or a device with images",
                       what, d->info.name,
                       algorithm == TC_BILINEAR ? "another algorithm" : "buffer storage");
    /* Pass 1 of bilinear writes its temporary image, which pass 2 reads. */
    if ((status = has_r_float(d, algorithm == TC_BILINEAR ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY,
                              m, &found)) != TC_OK)
        return status;
    if (!found)
        return tc_fail(m, TC_EINVAL,
                       "%s: %s has no 2-D images of one float channel (CL_R, CL_FLOAT)", what,
                       d->info.name);
    CL_CALL(status, cleanup, m,
            clGetDeviceInfo(d->device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof max_w, &max_w, NULL));
    CL_CALL(status, cleanup, m,
            clGetDeviceInfo(d->device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof max_h, &max_h,
                            NULL));
    /* The source image is as wide as the padded rows (a copy of the input buffer). */
    if ((size_t)tc_device_pitch(width) > max_w || (size_t)height > max_h)
        return tc_fail(m, TC_EINVAL,
                       "%s: a %d x %d image (rows padded to %d) is larger than the %zu x %zu "
                       "2-D images %s allows (CL_DEVICE_IMAGE2D_MAX_WIDTH/HEIGHT)",
                       what, width, height, tc_device_pitch(width), max_w, max_h, d->info.name);
    /* Beside the input and output planes: the image, and bilinear's temporary. */
    const unsigned long long plane =
        (unsigned long long)tc_device_pitch(width) * height * sizeof(float);
    const unsigned long long need =
        3 * plane + (algorithm == TC_BILINEAR
                         ? (unsigned long long)roi->width * roi->height * sizeof(float)
                         : 0);
    if (need > d->info.global_mem_bytes)
        return tc_fail(m, TC_EINVAL,
                       "%s: a %d x %d image needs %.1f MB of device memory (input and output "
                       "planes, the image%s), more than the %.1f MB %s has "
                       "(CL_DEVICE_GLOBAL_MEM_SIZE)",
                       what, width, height, tc_mb(need),
                       algorithm == TC_BILINEAR ? ", the temporary image" : "",
                       tc_mb(d->info.global_mem_bytes), d->info.name);
cleanup:
    return status;
}

unsigned long long tc_images_new_bytes(const tc_image_buffers *b, tc_algorithm algorithm,
                                       int pitch, int height, const tc_roi *roi)
{
    unsigned long long bytes = 0;
    if (!b->src || b->src_width != (size_t)pitch || b->src_height != (size_t)height)
        bytes += (unsigned long long)pitch * height * sizeof(float);
    if (algorithm == TC_BILINEAR &&
        (!b->tmp || b->tmp_width != (size_t)roi->width || b->tmp_height != (size_t)roi->height))
        bytes += (unsigned long long)roi->width * roi->height * sizeof(float);
    return bytes;
}

/* *img is an image of exactly width x height (kept when it is, else made anew). Unlike the
 * buffers, which are kept while large enough, an image must fit: a linear sample's 2 x 2
 * footprint reaches one texel past the last row or column read, with weight 0, and there
 * the sampler's clamp must find this run's edge, never a larger image's stale texels (a NaN
 * times 0 is NaN). */
static int ensure_image(const tc_device *d, cl_mem *img, size_t *cap_w, size_t *cap_h,
                        size_t width, size_t height, const char *what, tc_msg *m)
{
    cl_image_desc desc;
    cl_int err;
    if (*img && *cap_w == width && *cap_h == height)
        return TC_OK;
    if (*img)
        clReleaseMemObject(*img);
    *img = NULL;
    *cap_w = *cap_h = 0;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = width;
    desc.image_height = height;
    *img = clCreateImage(d->context, CL_MEM_READ_WRITE, &r_float, &desc, NULL, &err);
    if (err != CL_SUCCESS) {
        *img = NULL;
        return cl_fail(m, err, what);
    }
    *cap_w = width;
    *cap_h = height;
    return TC_OK;
}

int tc_images_source(const tc_device *d, tc_image_buffers *b, cl_mem src, int pitch,
                     int height, cl_event *event, tc_msg *m)
{
    int status;
    const size_t origin[3] = {0, 0, 0}, region[3] = {(size_t)pitch, (size_t)height, 1};
    if ((status = ensure_image(d, &b->src, &b->src_width, &b->src_height, (size_t)pitch,
                               (size_t)height, "clCreateImage(source image)", m)) != TC_OK)
        return status;
    CL_CALL(status, cleanup, m,
            clEnqueueCopyBufferToImage(d->queue, src, b->src, 0, origin, region, 0, NULL, event));
cleanup:
    return status;
}

/* Both axes' samples; 0, or -1 when an axis does not pair (the job was checked before). */
static int pair_axes(const tc_filter_spec *f, tc_bilinear_axis *ax, tc_bilinear_axis *ay)
{
    return tc_bilinear_pair(f->kx, f->taps_x, ax, NULL) ||
                   tc_bilinear_pair(f->ky, f->taps_y, ay, NULL)
               ? -1
               : 0;
}

void tc_bilinear_options(const tc_filter_spec *f, char *out, size_t size)
{
    tc_bilinear_axis ax, ay;
    if (pair_axes(f, &ax, &ay)) {
        snprintf(out, size, " -D BILINEAR_UNPAIRED"); /* not reached: jobs are checked */
        return;
    }
    snprintf(out, size, " -D FETCHES_X=%d -D FETCHES_Y=%d -D LONE_X=%d -D LONE_Y=%d "
                        "-D BL_GROUP_X=%d -D BL_GROUP_Y=%d",
             ax.fetches, ay.fetches, ax.lone, ay.lone, TC_BILINEAR_GROUP_X,
             TC_BILINEAR_GROUP_Y);
}

void tc_bilinear_geometry(const tc_roi *roi, size_t global[2])
{
    global[0] = (size_t)(roi->width + TC_BILINEAR_GROUP_X - 1) / TC_BILINEAR_GROUP_X *
                TC_BILINEAR_GROUP_X;
    global[1] = (size_t)(roi->height + TC_BILINEAR_GROUP_Y - 1) / TC_BILINEAR_GROUP_Y *
                TC_BILINEAR_GROUP_Y;
}

int tc_bilinear_prepare(const tc_device *d, tc_image_buffers *b, const tc_filter_spec *f,
                        const tc_roi *roi, tc_msg *m)
{
    const size_t bytes = TC_BILINEAR_MAX_FETCHES * 4 * sizeof(float);
    tc_bilinear_axis ax, ay;
    cl_int err;
    int status;
    if (pair_axes(f, &ax, &ay))
        return tc_fail(m, TC_EINVAL, "bilinear: the filter's taps do not pair");
    if ((status = ensure_image(d, &b->tmp, &b->tmp_width, &b->tmp_height, (size_t)roi->width,
                               (size_t)roi->height, "clCreateImage(bilinear temporary)", m)) !=
        TC_OK)
        return status;
    cl_mem *fetch[2] = {&b->fetch_x, &b->fetch_y};
    for (int i = 0; i < 2; i++)
        if (!*fetch[i]) {
            *fetch[i] = clCreateBuffer(d->context, CL_MEM_READ_ONLY, bytes, NULL, &err);
            if (err != CL_SUCCESS) {
                *fetch[i] = NULL;
                return cl_fail(m, err, "clCreateBuffer(bilinear samples)");
            }
        }
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(d->queue, b->fetch_x, CL_FALSE, 0, bytes, ax.sample, 0, NULL,
                                 NULL));
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(d->queue, b->fetch_y, CL_FALSE, 0, bytes, ay.sample, 0, NULL,
                                 NULL));
    /* The host copies must outlive the non-blocking writes. */
    CL_CALL(status, cleanup, m, clFinish(d->queue));
cleanup:
    return status;
}

int tc_bilinear_enqueue(cl_command_queue queue, cl_kernel rows, cl_kernel cols,
                        const tc_image_buffers *b, const tc_filter_spec *f, const tc_roi *roi,
                        cl_mem kx, cl_mem ky, cl_mem dst, int pitch, const size_t local[2],
                        cl_event events[2], tc_msg *m)
{
    int status = TC_OK;
    size_t global[2];
    /* Pass 2 filters rows that pass 1 filtered with kx: outside the ROI a constant border is
     * the constant filtered by kx (as twopass's pass 2 takes it). */
    float border_value2 = 0.0f;
    for (int i = 0; i < f->taps_x; i++)
        border_value2 += f->kx[i] * f->border_value;
    const tc_kernel_arg pass1[] = {
        TC_KARG(b->src),      TC_KARG(b->tmp),     TC_KARG(roi->src_left),
        TC_KARG(roi->src_top), TC_KARG(roi->width), TC_KARG(roi->height),
        TC_KARG(b->fetch_x),  TC_KARG(kx),         TC_KARG(f->border_value)};
    const tc_kernel_arg pass2[] = {
        TC_KARG(b->tmp),       TC_KARG(dst),        TC_KARG(pitch),
        TC_KARG(roi->dst_left), TC_KARG(roi->dst_top), TC_KARG(roi->width),
        TC_KARG(roi->height),  TC_KARG(b->fetch_y), TC_KARG(ky),
        TC_KARG(border_value2)};
    tc_bilinear_geometry(roi, global);
    if ((status = tc_set_args(rows, "bilinear_rows", pass1, 9, m)) != TC_OK ||
        (status = tc_set_args(cols, "bilinear_cols", pass2, 10, m)) != TC_OK)
        return status;
    if ((status = tc_enqueue(queue, rows, global, local, &events[0], m)) != TC_OK)
        return status;
    return tc_enqueue(queue, cols, global, local, &events[1], m);
}
