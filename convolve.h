/*
 * convolve.h - the three algorithms' host launchers, one signature for all.
 *
 * Each launcher uploads the input plane, initialises the output plane on the device as a copy
 * of it (SPEC.md: pixels outside the tROI keep the input), runs one warm-up and then the timed
 * iterations, reads the output plane back and fills tc_run_stats.
 */
#ifndef TILEDCONV_CONVOLVE_H
#define TILEDCONV_CONVOLVE_H

#include "filter.h"
#include "ocl_util.h"

typedef enum { TC_ALG_TILED, TC_ALG_TWOPASS, TC_ALG_ONEPASS, TC_ALG_COUNT } tc_algorithm;

/* The row pitch of a plane on the device, in floats: the width rounded up to TC_ROW_ALIGN. */
int tc_device_pitch(int width);

/* "tiled", "twopass", "onepass". */
const char *tc_algorithm_name(tc_algorithm alg);

/* An opened device and the programs built on it so far, one per algorithm, radius and border
 * rule, so that a process filtering many images (the tests, -a all) builds each one once. */
typedef struct {
    ocl_env *env;
    int block_x, block_y; /* tiled: pixels per work-item (tc_config.h's by default) */
    int vector_io;        /* tiled: float4 loads and stores where aligned (default 1) */
    int count_classes;    /* tiled: the kernel counts its groups' classes (-v, tests) */
    cl_program programs[TC_ALG_COUNT][TC_MAX_RADIUS + 1][TC_BORDER_COUNT];
    double build_ms[TC_ALG_COUNT][TC_MAX_RADIUS + 1][TC_BORDER_COUNT];
} tc_session;

void tc_session_init(tc_session *s, ocl_env *env);
void tc_session_release(tc_session *s);

/* tiled: the block of pixels each work-item produces (block_x 4 or 8, whole float4s;
 * block_y 1..16) and whether aligned rows use float4 loads and stores. Returns 0, or -1 for a
 * block the kernel does not support. */
int tc_session_set_tiled(tc_session *s, int block_x, int block_y, int vector_io);

/* tiled: build the kernel so that it counts the groups of each class it runs (an atomic add
 * per group), and report those counts in tc_run_stats rather than the host's prediction. */
void tc_session_count_classes(tc_session *s, int on);

typedef struct {
    int iterations;
    double *kernel_ms;   /* per timed iteration: the whole filter (both passes for twopass) */
    double *pass_ms[2];  /* twopass only: each pass per iteration; NULL otherwise */
    double build_ms;     /* building the program (host wall time); 0 when it was cached */
    double h2d_ms;       /* uploading the input plane and the coefficients */
    double d2h_ms;       /* reading the output plane back */
    double wall_ms_per_iteration; /* host wall clock over the timed batch / iterations:
                                   * kernel time plus launch overhead and gaps */
    size_t global[2], local[2];
    /* tiled only: work-groups in the article's classes 1 (free on read), 2 (checks reads),
     * 3 (free on write), 4 (checks writes). Every group is in one of 1/2 and one of 3/4. */
    long classes[4];
    int classes_counted; /* 1: classes[] was counted by the kernel; 0: predicted by the host */
    int block[2]; /* tiled only: the block each work-item produced (the height may have been
                   * raised to the radius) */
} tc_run_stats;

void tc_run_stats_free(tc_run_stats *stats);

/* The signature every algorithm shares. out must have the size of in. Returns 0, or 1 after
 * reporting an OpenCL failure or a device limit the kernel cannot run within. */
typedef int (*tc_run_fn)(tc_session *s, const tc_plane *in, const tc_roi *roi,
                         const tc_filter *f, int iterations, tc_plane *out,
                         tc_run_stats *stats);

int run_tiled(tc_session *s, const tc_plane *in, const tc_roi *roi, const tc_filter *f,
              int iterations, tc_plane *out, tc_run_stats *stats);
int run_two_pass(tc_session *s, const tc_plane *in, const tc_roi *roi, const tc_filter *f,
                 int iterations, tc_plane *out, tc_run_stats *stats);
int run_one_pass(tc_session *s, const tc_plane *in, const tc_roi *roi, const tc_filter *f,
                 int iterations, tc_plane *out, tc_run_stats *stats);

tc_run_fn tc_algorithm_run(tc_algorithm alg);

/* The article's class of each tiled work-group for this ROI, device row pitch (in floats,
 * tc_device_pitch) and radius, predicted with the same tests as tiled_conv in TiledConv.cl. */
void tc_tiled_classes(const tc_session *s, const tc_roi *roi, int pitch, int radius,
                      long classes[4]);

/* The median of count values (a copy is sorted); -1 for none. */
double tc_median(const double *values, int count);

/* The device's copy bandwidth for this many bytes: the median time of `repeats`
 * clEnqueueCopyBuffer calls after one warm-up, in ms. Returns 0, or 1 (reported). */
int tc_measure_copy(tc_session *s, size_t bytes, int repeats, double *copy_ms);

#endif
