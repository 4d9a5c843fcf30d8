/*
 * device.h - the OpenCL device layer: finding a device from tc_open's request string, opening
 * it with a context and one profiling queue, listing every device, and the limits the
 * launchers check before a launch.
 */
#ifndef TILEDCONV_DEVICE_H
#define TILEDCONV_DEVICE_H

#include <CL/cl.h>

#include "status.h"
#include "tiledconv.h"

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* in order, with profiling */
    tc_device_info info;    /* names, indices, memory limits */
    size_t max_group_size;
    size_t max_item_sizes[3];
} tc_device;

/* Opens the device that `request` names (the grammar of tc_open in tiledconv.h). TC_OK;
 * TC_EINVAL when the request is malformed or names nothing that exists; TC_EDEVICE or
 * TC_ENOMEM when opening failed. On failure *d holds nothing to release. */
int tc_device_open(tc_device *d, const char *request, tc_msg *m);
void tc_device_close(tc_device *d);

/* tc_list_devices of tiledconv.h. */
int tc_device_list(tc_device_info *list, int capacity, int *count, tc_msg *m);

/* Kernel time of a finished event from its profiling counters, in ms. The nanosecond
 * timestamps stay cl_ulong until this one division. TC_OK or the failure. */
int tc_event_ms(cl_event event, double *ms, tc_msg *m);

/* tc_event_ms and tc_event_span_ms for a command that has finished (its wait succeeded) and
 * whose time is a statistic of the run, not its result: where the driver kept no profiling
 * counters for it (CL_PROFILING_INFO_NOT_AVAILABLE, which NVIDIA's driver was seen to give
 * now and then for a transfer or a kernel while other threads made and freed page-locked
 * buffers), *ms is 0 and the call succeeds, since the command's work is done. Any other
 * failure is one. A timed run's kernels (tc_filter_timed) use the strict ones. */
int tc_stat_ms(cl_event event, double *ms, tc_msg *m);
int tc_stat_span_ms(cl_event first, cl_event last, double *ms, tc_msg *m);

/* ms from the start of one finished event to the end of another (0 when the end comes
 * first). TC_OK or the failure, *ms untouched then. */
int tc_event_span_ms(cl_event first, cl_event last, double *ms, tc_msg *m);

/* Releases *e, if any, and clears it. */
void tc_event_release(cl_event *e);

/* Releases the events of an array of count (calloc'd: a launch not made left NULL), then frees
 * the array; NULL does nothing. */
void tc_events_free(cl_event *events, size_t count);

#endif
