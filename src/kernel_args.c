/* kernel_args.c - setting a kernel's arguments from a list; the launch; the device's row
 * pitch. */
#include "kernel_args.h"

#include <limits.h>
#include <stdio.h>

#include "config.h"

int tc_set_args(cl_kernel kernel, const char *name, const tc_kernel_arg *args, int count,
                tc_msg *m)
{
    for (int i = 0; i < count; i++) {
        cl_int err = clSetKernelArg(kernel, (cl_uint)i, args[i].size, args[i].value);
        if (err != CL_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "clSetKernelArg(%s argument %d)", name, i);
            return cl_fail(m, err, what);
        }
    }
    return TC_OK;
}

int tc_enqueue_range(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                     const size_t *global, const size_t *local, cl_event *done, tc_msg *m)
{
    const cl_int err =
        clEnqueueNDRangeKernel(queue, kernel, dims, NULL, global, local, 0, NULL, done);
    if (err == CL_SUCCESS)
        return TC_OK;
    char name[64] = "", what[96];
    if (clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL) != CL_SUCCESS)
        snprintf(name, sizeof name, "a kernel");
    snprintf(what, sizeof what, "clEnqueueNDRangeKernel(%s)", name);
    return cl_fail(m, err, what);
}

int tc_device_pitch(int width)
{
    /* In long, so that widths near INT_MAX do not overflow; callers check the image against
     * TC_MAX_PIXELS first, and a width whose pitch is no int gets INT_MAX's multiple below. */
    const long pitch = ((long)width + TC_ROW_ALIGN - 1) / TC_ROW_ALIGN * TC_ROW_ALIGN;
    return pitch <= INT_MAX ? (int)pitch : INT_MAX / TC_ROW_ALIGN * TC_ROW_ALIGN;
}
