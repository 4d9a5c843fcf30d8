/*
 * launch.h - running one filter on a device: each algorithm's geometry and arguments, the
 * upload, the warm-up and timed runs, their statistics, and the download (the buffers are
 * buffers.h's, the kernels job_kernels.h's). One entry point, tc_run; tc_run_resident for
 * planes already on the device; prepared launches for many back to back.
 */
#ifndef TILEDCONV_LAUNCH_H
#define TILEDCONV_LAUNCH_H

#include "buffers.h"
#include "job_kernels.h"
#include "kernel_args.h"

/* The figures of one run (or of several summed, by the pipelines). */
typedef struct {
    int iterations;
    double *kernel_ms;    /* per timed run: the whole filter (both passes for twopass) */
    double *pass_ms[2];   /* twopass only: each pass per run; NULL otherwise */
    double build_ms;      /* building the program (host wall time); 0 when it was cached */
    double h2d_ms;        /* uploading the input plane and the coefficients */
    double d2h_ms;        /* reading the output plane back */
    double wall_ms_per_iteration; /* host wall clock over the timed runs / iterations */
    size_t global[2], local[2];
    long classes[4];      /* tiled: groups of classes 1..4 */
    int classes_counted;  /* 1: counted by the kernel; 0: predicted by the host */
    int block[2];         /* tiled: the block each work-item produced */
} tc_run_stats;

void tc_run_stats_free(tc_run_stats *stats);

/* Sums for the pipelines that run one filter several times (planes, bands, rows), into a
 * total whose arrays hold one value (iterations 1). tc_run_stats_add_device adds what the
 * device did: the kernel and pass times, the build and the upload; tc_run_stats_add adds the
 * read-back and the host wall clock as well. */
void tc_run_stats_add_device(tc_run_stats *total, const tc_run_stats *one);
void tc_run_stats_add(tc_run_stats *total, const tc_run_stats *one);

/* Filters in into out (the same plane is allowed): checks that the job fits the device,
 * builds or reuses its program, uploads, runs `warmup` untimed runs (0 or 1) and then
 * `iterations` timed ones, and reads the result back. TC_OK with *stats filled (free it with
 * tc_run_stats_free), or the failure with its reason in m and *stats empty. */
int tc_run(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
           const tc_job *job, const tc_plane *in, tc_plane *out, int warmup, int iterations,
           tc_run_stats *stats, tc_msg *m);

/* Filters planes already on the device: src into dst (which must already hold src's values
 * outside the target ROI), both width x height floats with the device's row pitch. Only the
 * coefficients travel; *stats has no plane transfers. Otherwise as tc_run. */
int tc_run_resident(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                    const tc_job *job, cl_mem src, cl_mem dst, int width, int height,
                    int warmup, int iterations, tc_run_stats *stats, tc_msg *m);

/* One launch of a job on planes already on the device, prepared so that many can be enqueued
 * back to back (the pyramid's per-level path): its kernel with every argument set and its own
 * coefficient buffers, so that launches of different filters may wait in the queue together.
 * Not for twopass (two launches). */
typedef struct {
    cl_kernel kernel;
    cl_command_queue queue;
    tc_buffers coeffs;     /* kx, ky, mask, counts of its own */
    size_t global[2], local[2];
} tc_launch;

/* Prepares job from src into dst (width x height floats with the device's row pitch; dst
 * must already hold src's values outside the target ROI): builds or reuses its program,
 * uploads its coefficients, sets its arguments. *build_ms: the build's time (0: cached). */
int tc_launch_prepare(const tc_device *d, tc_program_cache *programs, const tc_job *job,
                      cl_mem src, cl_mem dst, int width, tc_launch *l, double *build_ms,
                      tc_msg *m);

/* Enqueues the prepared launch; *event (not NULL) receives its event. */
int tc_launch_enqueue(tc_launch *l, cl_event *event, tc_msg *m);

/* Jobs whose one-pass kernel a prepared launch can run again with other planes: tiled (but
 * its split variant, two passes) and onepass reading buffers, without the class counters
 * (whose counts each run would need reset and read). The others run through
 * tc_run_resident, plane by plane. */
int tc_launch_preparable(const tc_job *job);

/* Prepared launches kept: the jobs of a few image sizes or filters, the one used least
 * recently made anew when another is needed. Zeroed: empty. */
#define TC_LAUNCHES_KEPT 4
typedef struct {
    int used;
    unsigned long age;
    int width;
    tc_job job;
    tc_launch launch;
} tc_launch_kept;
typedef struct {
    tc_launch_kept kept[TC_LAUNCHES_KEPT];
    unsigned long clock;
} tc_launch_cache;

/* The prepared launch of job at this width (tc_launch_preparable), kept in c or made now
 * (from src into dst, as tc_launch_prepare; the planes' arguments are the caller's to set). */
int tc_launch_cache_get(tc_launch_cache *c, const tc_device *d, tc_program_cache *programs,
                        const tc_job *job, cl_mem src, cl_mem dst, int width, tc_launch **launch,
                        double *build_ms, tc_msg *m);

void tc_launch_cache_release(tc_launch_cache *c);

/* Releases what tc_launch_prepare made; safe on a zeroed or half-made launch. */
void tc_launch_release(tc_launch *l);

/* The device's copy time for this many bytes: the median of `repeats` clEnqueueCopyBuffer
 * calls after one warm-up, in ms. */
int tc_copy_ms(const tc_device *d, size_t bytes, int repeats, double *median_ms, tc_msg *m);

#endif
