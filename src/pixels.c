/*
 * pixels.c - tc_filter_image's two paths. On the device: pixel rows are copied into pinned
 * staging memory as packed top-down rows, uploaded as bytes, turned into planes by
 * unpack_pixels, filtered plane by plane, turned back into bytes by pack_pixels, and read back
 * through pinned memory into the caller's rows. On the host (no double precision on the
 * device, or convert_on_host): the same conversions in image.c around tc_run.
 */
#include "pixels.h"
#include "channels.h"
#include "copier.h"
#include "host_run.h"
#include "tuning.h"

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes per pixel of a byte format; 0 for FLOAT32 (and the channel-last layouts, which
 * channels.h describes). */
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

/* The bytes of one row's pixels, for an image whose sizes and planes are valid. */
static size_t row_bytes(const tc_image *img)
{
    if (tc_is_channels(img->format))
        return tc_channels_row_bytes(img);
    if (img->format == TC_PIXELS_FLOAT32)
        return (size_t)img->width * sizeof(float);
    return (size_t)img->width * (size_t)pixel_bytes(img->format);
}

/* |stride| without the overflow of -LONG_MIN. */
static unsigned long stride_bytes(long stride)
{
    return stride < 0 ? 0UL - (unsigned long)stride : (unsigned long)stride;
}

/* The rows' span, from the lowest byte to the highest: (rows - 1) |stride| + the last row's
 * pixels, where rows counts FLOAT32's planes' rows too. Checked against PTRDIFF_MAX, the most
 * bytes one object can span, so that no address computed from the stride overflows. */
static int check_span(const tc_image *img, const char *side, tc_msg *m)
{
    const unsigned long stride = stride_bytes(img->stride);
    const size_t row = row_bytes(img);
    const int planes = img->format == TC_PIXELS_FLOAT32 ? img->planes : 1;
    const unsigned long long rows = (unsigned long long)planes * (unsigned long long)img->height;
    if (stride < row)
        return tc_fail(m, TC_EINVAL, "%s->stride %ld: a row needs %zu bytes", side, img->stride,
                       row);
    if ((rows - 1) > ((unsigned long long)PTRDIFF_MAX - row) / stride)
        return tc_fail(m, TC_EINVAL,
                       "%s->stride %ld: %llu rows %lu bytes apart would span more than %td "
                       "bytes, the most one object can",
                       side, img->stride, rows, stride, (ptrdiff_t)PTRDIFF_MAX);
    return TC_OK;
}

int tc_image_check(const tc_image *img, int is_src, tc_msg *m)
{
    const char *side = is_src ? "src" : "dst";
    int status;
    if (!img)
        return tc_fail(m, TC_EINVAL, "%s is NULL", side);
    if ((int)img->format < 0 || img->format > TC_PIXELS_F32)
        return tc_fail(m, TC_EINVAL, "%s->format %d: not a tc_pixel_format", side,
                       (int)img->format);
    if (!is_src && img->format == TC_PIXELS_INDEXED8)
        return tc_fail(m, TC_EINVAL, "dst->format: palette images are read, not written");
    if ((status = tc_check_size(img->width, img->height, side, m)) != TC_OK)
        return status;
    if (!img->data)
        return tc_fail(m, TC_EINVAL, "%s->data is NULL", side);
    if (img->format == TC_PIXELS_FLOAT32 && img->planes != 1 && img->planes != 3)
        return tc_fail(m, TC_EINVAL, "%s->planes %d: FLOAT32 images have 1 or 3 planes", side,
                       img->planes);
    if (tc_is_channels(img->format) &&
        (status = tc_channels_check(img, side, m)) != TC_OK)
        return status;
    if ((status = check_span(img, side, m)) != TC_OK)
        return status;
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
    if (tc_is_channels(src->format)) { /* one plane a channel */
        if (planes != src->planes)
            return tc_fail(m, TC_EINVAL, "planes %d: src has %d channels, one plane each",
                           planes, src->planes);
        for (int c = 0; c < planes; c++) {
            tc_plane p = {src->width, src->height,
                          out + (size_t)c * (size_t)src->width * (size_t)src->height};
            tc_channels_to_plane(src, c, &p);
        }
        return TC_OK;
    }
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

/* Keeps plane 0's run as the total (its arrays included) and adds the later ones to it. */
static void accumulate(tc_run_stats *total, tc_run_stats *one, int c)
{
    if (c == 0) {
        *total = *one;
        memset(one, 0, sizeof *one);
    } else {
        tc_run_stats_add(total, one);
        tc_run_stats_free(one);
    }
}

/* ---- The device path -------------------------------------------------------------------- */

/* The two pinned staging chunks, made on first use: page-locked host memory (NVIDIA's pinned
 * memory), through which transfers run at the bus's speed, from ordinary memory at a
 * fraction. */
static void release_pinned(tc_pixel_buffers *pb, cl_command_queue queue)
{
    for (int i = 0; i < 2; i++) {
        if (pb->pinned[i] && pb->pinned_ptr[i])
            clEnqueueUnmapMemObject(queue, pb->pinned[i], pb->pinned_ptr[i], 0, NULL, NULL);
        if (queue)
            clFinish(queue);
        if (pb->pinned[i])
            clReleaseMemObject(pb->pinned[i]);
        pb->pinned[i] = NULL;
        pb->pinned_ptr[i] = NULL;
    }
    pb->pinned_size = 0;
}

/* Chunks of at least `want` bytes (at most TC_STAGING_CHUNK): a small image's run pins only
 * what it moves; a larger one grows them once. */
static int ensure_pinned(const tc_device *d, tc_pixel_buffers *pb, size_t want, tc_msg *m)
{
    int status = TC_OK;
    cl_int err;
    const size_t mib = (size_t)1 << 20;
    want = want > TC_STAGING_CHUNK ? TC_STAGING_CHUNK : (want + mib - 1) / mib * mib;
    if (pb->pinned_size >= want)
        return TC_OK;
    release_pinned(pb, d->queue);
    for (int i = 0; i < 2; i++) {
        pb->pinned[i] = clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                       want, NULL, &err);
        CL_CHECK(status, cleanup, m, err, "clCreateBuffer(pinned staging)");
        pb->pinned_ptr[i] = clEnqueueMapBuffer(d->queue, pb->pinned[i], CL_TRUE,
                                               CL_MAP_READ | CL_MAP_WRITE, 0, want, 0, NULL,
                                               NULL, &err);
        CL_CHECK(status, cleanup, m, err, "clEnqueueMapBuffer(pinned staging)");
    }
    pb->pinned_size = want;
    return TC_OK;
cleanup:
    release_pinned(pb, d->queue);
    return status;
}

void tc_pixel_buffers_release(tc_pixel_buffers *pb, cl_command_queue queue)
{
    release_pinned(pb, queue);
    if (pb->unpack)
        clReleaseKernel(pb->unpack);
    if (pb->pack)
        clReleaseKernel(pb->pack);
    cl_mem mems[] = {pb->bytes_in, pb->bytes_out, pb->palette, pb->plane_src[0],
                     pb->plane_src[1], pb->plane_dst[0], pb->plane_dst[1]};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    memset(pb, 0, sizeof *pb);
}

/* The bytes moved through one chunk: TC_STAGING_CHUNK, or less when the tuning's
 * staging_chunk says so (the tests move small images in many chunks; never more than the
 * chunk). */
static size_t staging_chunk(const tc_pixel_buffers *pb)
{
    const long long n = tc_tuning_now()->staging_chunk;
    return n >= 64 && (unsigned long long)n < pb->pinned_size ? (size_t)n : pb->pinned_size;
}

/* Waits for a finished transfer of the staging, adds its time (tc_stat_ms), releases it. */
static int settle(cl_event *e, double *ms, tc_msg *m)
{
    int status = TC_OK;
    double t;
    if (!*e)
        return TC_OK;
    CL_CALL(status, cleanup, m, clWaitForEvents(1, e));
    if ((status = tc_stat_ms(*e, &t, m)) == TC_OK)
        *ms += t;
cleanup:
    clReleaseEvent(*e);
    *e = NULL;
    return status;
}

/* size bytes of host memory into buf at 0, through the two pinned chunks in turn: the copy of
 * one chunk into pinned memory overlaps the transfer of the one before. *ms: the transfers. */
static int staged_write(const tc_device *d, tc_pixel_buffers *pb, tc_copier **crew, cl_mem buf,
                        const unsigned char *src, size_t size, double *ms, tc_msg *m)
{
    cl_event pending[2] = {NULL, NULL};
    const size_t chunk = staging_chunk(pb);
    int status = TC_OK;
    for (size_t off = 0, k = 0; off < size && status == TC_OK; off += chunk, k++) {
        const int slot = (int)(k & 1);
        const size_t n = size - off < chunk ? size - off : chunk;
        if ((status = settle(&pending[slot], ms, m)) != TC_OK) /* the chunk is free again */
            break;
        tc_copier_memcpy(crew, pb->pinned_ptr[slot], src + off, n);
        CL_CALL(status, cleanup, m,
                clEnqueueWriteBuffer(d->queue, buf, CL_FALSE, off, n, pb->pinned_ptr[slot], 0,
                                     NULL, &pending[slot]));
    }
cleanup:
    for (int i = 0; i < 2; i++) {
        const int s = settle(&pending[i], ms, m);
        status = status != TC_OK ? status : s;
    }
    return status;
}

/* The reverse: size bytes of buf from `offset` to the host, chunk by chunk, each handed to
 * take(arg, position, bytes, n) while the next chunk is in transfer. */
static int staged_read(const tc_device *d, tc_pixel_buffers *pb, cl_mem buf, size_t offset,
                       size_t size, size_t chunk,
                       void (*take)(void *arg, size_t at, const unsigned char *data, size_t n),
                       void *arg, double *ms, tc_msg *m)
{
    cl_event pending[2] = {NULL, NULL};
    int status = TC_OK;
    const size_t chunks = (size + chunk - 1) / chunk;
    for (size_t k = 0; k <= chunks && status == TC_OK; k++) {
        if (k < chunks) { /* start chunk k, then finish chunk k - 1 while it runs */
            const size_t off = k * chunk, n = size - off < chunk ? size - off : chunk;
            CL_CALL(status, cleanup, m,
                    clEnqueueReadBuffer(d->queue, buf, CL_FALSE, offset + off, n,
                                        pb->pinned_ptr[k & 1], 0, NULL, &pending[k & 1]));
        }
        if (k > 0) {
            const size_t off = (k - 1) * chunk, n = size - off < chunk ? size - off : chunk;
            if ((status = settle(&pending[(k - 1) & 1], ms, m)) != TC_OK)
                break;
            take(arg, off, pb->pinned_ptr[(k - 1) & 1], n);
        }
    }
cleanup:
    for (int i = 0; i < 2; i++) {
        const int s = settle(&pending[i], ms, m);
        status = status != TC_OK ? status : s;
    }
    return status;
}

/* Whether [p, p + n) lies in one of the run's page-locked blocks (and the tuning lets it move
 * from there). */
static int in_block(const tc_host_blocks *blocks, const void *p, size_t n)
{
    return blocks && !tc_tuning_now()->host_staged &&
           tc_host_blocks_hold((tc_host_blocks *)blocks, p, n);
}

/* size bytes between buf (from 0) and page-locked host memory at host, in one transfer
 * waited for: up (a write) or down (a read). *ms: the transfer. */
static int direct_transfer(const tc_device *d, cl_mem buf, int up, void *host, size_t size,
                           double *ms, tc_msg *m)
{
    cl_event e = NULL;
    int status = TC_OK;
    if (up)
        CL_CALL(status, cleanup, m,
                clEnqueueWriteBuffer(d->queue, buf, CL_FALSE, 0, size, host, 0, NULL, &e));
    else
        CL_CALL(status, cleanup, m,
                clEnqueueReadBuffer(d->queue, buf, CL_FALSE, 0, size, host, 0, NULL, &e));
    return settle(&e, ms, m);
cleanup:
    return status;
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
    /* tc_image_check has bounded the span by PTRDIFF_MAX. */
    const size_t row = (size_t)img->width * (size_t)pixel_bytes(img->format);
    const long span = (long)(img->height - 1) * (long)stride_bytes(img->stride);
    row_block b;
    b.base = img->stride < 0 ? span : 0;
    b.start = (unsigned char *)img->data - b.base;
    b.size = (size_t)span + row;
    return b;
}

/* The state of one device-path run. */
typedef struct {
    const tc_device *d;
    tc_copier **crew; /* the context's copy crew */
    tc_host_blocks *blocks;   /* the context's page-locked blocks (NULL: none) */
    tc_direct_counts *counts; /* the transfers that skipped the staging */
    const tc_image *src, *dst;
    int planes, pitch;
    cl_mem src_planes[3], dst_planes[3];
    cl_program program;
    cl_event unpack, pack;
    double upload_ms, download_ms; /* the staged transfers' own times */
} image_run;

static int ensure_device_buffers(image_run *r, tc_buffers *b, tc_pixel_buffers *pb, tc_msg *m)
{
    const tc_device *d = r->d;
    const size_t plane_bytes = (size_t)r->pitch * (size_t)r->src->height * sizeof(float);
    const size_t in_bytes = block_of(r->src).size;
    const size_t out_bytes =
        r->dst->format == TC_PIXELS_FLOAT32 ? plane_bytes : block_of(r->dst).size;
    int status;
    /* The rows go up and down as the caller lays them out, padding and all: a stride far
     * beyond the row's pixels can make that block more than one buffer may hold. */
    const size_t blocks[2] = {in_bytes, out_bytes};
    const tc_image *sides[2] = {r->src, r->dst};
    for (int i = 0; i < 2; i++)
        if (blocks[i] > d->info.max_alloc_bytes)
            return tc_fail(m, TC_EINVAL,
                           "%s->stride %ld: the %d rows span %zu bytes, which go to the device "
                           "in one buffer, more than the %llu bytes %s allows "
                           "(CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                           i ? "dst" : "src", sides[i]->stride, sides[i]->height, blocks[i],
                           d->info.max_alloc_bytes, d->info.name);
    /* What this image adds, checked first on a CPU device (host memory: launch.h); the two
     * pinned chunks (at most TC_STAGING_CHUNK each) are left to the check's reserve. */
    unsigned long long more = tc_new_bytes(b->src_bytes, plane_bytes) +
                              tc_new_bytes(b->dst_bytes, plane_bytes) +
                              tc_new_bytes(pb->bytes_in_size, in_bytes) +
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
        (status = ensure_pinned(d, pb, in_bytes > out_bytes ? in_bytes : out_bytes, m)) !=
            TC_OK)
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

/* A kernel of the pixel program, made on the context's first image and kept (its arguments
 * are set for each image: a context serves one thread at a time). */
static int pixel_kernel(const image_run *r, cl_kernel *k, const char *name, tc_msg *m)
{
    cl_int err;
    int status = TC_OK;
    if (*k)
        return TC_OK;
    *k = clCreateKernel(r->program, name, &err);
    CL_CHECK(status, cleanup, m, err, name);
    return TC_OK;
cleanup:
    *k = NULL;
    return status;
}

/* Bytes up, planes formed: unpack_pixels over the whole padded plane. */
static int unpack(image_run *r, tc_pixel_buffers *pb, tc_msg *m)
{
    const tc_image *src = r->src;
    const row_block in = block_of(src);
    const cl_long base = in.base, stride = src->stride;
    unsigned char palette[3 * 256] = {0};
    const int format = (int)src->format;
    int status;
    if ((status = check_indices(src, m)) != TC_OK ||
        (status = pixel_kernel(r, &pb->unpack, "unpack_pixels", m)) != TC_OK)
        return status;
    if (in_block(r->blocks, in.start, in.size)) { /* as the rows lie, padding and all */
        if ((status = direct_transfer(r->d, pb->bytes_in, 1, in.start, in.size, &r->upload_ms,
                                      m)) != TC_OK)
            return status;
        r->counts->up++;
    } else if ((status = staged_write(r->d, pb, r->crew, pb->bytes_in, in.start, in.size,
                                      &r->upload_ms, m)) != TC_OK) {
        return status;
    }
    if (src->format == TC_PIXELS_INDEXED8) {
        memcpy(palette, src->palette, 3 * (size_t)src->palette_size);
        /* Blocking: the palette lives on this function's stack. The other formats do not
         * read it (the kernel's argument is the buffer as it was). */
        CL_CALL(status, cleanup, m,
                clEnqueueWriteBuffer(r->d->queue, pb->palette, CL_TRUE, 0, sizeof palette,
                                     palette, 0, NULL, NULL));
    }
    cl_kernel k = pb->unpack;
    const tc_kernel_arg args[] = {
        TC_KARG(pb->bytes_in),     TC_KARG(base),             TC_KARG(stride),
        TC_KARG(format),           TC_KARG(src->width),       TC_KARG(src->height),
        TC_KARG(pb->palette),      TC_KARG(r->planes),        TC_KARG(r->pitch),
        TC_KARG(r->src_planes[0]), TC_KARG(r->src_planes[1]), TC_KARG(r->src_planes[2]),
        TC_KARG(r->dst_planes[0]), TC_KARG(r->dst_planes[1]), TC_KARG(r->dst_planes[2])};
    if ((status = tc_set_args(k, "unpack_pixels", args, (int)(sizeof args / sizeof args[0]),
                              m)) != TC_OK)
        goto cleanup;
    const size_t global[2] = {(size_t)r->pitch, (size_t)src->height};
    status = tc_enqueue(r->d->queue, k, global, NULL, &r->unpack, m);
cleanup:
    return status;
}

/* Bytes of the output block arriving from the device: into the caller's memory. */
typedef struct {
    unsigned char *block;
    tc_copier **crew;
} block_out;

static void take_bytes(void *arg, size_t at, const unsigned char *data, size_t n)
{
    const block_out *b = arg;
    tc_copier_memcpy(b->crew, b->block + at, data, n);
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
    int status;
    if ((status = pixel_kernel(r, &pb->pack, "pack_pixels", m)) != TC_OK)
        return status;
    cl_kernel k = pb->pack;
    block_out block = {out.start, r->crew};
    const tc_kernel_arg args[] = {
        TC_KARG(r->dst_planes[0]), TC_KARG(r->dst_planes[1]), TC_KARG(r->dst_planes[2]),
        TC_KARG(r->pitch),         TC_KARG(dst->width),       TC_KARG(dst->height),
        TC_KARG(r->planes),        TC_KARG(format),           TC_KARG(pb->bytes_out),
        TC_KARG(base),             TC_KARG(stride),           TC_KARG(gap),
        TC_KARG(roi->dst_left),    TC_KARG(roi->dst_top),     TC_KARG(roi->width),
        TC_KARG(roi->height),      TC_KARG(scale),            TC_KARG(offset)};
    if ((status = tc_set_args(k, "pack_pixels", args, (int)(sizeof args / sizeof args[0]), m)) !=
        TC_OK)
        goto cleanup;
    const size_t global[2] = {(size_t)dst->width, (size_t)dst->height};
    if ((status = tc_enqueue(r->d->queue, k, global, NULL, &r->pack, m)) != TC_OK)
        goto cleanup;
    if (in_block(r->blocks, out.start, out.size)) {
        status = direct_transfer(r->d, pb->bytes_out, 0, out.start, out.size, &r->download_ms,
                                 m);
        r->counts->down += status == TC_OK;
    } else {
        status = staged_read(r->d, pb, pb->bytes_out, 0, out.size, staging_chunk(pb),
                             take_bytes, &block, &r->download_ms, m);
    }
cleanup:
    return status;
}

/* The filtered float planes down through pinned memory, whole rows a chunk, into dst's rows. */
typedef struct {
    const tc_image *dst;
    int plane, pitch;
    tc_copier **crew;
    int first, rows, per;                /* the chunk's rows, and each task's */
    const unsigned char *data;
} plane_rows;

/* Task i of a chunk's rows: rows first + i * per .. into dst's plane. */
static int rows_task(void *arg, int i, tc_msg *m)
{
    const plane_rows *p = arg;
    const size_t row_bytes = (size_t)p->pitch * sizeof(float);
    const int from = p->first + i * p->per;
    const int to = from + p->per < p->first + p->rows ? from + p->per : p->first + p->rows;
    (void)m;
    for (int y = from; y < to; y++)
        memcpy(row_of(p->dst, y) + (long)p->plane * p->dst->height * p->dst->stride,
               p->data + (size_t)(y - p->first) * row_bytes,
               (size_t)p->dst->width * sizeof(float));
    return TC_OK;
}

static void take_rows(void *arg, size_t at, const unsigned char *data, size_t n)
{
    plane_rows *p = arg;
    const size_t row_bytes = (size_t)p->pitch * sizeof(float);
    const int tasks = tc_copier_width();
    p->first = (int)(at / row_bytes);
    p->rows = (int)(n / row_bytes);
    p->per = (p->rows + tasks - 1) / tasks;
    p->data = data;
    (void)tc_copier_run(p->crew, (p->rows + p->per - 1) / p->per, rows_task, p, NULL);
}

static int download_planes(image_run *r, tc_pixel_buffers *pb, tc_msg *m)
{
    const size_t row_bytes = (size_t)r->pitch * sizeof(float);
    const size_t rows = staging_chunk(pb) / row_bytes, rows_per_chunk = rows ? rows : 1;
    int status = TC_OK;
    for (int c = 0; c < r->planes && status == TC_OK; c++) {
        plane_rows p = {r->dst, c, r->pitch, r->crew, 0, 0, 1, NULL};
        status = staged_read(r->d, pb, r->dst_planes[c], 0, row_bytes * (size_t)r->dst->height,
                             rows_per_chunk * row_bytes, take_rows, &p, &r->download_ms, m);
    }
    return status;
}

/* The transfer and conversion times of a finished run, from its events. */
static int event_times(const image_run *r, tc_run_stats *stats, double *convert_ms, tc_msg *m)
{
    double ms;
    int status;
    stats->h2d_ms += r->upload_ms;
    stats->d2h_ms += r->download_ms;
    *convert_ms = 0.0;
    const cl_event conversions[2] = {r->unpack, r->pack};
    for (int i = 0; i < 2; i++)
        if (conversions[i]) {
            if ((status = tc_stat_ms(conversions[i], &ms, m)) != TC_OK)
                return status;
            *convert_ms += ms;
        }
    return TC_OK;
}

static int run_on_device(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                         tc_pixel_buffers *pb, tc_copier **crew, tc_host_blocks *blocks,
                         tc_direct_counts *counts, const tc_job *job, const tc_image *src,
                         const tc_image *dst, double scale, double offset, tc_run_stats *stats,
                         double *convert_ms, tc_msg *m)
{
    image_run r;
    double build_ms = 0.0;
    int status;
    memset(&r, 0, sizeof r);
    memset(stats, 0, sizeof *stats);
    r.d = d;
    r.crew = crew;
    r.blocks = counts ? blocks : NULL;
    r.counts = counts;
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
    cl_event events[] = {r.unpack, r.pack};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if (events[i])
            clReleaseEvent(events[i]);
    return status;
}

int tc_run_image(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                 tc_pixel_buffers *pb, tc_copier **crew, tc_host_blocks *blocks,
                 tc_direct_counts *counts, const tc_job *job, const tc_image *src,
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
        static const tc_host_conversions pixels = {host_unpack, host_pack};
        return tc_run_on_host(d, programs, buffers, job, &pixels, src, dst, *planes, scale,
                              offset, stats, m);
    }
    return run_on_device(d, programs, buffers, pb, crew, blocks, counts, job, src, dst, scale,
                         offset, stats, convert_ms, m);
}

/* ---- What the pipeline needs (stream.h) ------------------------------------------------- */

int tc_pixels_device_converts(const tc_device *d, const tc_image *src, int convert_on_host)
{
    /* Float planes need no conversion; without double precision the device cannot make the
     * host's values. Both go the host's way. */
    return !convert_on_host && src->format != TC_PIXELS_FLOAT32 && d->info.has_double;
}

int tc_pixels_planes(const tc_image *dst)
{
    return planes_of(dst);
}

void tc_pixels_raw(const tc_image *img, tc_image *raw)
{
    if (img->format == TC_PIXELS_FLOAT32) /* plane c's row y is row c * height + y */
        *raw = (tc_image){TC_PIXELS_F32, img->width, img->planes * img->height, 1, img->data,
                          img->stride, NULL, 0};
    else
        *raw = (tc_image){TC_PIXELS_U8, img->width, img->height, pixel_bytes(img->format),
                          img->data, img->stride, NULL, 0};
}

/* ---- The host conversions, for tc_filter_image in bands (bands.c) ------------------------ */

void tc_pixels_unpack(const tc_image *src, int c, int planes, tc_plane *p)
{
    host_unpack(src, c, planes, p);
}

void tc_pixels_pack(const tc_plane *planes, int count, const tc_roi *roi, double scale,
                    double offset, const tc_image *dst)
{
    host_pack(planes, count, roi, scale, offset, dst);
}

int tc_pixels_check_indices(const tc_image *src, tc_msg *m)
{
    return check_indices(src, m);
}
