/*
 * pixels.c - tc_filter_image's two paths. On the device: pixel rows are copied into pinned
 * staging memory as packed top-down rows, uploaded as bytes, turned into planes by
 * unpack_pixels, filtered plane by plane, turned back into bytes by pack_pixels, and read back
 * through pinned memory into the caller's rows. On the host (no double precision on the
 * device, or convert_on_host): the same conversions in image.c around tc_run.
 */
#include "pixels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes per pixel of a byte format; 0 for FLOAT32. */
static int pixel_bytes(tc_pixel_format f)
{
    switch (f) {
    case TC_PIXELS_GRAY8:
    case TC_PIXELS_INDEXED8:
        return 1;
    case TC_PIXELS_RGB24:
    case TC_PIXELS_BGR24:
        return 3;
    case TC_PIXELS_BGRX32:
        return 4;
    default:
        return 0;
    }
}

/* The planes dst asks for: 1 (the intensity) or 3 (R, G, B). */
static int planes_of(const tc_image *dst)
{
    if (dst->format == TC_PIXELS_FLOAT32)
        return dst->planes;
    return dst->format == TC_PIXELS_GRAY8 ? 1 : 3;
}

int tc_image_check(const tc_image *img, int is_src, tc_msg *m)
{
    const char *side = is_src ? "src" : "dst";
    if (!img)
        return tc_fail(m, TC_EINVAL, "%s is NULL", side);
    if ((int)img->format < 0 || img->format > TC_PIXELS_FLOAT32)
        return tc_fail(m, TC_EINVAL, "%s->format %d: not a tc_pixel_format", side,
                       (int)img->format);
    if (!is_src && img->format == TC_PIXELS_INDEXED8)
        return tc_fail(m, TC_EINVAL, "dst->format: palette images are read, not written");
    if (img->width < 1 || img->height < 1 || !img->data)
        return tc_fail(m, TC_EINVAL, "%s: %d x %d with data %s: sizes must be at least 1 and "
                                     "data not NULL",
                       side, img->width, img->height, img->data ? "given" : "NULL");
    if (img->format == TC_PIXELS_FLOAT32 && img->planes != 1 && img->planes != 3)
        return tc_fail(m, TC_EINVAL, "%s->planes %d: FLOAT32 images have 1 or 3 planes", side,
                       img->planes);
    const long row = img->format == TC_PIXELS_FLOAT32 ? (long)img->width * (long)sizeof(float)
                                                      : (long)img->width * pixel_bytes(img->format);
    if (img->stride < row && -img->stride < row)
        return tc_fail(m, TC_EINVAL, "%s->stride %ld: a row needs %ld bytes", side, img->stride,
                       row);
    if (img->format == TC_PIXELS_INDEXED8 &&
        (!img->palette || img->palette_size < 1 || img->palette_size > 256))
        return tc_fail(m, TC_EINVAL, "src: an INDEXED8 image needs a palette of 1..256 entries");
    return TC_OK;
}

/* Row y of an image (0 on top), whatever the direction its rows are stored in. */
static unsigned char *row_of(const tc_image *img, int y)
{
    return (unsigned char *)img->data + (long)y * img->stride;
}

/* ---- The host path ---------------------------------------------------------------------- */

/* Every palette index of an INDEXED8 image names an entry. */
static int check_indices(const tc_image *src, tc_msg *m)
{
    for (int y = 0; src->format == TC_PIXELS_INDEXED8 && y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            if (row_of(src, y)[x] >= src->palette_size)
                return tc_fail(m, TC_EINVAL, "src: pixel (%d, %d) is palette index %d; the "
                                             "palette has %d entries",
                               x, y, row_of(src, y)[x], src->palette_size);
    return TC_OK;
}

/* Plane c (of `planes`) of src, formed on the host with image.c's conversions. */
static void host_unpack(const tc_image *src, int c, int planes, tc_plane *p)
{
    for (int y = 0; y < src->height; y++) {
        const unsigned char *row = row_of(src, y);
        float *out = p->px + (size_t)y * (size_t)p->width;
        if (src->format == TC_PIXELS_FLOAT32) {
            /* Plane c follows the planes before it, height rows each. */
            const unsigned char *plane_row = row + (long)c * src->height * src->stride;
            memcpy(out, plane_row, (size_t)src->width * sizeof(float));
            continue;
        }
        for (int x = 0; x < src->width; x++) {
            uint8_t rgb[3];
            const unsigned char *px = row + (size_t)x * (size_t)pixel_bytes(src->format);
            switch (src->format) {
            case TC_PIXELS_GRAY8: rgb[0] = rgb[1] = rgb[2] = px[0]; break;
            case TC_PIXELS_RGB24: rgb[0] = px[0]; rgb[1] = px[1]; rgb[2] = px[2]; break;
            case TC_PIXELS_INDEXED8: memcpy(rgb, src->palette + 3 * px[0], 3); break;
            default: rgb[0] = px[2]; rgb[1] = px[1]; rgb[2] = px[0]; break; /* BGR, BGRX */
            }
            out[x] = planes == 1 ? tc_intensity(rgb[0], rgb[1], rgb[2]) : (float)rgb[c];
        }
    }
}

int tc_image_planes(const tc_image *src, int planes, float *out, tc_msg *m)
{
    int status;
    if ((status = tc_image_check(src, 1, m)) != TC_OK)
        return status;
    if (planes != 1 && planes != 3)
        return tc_fail(m, TC_EINVAL, "planes %d: 1 (the intensity) or 3 (R, G, B)", planes);
    if (src->format == TC_PIXELS_FLOAT32 && src->planes != planes)
        return tc_fail(m, TC_EINVAL, "src has %d float planes, %d asked for", src->planes,
                       planes);
    if ((status = check_indices(src, m)) != TC_OK)
        return status;
    for (int c = 0; c < planes; c++) {
        tc_plane p = {src->width, src->height,
                      out + (size_t)c * (size_t)src->width * (size_t)src->height};
        host_unpack(src, c, planes, &p);
    }
    return TC_OK;
}

/* The filtered planes into dst's pixels on the host: floats as they are, bytes mapped. */
static void host_pack(const tc_plane *planes, int count, const tc_roi *roi, double scale,
                      double offset, const tc_image *dst)
{
    const int ob = pixel_bytes(dst->format);
    for (int y = 0; y < dst->height; y++) {
        unsigned char *row = row_of(dst, y);
        for (int c = 0; c < count; c++) {
            const float *in = planes[c].px + (size_t)y * (size_t)dst->width;
            if (dst->format == TC_PIXELS_FLOAT32) {
                memcpy(row + (long)c * dst->height * dst->stride, in,
                       (size_t)dst->width * sizeof(float));
                continue;
            }
            /* Byte order within a pixel: R, G, B for RGB24; B, G, R for the BMP formats. */
            const int at = dst->format == TC_PIXELS_RGB24 || count == 1 ? c : 2 - c;
            for (int x = 0; x < dst->width; x++) {
                const int inside = tc_roi_in_target(roi, x, y);
                row[(size_t)x * ob + at] = tc_map_byte(in[x], inside ? scale : 1.0,
                                                       inside ? offset : 0.0);
            }
        }
        if (dst->format == TC_PIXELS_BGRX32)
            for (int x = 0; x < dst->width; x++)
                row[(size_t)x * 4 + 3] = 0;
    }
}

static void add_run(tc_run_stats *total, const tc_run_stats *one)
{
    total->kernel_ms[0] += one->kernel_ms[0];
    for (int p = 0; p < 2 && total->pass_ms[p] && one->pass_ms[p]; p++)
        total->pass_ms[p][0] += one->pass_ms[p][0];
    total->build_ms += one->build_ms;
    total->h2d_ms += one->h2d_ms;
    total->d2h_ms += one->d2h_ms;
    total->wall_ms_per_iteration += one->wall_ms_per_iteration;
}

/* Keeps plane 0's run as the total (its arrays included) and adds the later ones to it. */
static void accumulate(tc_run_stats *total, tc_run_stats *one, int c)
{
    if (c == 0) {
        *total = *one;
        memset(one, 0, sizeof *one);
    } else {
        add_run(total, one);
        tc_run_stats_free(one);
    }
}

static int run_on_host(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                       const tc_job *job, const tc_image *src, const tc_image *dst, double scale,
                       double offset, tc_run_stats *stats, tc_msg *m)
{
    const int count = planes_of(dst);
    tc_plane in = {0, 0, NULL}, out[3] = {{0, 0, NULL}, {0, 0, NULL}, {0, 0, NULL}};
    int status = TC_OK;
    memset(stats, 0, sizeof *stats);
    if (tc_plane_alloc(&in, src->width, src->height))
        status = tc_fail(m, TC_ENOMEM, "out of host memory for a %d x %d plane", src->width,
                         src->height);
    for (int c = 0; status == TC_OK && c < count; c++)
        if (tc_plane_alloc(&out[c], src->width, src->height))
            status = tc_fail(m, TC_ENOMEM, "out of host memory for a %d x %d plane", src->width,
                             src->height);
    for (int c = 0; status == TC_OK && c < count; c++) {
        tc_run_stats one;
        host_unpack(src, c, count, &in);
        if ((status = tc_run(d, programs, buffers, job, &in, &out[c], 0, 1, &one, m)) == TC_OK)
            accumulate(stats, &one, c);
    }
    if (status == TC_OK)
        host_pack(out, count, &job->roi, scale, offset, dst);
    else
        tc_run_stats_free(stats);
    tc_plane_free(&in);
    for (int c = 0; c < 3; c++)
        tc_plane_free(&out[c]);
    return status;
}

/* ---- The device path -------------------------------------------------------------------- */

/* A page-locked host buffer of at least `bytes`, mapped for the host (NVIDIA's pinned
 * memory: transfers from it run at the bus's speed, from ordinary memory at a fraction). */
static int ensure_pinned(const tc_device *d, cl_mem *mem, void **ptr, size_t *size,
                         size_t bytes, tc_msg *m)
{
    int status = TC_OK;
    cl_int err;
    if (*mem && *size >= bytes)
        return TC_OK;
    if (*mem) {
        clEnqueueUnmapMemObject(d->queue, *mem, *ptr, 0, NULL, NULL);
        clFinish(d->queue);
        clReleaseMemObject(*mem);
    }
    *mem = NULL;
    *ptr = NULL;
    *size = 0;
    *mem = clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                          &err);
    CL_CHECK(status, cleanup, m, err, "clCreateBuffer(pinned staging)");
    *ptr = clEnqueueMapBuffer(d->queue, *mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                              NULL, NULL, &err);
    CL_CHECK(status, cleanup, m, err, "clEnqueueMapBuffer(pinned staging)");
    *size = bytes;
    return TC_OK;
cleanup:
    if (*mem)
        clReleaseMemObject(*mem);
    *mem = NULL;
    return status;
}

void tc_pixel_buffers_release(tc_pixel_buffers *pb, cl_command_queue queue)
{
    if (pb->pinned_in)
        clEnqueueUnmapMemObject(queue, pb->pinned_in, pb->pinned_in_ptr, 0, NULL, NULL);
    if (pb->pinned_out)
        clEnqueueUnmapMemObject(queue, pb->pinned_out, pb->pinned_out_ptr, 0, NULL, NULL);
    if (queue)
        clFinish(queue);
    cl_mem mems[] = {pb->bytes_in, pb->bytes_out,    pb->palette,      pb->pinned_in,
                     pb->pinned_out, pb->plane_src[0], pb->plane_src[1], pb->plane_dst[0],
                     pb->plane_dst[1]};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    memset(pb, 0, sizeof *pb);
}

/* The bytes an image's rows occupy, whichever way they run: from the lowest address, `size`
 * bytes, row 0 at `base` within it; row y at base + y * stride. The last row ends with its
 * pixels (a file's last row may lack its padding). */
typedef struct {
    unsigned char *start;
    size_t size;
    long base;
} row_block;

static row_block block_of(const tc_image *img)
{
    const size_t row = (size_t)img->width * (size_t)pixel_bytes(img->format);
    const long span = (long)(img->height - 1) * (img->stride < 0 ? -img->stride : img->stride);
    row_block b;
    b.base = img->stride < 0 ? span : 0;
    b.start = (unsigned char *)img->data - b.base;
    b.size = (size_t)span + row;
    return b;
}

/* How the pixels cross the bus: through the context's pinned staging memory (a host copy,
 * then the bus at its full speed) or straight from and to the caller's memory (no copy, the
 * driver's own staging). TILEDCONV_UPLOAD / TILEDCONV_DOWNLOAD = pinned | direct choose, for
 * the measurements in BENCHMARKS.md; pinned is the default. */
static int use_pinned(const char *variable)
{
    const char *v = getenv(variable);
    return !v || strcmp(v, "direct") != 0;
}

/* Kernel arguments by position; a failure names the kernel and the argument. */
static int set_arg(cl_kernel k, const char *name, cl_uint i, size_t size, const void *value,
                   tc_msg *m)
{
    cl_int err = clSetKernelArg(k, i, size, value);
    if (err != CL_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "clSetKernelArg(%s, argument %u)", name, i);
        return cl_fail(m, err, what);
    }
    return TC_OK;
}

/* The state of one device-path run. */
typedef struct {
    const tc_device *d;
    const tc_image *src, *dst;
    int planes, pitch;
    cl_mem src_planes[3], dst_planes[3];
    cl_program program;
    cl_event upload, unpack, pack, download[3];
} image_run;

static int ensure_device_buffers(image_run *r, tc_buffers *b, tc_pixel_buffers *pb, tc_msg *m)
{
    const tc_device *d = r->d;
    const size_t plane_bytes = (size_t)r->pitch * (size_t)r->src->height * sizeof(float);
    const size_t in_bytes = block_of(r->src).size;
    const size_t out_bytes =
        r->dst->format == TC_PIXELS_FLOAT32 ? plane_bytes : block_of(r->dst).size;
    int status;
    /* What this image adds, checked first on a CPU device (host memory: launch.h). */
    unsigned long long more = tc_new_bytes(b->src_bytes, plane_bytes) +
                              tc_new_bytes(b->dst_bytes, plane_bytes) +
                              tc_new_bytes(pb->bytes_in_size, in_bytes) +
                              tc_new_bytes(pb->pinned_in_size, in_bytes) +
                              tc_new_bytes(pb->pinned_out_size, out_bytes) +
                              (r->dst->format != TC_PIXELS_FLOAT32
                                   ? tc_new_bytes(pb->bytes_out_size, out_bytes)
                                   : 0);
    for (int c = 1; c < r->planes; c++)
        more += tc_new_bytes(pb->plane_src_size[c - 1], plane_bytes) +
                tc_new_bytes(pb->plane_dst_size[c - 1], plane_bytes);
    if ((status = tc_check_host_room(d, more, "the image's buffers", m)) != TC_OK)
        return status;
    if ((status = tc_ensure_buffer(d, &b->src, &b->src_bytes, plane_bytes, CL_MEM_READ_WRITE,
                                   "clCreateBuffer(input plane)", m)) != TC_OK ||
        (status = tc_ensure_buffer(d, &b->dst, &b->dst_bytes, plane_bytes, CL_MEM_READ_WRITE,
                                   "clCreateBuffer(output plane)", m)) != TC_OK ||
        (status = tc_ensure_buffer(d, &pb->bytes_in, &pb->bytes_in_size, in_bytes,
                                   CL_MEM_READ_ONLY, "clCreateBuffer(input pixels)", m)) !=
            TC_OK ||
        (status = tc_ensure_buffer(d, &pb->palette, &pb->palette_size, 3 * 256,
                                   CL_MEM_READ_ONLY, "clCreateBuffer(palette)", m)) != TC_OK ||
        (status = ensure_pinned(d, &pb->pinned_in, &pb->pinned_in_ptr, &pb->pinned_in_size,
                                in_bytes, m)) != TC_OK ||
        (status = ensure_pinned(d, &pb->pinned_out, &pb->pinned_out_ptr, &pb->pinned_out_size,
                                out_bytes, m)) != TC_OK)
        return status;
    if (r->dst->format != TC_PIXELS_FLOAT32 &&
        (status = tc_ensure_buffer(d, &pb->bytes_out, &pb->bytes_out_size, out_bytes,
                                   CL_MEM_WRITE_ONLY, "clCreateBuffer(output pixels)", m)) !=
            TC_OK)
        return status;
    r->src_planes[0] = b->src;
    r->dst_planes[0] = b->dst;
    for (int c = 1; c < r->planes; c++) {
        if ((status = tc_ensure_buffer(d, &pb->plane_src[c - 1], &pb->plane_src_size[c - 1],
                                       plane_bytes, CL_MEM_READ_WRITE,
                                       "clCreateBuffer(input plane)", m)) != TC_OK ||
            (status = tc_ensure_buffer(d, &pb->plane_dst[c - 1], &pb->plane_dst_size[c - 1],
                                       plane_bytes, CL_MEM_READ_WRITE,
                                       "clCreateBuffer(output plane)", m)) != TC_OK)
            return status;
        r->src_planes[c] = pb->plane_src[c - 1];
        r->dst_planes[c] = pb->plane_dst[c - 1];
    }
    for (int c = r->planes; c < 3; c++) /* unused kernel arguments still need a buffer */
        r->src_planes[c] = r->dst_planes[c] = b->src;
    return TC_OK;
}

/* Bytes up, planes formed: unpack_pixels over the whole padded plane. */
static int unpack(image_run *r, tc_pixel_buffers *pb, tc_msg *m)
{
    const tc_image *src = r->src;
    const row_block in = block_of(src);
    const cl_long base = in.base, stride = src->stride;
    unsigned char palette[3 * 256] = {0};
    const int format = (int)src->format;
    const void *host = in.start;
    cl_kernel k = NULL;
    cl_int err;
    int status;
    if ((status = check_indices(src, m)) != TC_OK)
        return status;
    if (src->format == TC_PIXELS_INDEXED8)
        memcpy(palette, src->palette, 3 * (size_t)src->palette_size);
    if (use_pinned("TILEDCONV_UPLOAD")) {
        memcpy(pb->pinned_in_ptr, in.start, in.size);
        host = pb->pinned_in_ptr;
    }
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(r->d->queue, pb->bytes_in, CL_FALSE, 0, in.size, host, 0,
                                 NULL, &r->upload));
    /* Blocking: the palette lives on this function's stack. */
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(r->d->queue, pb->palette, CL_TRUE, 0, sizeof palette, palette,
                                 0, NULL, NULL));
    k = clCreateKernel(r->program, "unpack_pixels", &err);
    CL_CHECK(status, cleanup, m, err, "clCreateKernel(unpack_pixels)");
    const struct {
        size_t size;
        const void *value;
    } args[] = {{sizeof(cl_mem), &pb->bytes_in},  {sizeof(cl_long), &base},
                {sizeof(cl_long), &stride},       {sizeof(int), &format},
                {sizeof(int), &src->width},       {sizeof(int), &src->height},
                {sizeof(cl_mem), &pb->palette},   {sizeof(int), &r->planes},
                {sizeof(int), &r->pitch},         {sizeof(cl_mem), &r->src_planes[0]},
                {sizeof(cl_mem), &r->src_planes[1]}, {sizeof(cl_mem), &r->src_planes[2]},
                {sizeof(cl_mem), &r->dst_planes[0]}, {sizeof(cl_mem), &r->dst_planes[1]},
                {sizeof(cl_mem), &r->dst_planes[2]}};
    for (cl_uint i = 0; i < sizeof args / sizeof args[0]; i++)
        if ((status = set_arg(k, "unpack_pixels", i, args[i].size, args[i].value, m)) != TC_OK)
            goto cleanup;
    const size_t global[2] = {(size_t)r->pitch, (size_t)src->height};
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(r->d->queue, k, 2, NULL, global, NULL, 0, NULL, &r->unpack));
cleanup:
    if (k)
        clReleaseKernel(k);
    return status;
}

/* Planes to bytes on the device (pack_pixels), then down through pinned memory. */
static int pack_and_download(image_run *r, tc_pixel_buffers *pb, const tc_roi *roi,
                             double scale, double offset, tc_msg *m)
{
    const tc_image *dst = r->dst;
    const int ob = pixel_bytes(dst->format), format = (int)dst->format;
    const row_block out = block_of(dst);
    const cl_long base = out.base, stride = dst->stride;
    const long abs_stride = stride < 0 ? -stride : stride;
    const int gap = (int)(abs_stride - (long)dst->width * ob);
    const int pinned = use_pinned("TILEDCONV_DOWNLOAD");
    cl_kernel k = NULL;
    cl_int err;
    int status;
    k = clCreateKernel(r->program, "pack_pixels", &err);
    CL_CHECK(status, cleanup, m, err, "clCreateKernel(pack_pixels)");
    const struct {
        size_t size;
        const void *value;
    } args[] = {{sizeof(cl_mem), &r->dst_planes[0]}, {sizeof(cl_mem), &r->dst_planes[1]},
                {sizeof(cl_mem), &r->dst_planes[2]}, {sizeof(int), &r->pitch},
                {sizeof(int), &dst->width},          {sizeof(int), &dst->height},
                {sizeof(int), &r->planes},           {sizeof(int), &format},
                {sizeof(cl_mem), &pb->bytes_out},    {sizeof(cl_long), &base},
                {sizeof(cl_long), &stride},          {sizeof(int), &gap},
                {sizeof(int), &roi->dst_left},
                {sizeof(int), &roi->dst_top},        {sizeof(int), &roi->width},
                {sizeof(int), &roi->height},         {sizeof(double), &scale},
                {sizeof(double), &offset}};
    for (cl_uint i = 0; i < sizeof args / sizeof args[0]; i++)
        if ((status = set_arg(k, "pack_pixels", i, args[i].size, args[i].value, m)) != TC_OK)
            goto cleanup;
    const size_t global[2] = {(size_t)dst->width, (size_t)dst->height};
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(r->d->queue, k, 2, NULL, global, NULL, 0, NULL, &r->pack));
    CL_CALL(status, cleanup, m,
            clEnqueueReadBuffer(r->d->queue, pb->bytes_out, CL_TRUE, 0, out.size,
                                pinned ? pb->pinned_out_ptr : (void *)out.start, 0, NULL,
                                &r->download[0]));
    if (pinned)
        memcpy(out.start, pb->pinned_out_ptr, out.size);
cleanup:
    if (k)
        clReleaseKernel(k);
    return status;
}

/* The filtered float planes down through pinned memory, row by row into dst. */
static int download_planes(image_run *r, tc_pixel_buffers *pb, tc_msg *m)
{
    const tc_image *dst = r->dst;
    const size_t plane_bytes = (size_t)r->pitch * (size_t)dst->height * sizeof(float);
    int status = TC_OK;
    for (int c = 0; c < r->planes; c++) {
        CL_CALL(status, cleanup, m,
                clEnqueueReadBuffer(r->d->queue, r->dst_planes[c], CL_TRUE, 0, plane_bytes,
                                    pb->pinned_out_ptr, 0, NULL, &r->download[c]));
        for (int y = 0; y < dst->height; y++)
            memcpy(row_of(dst, y) + (long)c * dst->height * dst->stride,
                   (float *)pb->pinned_out_ptr + (size_t)y * r->pitch,
                   (size_t)dst->width * sizeof(float));
    }
cleanup:
    return status;
}

/* The transfer and conversion times of a finished run, from its events. */
static int event_times(const image_run *r, tc_run_stats *stats, double *convert_ms, tc_msg *m)
{
    double ms;
    int status;
    if ((status = tc_event_ms(r->upload, &ms, m)) != TC_OK)
        return status;
    stats->h2d_ms += ms;
    for (int i = 0; i < 3; i++)
        if (r->download[i]) {
            if ((status = tc_event_ms(r->download[i], &ms, m)) != TC_OK)
                return status;
            stats->d2h_ms += ms;
        }
    *convert_ms = 0.0;
    const cl_event conversions[2] = {r->unpack, r->pack};
    for (int i = 0; i < 2; i++)
        if (conversions[i]) {
            if ((status = tc_event_ms(conversions[i], &ms, m)) != TC_OK)
                return status;
            *convert_ms += ms;
        }
    return TC_OK;
}

static int run_on_device(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                         tc_pixel_buffers *pb, const tc_job *job, const tc_image *src,
                         const tc_image *dst, double scale, double offset, tc_run_stats *stats,
                         double *convert_ms, tc_msg *m)
{
    image_run r;
    double build_ms = 0.0;
    int status;
    memset(&r, 0, sizeof r);
    memset(stats, 0, sizeof *stats);
    r.d = d;
    r.src = src;
    r.dst = dst;
    r.planes = planes_of(dst);
    r.pitch = tc_device_pitch(src->width);
    if ((status = tc_program_get(programs, d, TC_SOURCE_PIXELS, "-cl-std=CL1.2", &r.program,
                                 &build_ms, m)) != TC_OK ||
        (status = ensure_device_buffers(&r, buffers, pb, m)) != TC_OK ||
        (status = unpack(&r, pb, m)) != TC_OK)
        goto cleanup;
    for (int c = 0; c < r.planes; c++) {
        tc_run_stats one;
        if ((status = tc_run_resident(d, programs, buffers, job, r.src_planes[c],
                                      r.dst_planes[c], src->width, src->height, 0, 1, &one,
                                      m)) != TC_OK)
            goto cleanup;
        accumulate(stats, &one, c);
    }
    stats->build_ms += build_ms;
    status = dst->format == TC_PIXELS_FLOAT32
                 ? download_planes(&r, pb, m)
                 : pack_and_download(&r, pb, &job->roi, scale, offset, m);
    if (status == TC_OK)
        status = event_times(&r, stats, convert_ms, m);
cleanup:
    if (status != TC_OK) {
        clFinish(d->queue);
        tc_run_stats_free(stats);
    }
    cl_event events[] = {r.upload, r.unpack, r.pack, r.download[0], r.download[1], r.download[2]};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if (events[i])
            clReleaseEvent(events[i]);
    return status;
}

int tc_run_image(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                 tc_pixel_buffers *pb, const tc_job *job, const tc_image *src,
                 const tc_image *dst, double scale, double offset, int convert_on_host,
                 tc_run_stats *stats, double *convert_ms, int *planes, tc_msg *m)
{
    int status;
    *convert_ms = 0.0;
    *planes = planes_of(dst);
    if (src->width != dst->width || src->height != dst->height)
        return tc_fail(m, TC_EINVAL, "src is %d x %d and dst %d x %d: they must be the same size",
                       src->width, src->height, dst->width, dst->height);
    if (src->format == TC_PIXELS_FLOAT32 && src->planes != *planes)
        return tc_fail(m, TC_EINVAL, "src has %d float plane%s and dst asks for %d", src->planes,
                       src->planes == 1 ? "" : "s", *planes);
    if ((status = tc_check_fits(d, src->width, src->height, m)) != TC_OK)
        return status;
    /* Float planes need no conversion; without double precision the device cannot make the
     * host's values. Both go the host's way. */
    if (convert_on_host || src->format == TC_PIXELS_FLOAT32 || !d->info.has_double) {
        if ((status = check_indices(src, m)) != TC_OK)
            return status;
        return run_on_host(d, programs, buffers, job, src, dst, scale, offset, stats, m);
    }
    return run_on_device(d, programs, buffers, pb, job, src, dst, scale, offset, stats,
                         convert_ms, m);
}
