/* kernel_args.c - setting a kernel's arguments from a list; the device's row pitch. */
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
            snprintf(what, sizeof what, "clSetKernelArg(%s, argument %d)", name, i);
            return cl_fail(m, err, what);
        }
    }
    return TC_OK;
}

int tc_device_pitch(int width)
{
    /* In long, so that widths near INT_MAX do not overflow; callers check the image against
     * TC_MAX_PIXELS first, and a width whose pitch is no int gets INT_MAX's multiple below. */
    const long pitch = ((long)width + TC_ROW_ALIGN - 1) / TC_ROW_ALIGN * TC_ROW_ALIGN;
    return pitch <= INT_MAX ? (int)pitch : INT_MAX / TC_ROW_ALIGN * TC_ROW_ALIGN;
}
