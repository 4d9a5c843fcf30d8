/*
 * hostmem.h - how much memory this process can still get now, so that a run can be refused in
 * one line before it allocates rather than die inside an allocator. On the CPU OpenCL device
 * (PoCL) the device's buffers are host memory too, and PoCL aborts (SIGABRT) when it cannot
 * back one, so the library asks before it makes them.
 */
#ifndef TILEDCONV_HOSTMEM_H
#define TILEDCONV_HOSTMEM_H

#include "tiledconv_internal.h"

#endif
