/* host_run.c - one image filtered the host's way (host_run.h). */
#include "host_run.h"

#include <string.h>

#include "channels.h"
#include "status.h"

int tc_run_on_host(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                   const tc_job *job, const tc_host_conversions *conv, const tc_image *src,
                   const tc_image *dst, int planes, double scale, double offset,
                   tc_run_stats *stats, tc_msg *m)
{
    tc_plane in = {0, 0, NULL}, out[TC_MAX_CHANNELS];
    int status = TC_OK;
    memset(out, 0, sizeof out);
    memset(stats, 0, sizeof *stats);
    if (planes < 1 || planes > TC_MAX_CHANNELS)
        return tc_fail(m, TC_EINVAL, "%d planes: an image has 1 to %d", planes,
                       TC_MAX_CHANNELS);
    if (tc_plane_alloc(&in, src->width, src->height))
        status = tc_fail(m, TC_ENOMEM, "out of host memory for a %d x %d plane", src->width,
                         src->height);
    for (int c = 0; status == TC_OK && c < planes; c++)
        if (tc_plane_alloc(&out[c], src->width, src->height))
            status = tc_fail(m, TC_ENOMEM, "out of host memory for a %d x %d plane", src->width,
                             src->height);
    for (int c = 0; status == TC_OK && c < planes; c++) {
        tc_run_stats one;
        conv->to_plane(src, c, planes, &in);
        if ((status = tc_run(d, programs, buffers, job, &in, &out[c], 0, 1, &one, m)) != TC_OK)
            break;
        if (c == 0) {
            *stats = one;
        } else {
            tc_run_stats_add(stats, &one);
            tc_run_stats_free(&one);
        }
    }
    if (status == TC_OK)
        conv->from_planes(out, planes, &job->roi, scale, offset, dst);
    else
        tc_run_stats_free(stats);
    tc_plane_free(&in);
    for (int c = 0; c < TC_MAX_CHANNELS; c++)
        tc_plane_free(&out[c]);
    return status;
}
