/*
 * buffers.c - the device buffers a context keeps between runs, and the planes' trips to the
 * device and back (buffers.h).
 */
#include "buffers.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hostmem.h"

int tc_check_fits(const tc_device *d, int width, int height, tc_msg *m)
{
    const unsigned long long bytes = (unsigned long long)tc_device_pitch(width) *
                                     (unsigned long long)height * sizeof(float);
    if (bytes > d->info.max_alloc_bytes)
        return tc_fail(m, TC_EINVAL,
                       "a %d x %d plane needs %.1f MB in one buffer, more than the %.1f MB %s "
                       "allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                       width, height, tc_mb(bytes), tc_mb(d->info.max_alloc_bytes),
                       d->info.name);
    if (3 * bytes > d->info.global_mem_bytes)
        return tc_fail(m, TC_EINVAL,
                       "a %d x %d image needs %.1f MB of device memory (input, output and "
                       "temporary planes), more than the %.1f MB %s has "
                       "(CL_DEVICE_GLOBAL_MEM_SIZE)",
                       width, height, tc_mb(3 * bytes), tc_mb(d->info.global_mem_bytes),
                       d->info.name);
    return TC_OK;
}

/* On a CPU device the buffers are host memory, and PoCL aborts the process (an assertion, not
 * an error code) when it cannot back one at first use: so the host's room is checked before
 * `bytes` more are asked for. A reserve is kept for what the platform allocates itself. */
#define CPU_DEVICE_RESERVE (64ULL << 20)
int tc_check_host_room(const tc_device *d, unsigned long long bytes, const char *what,
                       tc_msg *m)
{
    tc_host_room room;
    if (!d->info.is_cpu || bytes == 0)
        return TC_OK;
    tc_host_room_now(&room);
    if (bytes + CPU_DEVICE_RESERVE <= room.bytes)
        return TC_OK;
    return tc_fail(m, TC_ENOMEM,
                   "%s on the CPU device need %.1f MB more of host memory, but %.1f MB is "
                   "available (%s)",
                   what, tc_mb(bytes), tc_mb(room.bytes), room.limit);
}

int tc_ensure_buffer(const tc_device *d, cl_mem *mem, size_t *capacity, size_t bytes,
                     cl_mem_flags flags, const char *what, tc_msg *m)
{
    cl_int err;
    if (*mem && *capacity >= bytes)
        return TC_OK;
    if (*mem)
        clReleaseMemObject(*mem);
    *capacity = 0;
    *mem = clCreateBuffer(d->context, flags, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        *mem = NULL;
        return cl_fail(m, err, what);
    }
    *capacity = bytes;
    return TC_OK;
}

/* A buffer whose size never changes, made on first use. */
static int ensure_fixed(const tc_device *d, cl_mem *mem, size_t bytes, cl_mem_flags flags,
                        const char *what, tc_msg *m)
{
    size_t capacity = *mem ? bytes : 0;
    return tc_ensure_buffer(d, mem, &capacity, bytes, flags, what, m);
}

int tc_buffers_ensure(const tc_device *d, tc_buffers *b, const tc_job *job, tc_msg *m)
{
    const size_t coeff_bytes = TC_MAX_TAPS * sizeof(float);
    const size_t tmp_bytes = (size_t)job->roi.width * (size_t)job->roi.height * sizeof(float);
    int status;
    if (job->algorithm == TC_TWOPASS &&
        (status = tc_check_host_room(d, tc_new_bytes(b->tmp_bytes, tmp_bytes),
                                     "the two-pass temporary", m)) != TC_OK)
        return status;
    if ((status = ensure_fixed(d, &b->kx, coeff_bytes, CL_MEM_READ_ONLY, "clCreateBuffer(kx)",
                               m)) != TC_OK ||
        (status = ensure_fixed(d, &b->ky, coeff_bytes, CL_MEM_READ_ONLY, "clCreateBuffer(ky)",
                               m)) != TC_OK ||
        (status = ensure_fixed(d, &b->mask, TC_MAX_MASK_TAPS * sizeof(float),
                               CL_MEM_READ_ONLY, "clCreateBuffer(mask)", m)) != TC_OK ||
        (status = ensure_fixed(d, &b->counts, 4 * sizeof(cl_int), CL_MEM_READ_WRITE,
                               "clCreateBuffer(class counts)", m)) != TC_OK)
        return status;
    if (job->algorithm == TC_TWOPASS)
        return tc_ensure_buffer(d, &b->tmp, &b->tmp_bytes, tmp_bytes, CL_MEM_READ_WRITE,
                             "clCreateBuffer(two-pass temporary)", m);
    return TC_OK;
}

int tc_buffers_ensure_split(const tc_device *d, tc_buffers *b, const tc_job *job, int pitch,
                            tc_msg *m)
{
    const size_t bytes = (size_t)pitch * (size_t)job->roi.height * sizeof(float);
    int status;
    if ((status = tc_check_host_room(d, tc_new_bytes(b->tmp_bytes, bytes),
                                     "the split variant's plane between its passes", m)) !=
            TC_OK ||
        (status = tc_ensure_buffer(d, &b->tmp, &b->tmp_bytes, bytes, CL_MEM_READ_WRITE,
                                   "clCreateBuffer(the split variant's plane)", m)) != TC_OK)
        return status;
    if (!b->unit) {
        cl_float one = 1.0f;
        cl_int err;
        b->unit = clCreateBuffer(d->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 sizeof one, &one, &err);
        if (err != CL_SUCCESS) {
            b->unit = NULL;
            return cl_fail(m, err, "clCreateBuffer(the unit coefficient)");
        }
    }
    return TC_OK;
}

void tc_buffers_release(tc_buffers *b)
{
    cl_mem *mems[] = {&b->unit, &b->counts, &b->mask, &b->tmp, &b->ky, &b->kx, &b->dst, &b->src};
    tc_image_buffers_release(&b->images);
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    free(b->staging);
    memset(b, 0, sizeof *b);
}

/* Padded rows go through a host copy rather than clEnqueueWriteBufferRect: the same bytes, and
 * oclgrind, which checks the kernels for reads of uninitialised memory, does not count a
 * rectangle write as initialising. */
float *tc_staging(float **staging, size_t *staging_bytes, size_t bytes)
{
    if (*staging_bytes < bytes) {
        free(*staging);
        *staging_bytes = 0;
        if (!(*staging = malloc(bytes)))
            return NULL;
        *staging_bytes = bytes;
    }
    memset(*staging, 0, bytes);
    return *staging;
}

int tc_plane_upload(cl_command_queue queue, tc_buffers *b, const tc_plane *in, int pitch,
                    size_t plane_bytes, cl_event *event, tc_msg *m)
{
    int status = TC_OK;
    const float *host = in->px;
    if (pitch != in->width) {
        float *staging = tc_staging(&b->staging, &b->staging_bytes, plane_bytes);
        if (!staging)
            return tc_fail(m, TC_ENOMEM, "out of host memory for the padded plane (%zu bytes)",
                           plane_bytes);
        for (int y = 0; y < in->height; y++)
            memcpy(staging + (size_t)y * pitch, in->px + (size_t)y * in->width,
                   (size_t)in->width * sizeof(float));
        host = staging;
    }
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(queue, b->src, CL_FALSE, 0, plane_bytes, host, 0, NULL, event));
    CL_CALL(status, cleanup, m,
            clEnqueueCopyBuffer(queue, b->src, b->dst, 0, 0, plane_bytes, 0, NULL, NULL));
cleanup:
    return status;
}

int tc_plane_read(cl_command_queue queue, cl_mem plane, size_t bytes, float *staging, int pitch,
                  float *out, int width, int height, double *ms, tc_msg *m)
{
    cl_event event = NULL;
    double t = 0.0;
    int status = TC_OK;
    CL_CALL(status, cleanup, m,
            clEnqueueReadBuffer(queue, plane, CL_TRUE, 0, bytes,
                                staging ? (void *)staging : (void *)out, 0, NULL, &event));
    if (staging)
        for (int y = 0; y < height; y++)
            memcpy(out + (size_t)y * width, staging + (size_t)y * pitch,
                   (size_t)width * sizeof(float));
    if ((status = tc_event_ms(event, &t, m)) == TC_OK)
        *ms += t;
cleanup:
    if (event)
        clReleaseEvent(event);
    return status;
}

int tc_plane_download(cl_command_queue queue, tc_buffers *b, tc_plane *out, int pitch,
                      size_t plane_bytes, cl_event *event, tc_msg *m)
{
    int status = TC_OK;
    const int padded = pitch != out->width;
    CL_CALL(status, cleanup, m,
            clEnqueueReadBuffer(queue, b->dst, CL_TRUE, 0, plane_bytes,
                                padded ? (void *)b->staging : (void *)out->px, 0, NULL, event));
    if (padded)
        for (int y = 0; y < out->height; y++)
            memcpy(out->px + (size_t)y * out->width, b->staging + (size_t)y * pitch,
                   (size_t)out->width * sizeof(float));
cleanup:
    return status;
}
