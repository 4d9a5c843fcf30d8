/*
 * plan.h - the memory a run will need, worked out from the image's size and samples (the file's
 * header, of any format, or -g) before anything is allocated, and checked against every limit:
 * the fixed ones (the device's largest buffer and its memory) refuse the run with exit 2, since
 * no retry can help; the host's memory as it is now refuses it with exit 1 (a run-time failure,
 * docs/manual.md's EXIT STATUS). On a CPU device (PoCL) the device's buffers are host memory
 * and are counted as such.
 */
#ifndef TILEDCONV_PLAN_H
#define TILEDCONV_PLAN_H

#include "tool_visible.h" /* src/io */

#include <stddef.h>

#include "tiledconv_internal.h"
#include "io_limits.h"
#include "file_options.h"
#include "source.h"
#include "tiledconv.h"

/* What the OpenCL platform itself may still allocate during the run (a cold kernel build in
 * PoCL's LLVM took 128 MB of address space and 150 MB resident), kept free beyond the run's
 * own bytes. */
#define PLAN_PLATFORM_RESERVE (192ULL << 20)

/* Under --max-memory, kept beside what the process holds and the run's planned bytes: the
 * platform's growth once open and its programs built (its threads, queues and per-run
 * allocations: PoCL's took 18 MB) and the plans' slack. The compiler's own memory while it
 * builds a program on a cold cache is not in it (docs/safety.md). */
#define PLAN_RUN_MARGIN (64ULL << 20)

/* What a --max-memory budget has spent before a run's own bytes: the platform's reserve, or,
 * where more, the process's resident bytes now (the libraries, the platform once open, what
 * its builds kept: PoCL's compiler keeps 100-200 MB after a cold build, what the allocator
 * keeps) and PLAN_RUN_MARGIN. The host's room (MemAvailable) needs only the reserve: what the
 * process holds is not available already. */
unsigned long long plan_spent(void);

/* Of `room` bytes a --max-memory run has planned for images, what is left beside what the
 * process holds now and the platform's reserve (plan_spent): the smaller. */
size_t plan_room_now(const tc_options *o, size_t room);

/* --max-memory below what the process holds before any device and PLAN_RUN_MARGIN: 2 with
 * one line in err naming the least budget, before the platform opens (whose opening alone
 * would pass the budget: PoCL's 70-80 MB); else 0. */
TC_TOOL int plan_check_budget(const tc_options *o, char *err, size_t err_size);

typedef struct {
    unsigned long long plane;        /* one device plane, rows padded to the device pitch */
    unsigned long long device;       /* device bytes at the peak */
    unsigned long long host_own;     /* host bytes of the tool's planes and buffers at the peak */
    unsigned long long host_device;  /* of the host's bytes, the CPU device's buffers */
    unsigned long long max_memory;   /* --max-memory, or 0: the budget plan_check applies */
} run_plan;

/* 1 when decoded samples of this kind become the first plane in place (tc_plane_take_rgb): 8-bit
 * RGB of full scale, which every BMP decodes to (and colour PNGs and JPEGs). */
TC_TOOL int plan_in_place(int channels, int depth, int maxval);

/* The host bytes of reading an input (in, open on its header) up to its planes (plane_set bytes
 * of them): the input's bytes and the decoded samples while it is decoded; then the planes,
 * made in the samples' memory (plan_in_place) or beside them. */
TC_TOOL unsigned long long plan_load(const source_reader *in, unsigned long long plane_set);

/* The plan of a run of these options on a width x height image with this ROI on this device.
 * in: the file, open on its header (NULL for -g, whose planes are made directly); depth: the
 * output image's bits per sample (outputs_depth). */
TC_TOOL void plan_make(const tc_options *o, int width, int height, const tc_roi *roi,
               const source_reader *in, int depth, const tc_device_info *dev, run_plan *p);

/* The plan against the device's limits and the host's memory now, or --max-memory where that
 * is less. `what` names the image in messages ("-g 65536x16384", or the file). Returns 0; or 2
 * (a fixed limit, or --max-memory) or 1 (host memory), with one line in err saying how much is
 * needed and which limit it passes. */
TC_TOOL int plan_check(const run_plan *p, const tc_device_info *dev, const char *what, char *err,
               size_t err_size);

/* The decoders' limits from the options (--max-pixels, --allow-high-ratio), with those flags
 * named for the messages: the same for one image and for every image of a batch. */
TC_TOOL void plan_io_limits(const tc_options *o, io_limits *lim);

/* `bytes` of host memory for `what` (an image of a batch) against the host's memory now, with
 * the platform's reserve: 0, or 1 with one line in err saying how much and which limit. */
TC_TOOL int plan_check_host(const char *what, unsigned long long bytes, char *err, size_t err_size);

#endif
