/*
 * strips.h - an image too large for the run's memory budget (--max-memory, or the host's
 * memory available now), or for the device, filtered in strips: bands of rows read, decoded,
 * filtered, encoded and written one after another, the rows a band's filter reaches above and
 * below it read with it (src/bands.h says how a band is cut so that every value is the whole
 * run's). The output files are the whole-image run's, byte for byte.
 *
 * What the budget counts: the input's bytes the tool holds (a mapped file counted whole, as its
 * pages stay mapped; standard input read whole), the row decoders' and the encoder's state (a
 * progressive JPEG's coefficients, an interlaced PNG or an RLE BMP decoded whole: rows.h), the
 * band's sample rows and float planes, the CPU device's buffers (host memory), the launcher's
 * padded copy, and PLAN_PLATFORM_RESERVE for the OpenCL platform itself. A GPU's own memory is
 * a second budget (its largest buffer, its global memory), which the bands also fit.
 */
#ifndef TILEDCONV_STRIPS_H
#define TILEDCONV_STRIPS_H

#include "tool_visible.h" /* src/io */

#include <stddef.h>

#include "file_options.h"
#include "plan.h"
#include "source.h"
#include "tiledconv.h"

/* The run's budget: --max-memory, or the host's memory available now (hostmem.h). *given says
 * which; *limit names it for messages ("--max-memory", "MemAvailable", ...). */
unsigned long long strips_budget(const tc_options *o, int *given, const char **limit);

/* Why these options cannot run in strips (a study of whole images: -a all, -g, --gradient,
 * --class-map, and for one image (study 1) -t, -i, --csv and --json's timed records; an image
 * to standard output, which a failure half-way would leave half-written; bilinear, whose
 * weights depend on a row's place), or NULL. */
TC_TOOL const char *strips_refusal(const tc_options *o, int study);

/* Whether an image whose whole run plans as `whole` (plan.h) goes in strips: it passes the
 * device's largest buffer or memory, or its host bytes and the platform's reserve pass the
 * budget. dev NULL: the device is not known yet (a batch's reader), and its buffers are
 * counted as host memory as a CPU device's are. */
TC_TOOL int strips_needed(const tc_options *o, const run_plan *whole, const tc_device_info *dev);

/* The device's bytes of an image (open on its header) as a CPU device holds them: input and
 * output planes, rows padded, and the 8-bit pixels each way. */
unsigned long long strips_device_bytes(const tc_options *o, const source_reader *in);

/* A batch's image: its host bytes whole (what the batch counts, job_bytes) and the device's
 * planes counted as host memory, against the budget: under --max-memory the batch's room for
 * images (room: its budget less what the process and the platform hold), else the host's
 * memory now less the platform's reserve. 1 when it goes in strips. */
int strips_wanted(const tc_options *o, const source_reader *in, unsigned long long host_bytes,
                  unsigned long long room);

/* What a run in strips found, for the reports and the records. */
typedef struct {
    int width, height;
    int bands, rows;         /* how the target ROI was cut */
    unsigned long long budget, need; /* the budget and what the plan counted */
    double kernel_ms, upload_ms, download_ms, build_ms;
    int checked;             /* -e ran */
    long mismatches;
    double max_error, tolerance;
    char sha256[65];         /* -e: the 8-bit pixels' digest */
    int depth;               /* the image's bits per sample */
    int planes;              /* 1, or 3 (R, G, B) */
    tc_roi roi;              /* the ROIs resolved */
    long plane_mismatches[3]; /* -e, plane by plane */
    double plane_max_error[3], plane_tolerance[3];
} strips_result;

/* Where a run in strips writes: the image (path NULL: none) in its format and bits per sample
 * (a batch's job: its own, which keeps its input's; depth 0: what the options say for a deep
 * input), and the float planes (raw NULL: none); and, in a batch under --max-memory, the
 * bytes its bands may take (room: the batch's budget for images, what the process and the
 * platform hold left out; 0: the budget less the platform's reserve). */
typedef struct {
    const char *path;
    io_format format;
    int depth;
    const char *raw;
    unsigned long long room;
} strips_output;

/* One image, open on its header in `in` (consumed: closed before return), through ctx on its
 * device, written as `out` says, both files staged and put in place only when both are
 * complete; `name` names the input in messages. batch: 1 leaves the folder's sync to the
 * caller (it syncs it once). Returns 0; 2 for the input or the budget (one band does not fit a
 * --max-memory), 1 for a run-time failure or -e's mismatches; the message in err ("NAME:
 * reason"), no file left behind. */
int strips_run(const tc_options *o, tc_context *ctx, const tc_device_info *dev,
               source_reader *in, const char *name, const strips_output *out, int batch,
               strips_result *res, char *err, size_t err_size);

/* strips_run for one image alone (not a batch's), with -e's first mismatches written to report
 * (NULL: none) as they are found. */
TC_TOOL int strips_run_reported(const tc_options *o, tc_context *ctx, const tc_device_info *dev,
                        source_reader *in, const char *name, const strips_output *out,
                        FILE *report, strips_result *res, char *err, size_t err_size);

/* A batch's reader takes an image for strips: the reader moves into a new allocation (the
 * caller's struct is left closed); NULL when out of memory (the caller's still open). */
source_reader *strips_take(source_reader *in);

/* Closes and frees what strips_take made; *r NULL after. */
void strips_release(source_reader **r);

#endif
