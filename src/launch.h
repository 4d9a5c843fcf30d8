/*
 * launch.h - running one filter on a device: each algorithm's geometry and arguments, the
 * device buffers (kept between runs and reused while an image fits them), the upload, the
 * warm-up and timed runs, their statistics, and the download. One entry point, tc_run.
 */
#ifndef TILEDCONV_LAUNCH_H
#define TILEDCONV_LAUNCH_H

#include "device.h"
#include "filter.h"
#include "image.h"
#include "kernel_args.h"
#include "programs.h"
#include "storage.h"

/* One filter run as the launchers see it: everything validated and resolved. */
typedef struct {
    tc_algorithm algorithm;
    tc_filter_spec filter;
    tc_roi roi;
    int block_x, block_y; /* tiled: pixels per work-item (block_y before raising to r) */
    int vector_io;        /* tiled: float4 loads and stores where aligned */
    int count_classes;    /* tiled: the kernel counts its groups' classes */
    tc_storage storage;   /* tiled, onepass: the source plane read from a buffer or an image */
    int variant;          /* tiled: 1 + an index into the variant table (tc_variant_find), 0
                           * for the default of the filter's band (tc_variant_default) */
} tc_job;

/* The device buffers a context keeps between runs; each grows when an image needs more. */
typedef struct {
    cl_mem src, dst, tmp, kx, ky, mask, counts;
    size_t src_bytes, dst_bytes, tmp_bytes;
    float *staging;       /* the plane with the device's row pitch, when that differs */
    size_t staging_bytes;
    tc_image_buffers images; /* storage image and bilinear (storage.h) */
} tc_buffers;

void tc_buffers_release(tc_buffers *b);

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

/* The planes of a width x height image (input, output, the two-pass temporary) fit the
 * device's allocation limits: TC_OK, or TC_EINVAL saying what is needed and allowed. */
int tc_check_fits(const tc_device *d, int width, int height, tc_msg *m);

/* On a CPU device, whose buffers are host memory that PoCL backs only at first use (and aborts
 * the process when it cannot), `bytes` more must fit the host's room now (hostmem.h), with a
 * reserve: TC_OK, or TC_ENOMEM naming `what`. Other devices: TC_OK. */
int tc_check_host_room(const tc_device *d, unsigned long long bytes, const char *what,
                       tc_msg *m);

/* What a buffer of `capacity` bytes adds when `bytes` are needed (0 when it is large enough). */
static inline unsigned long long tc_new_bytes(size_t capacity, size_t bytes)
{
    return capacity < bytes ? (unsigned long long)bytes : 0ULL;
}

/* *mem is a buffer of at least `bytes` (kept when it was large enough, else made anew, its
 * contents lost); *capacity its size. What names the buffer in a failure's message. */
int tc_ensure_buffer(const tc_device *d, cl_mem *mem, size_t *capacity, size_t bytes,
                  cl_mem_flags flags, const char *what, tc_msg *m);

/* The kernel that runs a job: the algorithm's, and for tiled the variant its filter needs. */
typedef enum {
    TC_KERNEL_TILED,        /* tiled_conv (TiledConv.cl): up to 15 taps an axis, 3+ along y */
    TC_KERNEL_TILED_LONG,   /* tiled_long_conv (Long.cl): longer, or 1 tap along columns */
    TC_KERNEL_TILED_MASK,   /* tiled_mask_conv (Masks.cl): a mask that is not rank 1 */
    TC_KERNEL_TWOPASS,      /* rows_transposed_conv, twice */
    TC_KERNEL_ONEPASS,      /* one_pass_conv */
    TC_KERNEL_ONEPASS_MASK, /* one_pass_mask_conv */
    TC_KERNEL_BILINEAR,     /* bilinear_rows, then bilinear_cols (Images.cl) */
    TC_KERNEL_TILED_SLIDE,  /* tiled_slide_conv (Long.cl): a group walks down a strip */
    TC_KERNEL_TILED_MASK_ROWS /* tiled_mask_rows_conv (Masks.cl): a loop over source rows */
} tc_kernel_kind;

tc_kernel_kind tc_kernel_of(const tc_job *job);

/* The same from the filter and the algorithm (what -v reports before a job exists), with the
 * variant's default for the filter's band. */
tc_kernel_kind tc_kernel_for(const tc_filter_spec *f, tc_algorithm algorithm);

/*
 * The variants of the tiled kernels for long filters and large masks, each a kernel with its
 * geometry: one table (launch.c), a name for each (--kernel NAME, tc_params.kernel), and per
 * band of lengths the default (launch.c's default tables, one line per band). A variant is
 * for separable filters (tiled, long, slide-*) or for masks that are not rank 1 (mask,
 * mrows-*).
 */
typedef struct {
    const char *name;
    tc_kernel_kind kind;
    int tile_w, tile_h;   /* slide: the strip's width and the rows a step adds (a tile);
                           * mrows: the block per work-item (width, height); 0 for the others */
    int job_w;            /* slide: outputs of one horizontal job (BLOCK_X, from one window) */
    int cols, rows;       /* slide: a work-item's vertical block (columns, rows) */
    int strip_radii;      /* slide: a strip is about this many vertical radii tall */
    int max_registers;    /* -cl-nv-maxrregcount on NVIDIA's compiler; 0: its own choice */
    const char *options;  /* more build options (the kernel's own study switches), or NULL */
    const char *about;    /* one line for the docs */
} tc_variant;

/* The variants (count in *count). */
const tc_variant *tc_variants(int *count);

/* The variant index + 1 of name (tc_job.variant), or 0 with the reason in m (unknown name,
 * or a variant that does not take this filter: a separable one for a mask, a 15-tap kernel
 * for 31 taps). NULL or "" is 0 without a failure: the band's default. */
int tc_variant_find(const char *name, const tc_filter_spec *f, int *variant, tc_msg *m);

/* The variant a tiled job runs: its own, or the default for its filter's band. */
const tc_variant *tc_variant_of(const tc_job *job);

/* tc_kernel_for with the variant named (NULL or "": the band's default; a name that does not
 * take the filter: the default too). The variant that runs in *variant when not NULL (NULL for
 * the other algorithms). */
tc_kernel_kind tc_kernel_for_variant(const tc_filter_spec *f, tc_algorithm algorithm,
                                     const char *name, const tc_variant **variant);

/* The kernel function's name ("tiled_conv", ...); "?" for others. */
const char *tc_kernel_name(tc_kernel_kind kind);

/* The tiled kernels: the article's classes, blocks per work-item. */
static inline int tc_kernel_is_tiled(tc_kernel_kind kind)
{
    return kind == TC_KERNEL_TILED || kind == TC_KERNEL_TILED_LONG ||
           kind == TC_KERNEL_TILED_MASK || kind == TC_KERNEL_TILED_SLIDE ||
           kind == TC_KERNEL_TILED_MASK_ROWS;
}

/* The geometry of a tiled kernel's launch for a job, on a device with local_mem bytes of local
 * memory (tiled_long_conv's tile height depends on it). */
typedef struct {
    tc_kernel_kind kind;
    int tile_w, tile_h;   /* the pixels a work-group produces */
    size_t local[2];      /* the work-group */
    int block[2];         /* the pixels one work-item produces (long: one column of block[1]) */
    int read_block_x;     /* the columns one read window serves (the kernel's BLOCK_X) */
    int grid_offset;      /* the first tile starts this many columns left of the ROI */
    int apron_l, apron_r; /* Common.cl's APRON_L, APRON_R: columns a window reads beyond */
    int radius_y;         /* rows the tile's neighbourhood reaches above and below */
    int strip_h;          /* rows one work-group produces: tile_h, or for tiled_slide_conv
                           * the strip it walks down, tile by tile (a multiple of tile_h) */
} tc_tiled_geometry;

void tc_tiled_geometry_of(const tc_job *job, unsigned long long local_mem,
                          tc_tiled_geometry *g);

/* How tiled_conv sums a job's columns: 0 when each output adds its taps in order (ky[0]
 * first), as every other kernel does; otherwise the height of the blocks in which it adds
 * each filtered row to its outputs as the row arrives (TiledConv.cl's TC_VERTICAL_ACC, the
 * default for 7 to 11 taps along columns): the block's own rows first, then the RADIUS_Y rows
 * above it, then those below. The pyramid's per-octave kernel sums in the same order, so that
 * its levels are those of tc_filter bit for bit. */
int tc_tiled_accumulating_rows(const tc_job *job);

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

/* Releases what tc_launch_prepare made; safe on a zeroed or half-made launch. */
void tc_launch_release(tc_launch *l);

/* The tiled kernels' source alignment for this job, (src_left - dst_left) mod 4, which their
 * programs are built for (Common.cl's SHIFT); 0 without float4 I/O and for tiled_long_conv,
 * whose tiles sit on the source's grid. */
int tc_tiled_shift(const tc_job *job);

/* One tiled work-group's tile in ROI coordinates (l, t may be negative: the tiles sit on a
 * 4-column grid) and its classes, by the tiled kernels' own tests. */
typedef struct {
    int l, t, width, height;
    int free_on_read;  /* class 1, else 2 */
    int free_on_write; /* class 3, else 4 */
} tc_tile_class;

/* Calls visit for every work-group of the job's tiled kernel on a device with local_mem bytes
 * of local memory (tiled_long_conv's tile height depends on it), row by row. */
void tc_tiled_tiles(const tc_job *job, unsigned long long local_mem,
                    void (*visit)(void *arg, const tc_tile_class *tile), void *arg);

/* The article's class of each tiled work-group for this job on a device with local_mem bytes
 * of local memory, predicted with the same tests as the tiled kernels make. */
void tc_tiled_classes(const tc_job *job, unsigned long long local_mem, long classes[4]);

/* Refuses a launch of `kernel` in work-groups of local[0] x local[1] that the device cannot
 * run (its work-group limits, the kernel's own, its local memory), saying why in words. */
int tc_check_launch(const tc_device *d, cl_kernel kernel, const char *name,
                    const size_t local[2], tc_msg *m);

/* The device's copy time for this many bytes: the median of `repeats` clEnqueueCopyBuffer
 * calls after one warm-up, in ms. */
int tc_copy_ms(const tc_device *d, size_t bytes, int repeats, double *median_ms, tc_msg *m);

#endif
