/*
 * kernel_args.h - the low-level helpers every launcher shares: a kernel's arguments set in
 * order from a list, and the row pitch of a plane on the device. Below launch.c and
 * storage.c, which both set arguments and lay planes out with this pitch.
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

#endif
