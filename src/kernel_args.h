/*
 * kernel_args.h - the low-level helpers every launcher shares: a kernel's arguments set in
 * order from a list, the launch itself, and the row pitch of a plane on the device. Below
 * every file that runs a kernel.
 */
#ifndef TILEDCONV_KERNEL_ARGS_H
#define TILEDCONV_KERNEL_ARGS_H

#include <stddef.h>

#include "status.h"

/* Kernel arguments as (size, address) pairs, set in order by tc_set_args; a failure names
 * the kernel and the argument. */
typedef struct {
    size_t size;
    const void *value;
} tc_kernel_arg;
#define TC_KARG(v) {sizeof(v), &(v)}

int tc_set_args(cl_kernel kernel, const char *name, const tc_kernel_arg *args, int count,
                tc_msg *m);

/* Enqueues kernel over a range of dims dimensions on queue (local NULL: the driver's choice
 * of group), its event in *done when done is not NULL. The library's one
 * clEnqueueNDRangeKernel: every launch of every kind fails the same way, naming the kernel's
 * function. */
int tc_enqueue_range(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                     const size_t *global, const size_t *local, cl_event *done, tc_msg *m);

/* The same over a 2-D range (every kernel but the pyramid's 3-D one). */
static inline int tc_enqueue(cl_command_queue queue, cl_kernel kernel, const size_t global[2],
                             const size_t *local, cl_event *done, tc_msg *m)
{
    return tc_enqueue_range(queue, kernel, 2, global, local, done, m);
}

#endif
