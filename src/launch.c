/*
 * launch.c - host side of the three algorithms. tc_run walks one filter run through its steps:
 * check the job against the device, get the program and kernel, make sure the buffers are
 * there, upload, run (warm-up, then the timed runs), read back, collect the times. Each
 * algorithm contributes only its geometry and how it enqueues one filter run.
 */
#include "launch.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hostmem.h"

TC_API const char *tc_algorithm_name(tc_algorithm a)
{
    static const char *const names[] = {"tiled", "twopass", "onepass", "bilinear"};
    return (int)a >= 0 && a <= TC_BILINEAR ? names[a] : "?";
}

static long ceil_div(long a, long b)
{
    return (a + b - 1) / b;
}

static int radius_x(const tc_job *job)
{
    return (job->filter.taps_x - 1) / 2;
}

static int radius_y(const tc_job *job)
{
    return (job->filter.taps_y - 1) / 2;
}

/* ---- The tiled kernel's variants for long filters and large masks ------------------------- */

/*
 * Every variant the tiled algorithm can run for a filter beyond the article's lengths, by
 * name (--kernel NAME, tc_params.kernel). The slide variants are tiled_slide_conv (Long.cl)
 * with the geometry of their row: a work-group walks down a strip tile_w columns wide, tile_h
 * rows at a step (its tiles), filtering each step's rows horizontally in jobs of job_w outputs
 * and then every output column vertically, each work-item a block of cols x rows outputs; the
 * strip is about strip_radii vertical radii tall (launch.c's slide_strip_h). The mrows
 * variants are tiled_mask_rows_conv (Masks.cl), a work-item a block of tile_w x tile_h
 * outputs. Local memory and registers per variant at 63 taps: README "Kernel variants".
 */
#define SLIDE(w, s, j, c, r) .kind = TC_KERNEL_TILED_SLIDE, .tile_w = w, .tile_h = s, \
                             .job_w = j, .cols = c, .rows = r, .strip_radii = 16
static const tc_variant variants[] = {
    {.name = "tiled", .kind = TC_KERNEL_TILED,
     .about = "tiled_conv: the article's 32-column tiles, up to 15 taps an axis"},
    {.name = "long", .kind = TC_KERNEL_TILED_LONG,
     .about = "tiled_long_conv: tiles of 32 x 256 and their halo rows filtered into local "
              "memory, then one column of 32 a work-item"},
    {.name = "slide-64x64-j32-v32", SLIDE(64, 64, 32, 1, 32),
     .about = "strips 64 wide, steps of 64 rows, jobs of 32, columns of 32 (128 work-items)"},
    {.name = "slide-64x64-j32-v32-acc", SLIDE(64, 64, 32, 1, 32), .options = "-D TC_SLIDE_ACC=1",
     .about = "the same, each filtered value added into the outputs it reaches as it is "
              "read (the 32 sums stay live, not the column's values)"},
    {.name = "slide-64x64-j32-v32-r168", SLIDE(64, 64, 32, 1, 32), .max_registers = 168,
     .about = "the same in at most 168 registers (NVIDIA: three groups an SM)"},
    {.name = "slide-64x64-j32-v32-r128", SLIDE(64, 64, 32, 1, 32), .max_registers = 128,
     .about = "the same in at most 128 registers (NVIDIA: four groups an SM)"},
    {.name = "slide-64x64-j16-v16", SLIDE(64, 64, 16, 1, 16),
     .about = "strips 64 wide, steps of 64 rows, jobs of 16, columns of 16 (256 work-items)"},
    {.name = "slide-64x64-j16-v16-r128", SLIDE(64, 64, 16, 1, 16), .max_registers = 128,
     .about = "the same in at most 128 registers (NVIDIA: two groups an SM)"},
    {.name = "slide-64x64-j16-v4x8", SLIDE(64, 64, 16, 4, 8),
     .about = "strips 64 wide, jobs of 16, blocks of 4 columns x 8 rows (float4 reads)"},
    {.name = "slide-128x32-j32-v32", SLIDE(128, 32, 32, 1, 32),
     .about = "strips 128 wide, steps of 32 rows, jobs of 32, columns of 32"},
    {.name = "slide-32x128-j32-v32", SLIDE(32, 128, 32, 1, 32),
     .about = "strips 32 wide, steps of 128 rows, jobs of 32, columns of 32"},
    {.name = "mask", .kind = TC_KERNEL_TILED_MASK,
     .about = "tiled_mask_conv: the article's groups, every source row of a block read once, "
              "every product unrolled"},
    {.name = "mrows-8x4", .kind = TC_KERNEL_TILED_MASK_ROWS, .tile_w = 8, .tile_h = 4,
     .about = "tiled_mask_rows_conv: blocks of 8 x 4, a loop over source rows"},
    {.name = "mrows-4x8", .kind = TC_KERNEL_TILED_MASK_ROWS, .tile_w = 4, .tile_h = 8,
     .about = "tiled_mask_rows_conv: blocks of 4 x 8"},
    {.name = "mrows-8x8", .kind = TC_KERNEL_TILED_MASK_ROWS, .tile_w = 8, .tile_h = 8,
     .about = "tiled_mask_rows_conv: blocks of 8 x 8"},
};
#undef SLIDE
#define VARIANT_COUNT ((int)(sizeof variants / sizeof variants[0]))

/*
 * The default variant per band of lengths: the first row whose bound is at least the
 * filter's longer axis (a mask's larger side). Choosing another default for a band is a change
 * of one name here; the bands are those bench/roofline.sh measures every variant on.
 */
static const struct {
    int max_taps;
    const char *variant;
} separable_defaults[] = {
    {9, "tiled"},  /* 3 .. 9: the article's kernel as issue 13 tuned it (not to be changed) */
    {15, "tiled"}, /* 11 .. 15 */
    {21, "long"},  /* 17 .. 21 */
    {41, "long"},  /* 23 .. 41 */
    {63, "long"},  /* 43 .. 63 */
};
static const struct {
    int max_size;
    const char *variant;
} mask_defaults[] = {
    {7, "mask"},        /* 3 x 3 .. 7 x 7: the article's groups, unrolled (7 x 7: 81.6 % of
                         * the roofline on the H100, mrows 61-65 %) */
    {15, "mrows-8x8"},  /* 9 x 9 .. 15 x 15: a window read once feeds a block's rows (15 x 15:
                         * 67.0 % of the roofline against the unrolled kernel's 46.6 %) */
};

const tc_variant *tc_variants(int *count)
{
    *count = VARIANT_COUNT;
    return variants;
}

static int is_mask(const tc_filter_spec *f)
{
    return f->mask_width && !f->mask_separable;
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

/* Whether variant v can run filter f, and if not why (for tc_variant_find). */
static const char *variant_refuses(const tc_variant *v, const tc_filter_spec *f)
{
    const int mask_kernel = v->kind == TC_KERNEL_TILED_MASK || v->kind == TC_KERNEL_TILED_MASK_ROWS;
    if (mask_kernel != is_mask(f))
        return mask_kernel ? "is for masks that are not rank 1" : "is for separable filters";
    if (v->kind == TC_KERNEL_TILED &&
        (f->taps_x > TC_TILED_MAX_TAPS || f->taps_y > TC_TILED_MAX_TAPS || f->taps_y < 3))
        return "takes up to 15 taps along each axis and 3 or more along columns";
    return NULL;
}

static int variant_index(const char *name)
{
    for (int i = 0; i < VARIANT_COUNT; i++)
        if (strcmp(variants[i].name, name) == 0)
            return i;
    return -1;
}

/* The default for f's band (a variant of the right family that takes f). */
static const tc_variant *variant_default(const tc_filter_spec *f)
{
    const char *name = NULL;
    if (is_mask(f)) {
        const int size = max_int(f->mask_width, f->mask_height);
        for (size_t i = 0; i < sizeof mask_defaults / sizeof mask_defaults[0] && !name; i++)
            if (size <= mask_defaults[i].max_size)
                name = mask_defaults[i].variant;
    } else {
        const int taps = max_int(f->taps_x, f->taps_y);
        for (size_t i = 0; i < sizeof separable_defaults / sizeof separable_defaults[0] && !name;
             i++)
            if (taps <= separable_defaults[i].max_taps)
                name = separable_defaults[i].variant;
    }
    const int i = name ? variant_index(name) : -1;
    if (i >= 0 && !variant_refuses(&variants[i], f))
        return &variants[i];
    /* tiled_conv's shapes aside (1 tap down columns), the kernel that takes every filter. */
    return &variants[variant_index(is_mask(f) ? "mask" : "long")];
}

int tc_variant_find(const char *name, const tc_filter_spec *f, int *variant, tc_msg *m)
{
    *variant = 0;
    if (!name || !*name)
        return TC_OK;
    const int i = variant_index(name);
    if (i < 0) {
        char list[512] = "";
        for (int k = 0; k < VARIANT_COUNT; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                     variants[k].name);
        return tc_fail(m, TC_EINVAL, "kernel '%s': not a variant of the tiled kernel (%s)", name,
                       list);
    }
    const char *why = variant_refuses(&variants[i], f);
    if (why) {
        if (is_mask(f))
            return tc_fail(m, TC_EINVAL, "kernel %s %s; the %d x %d mask is not", name, why,
                           f->mask_width, f->mask_height);
        return tc_fail(m, TC_EINVAL, "kernel %s %s; this filter has %d x %d taps", name, why,
                       f->taps_x, f->taps_y);
    }
    *variant = i + 1;
    return TC_OK;
}

const tc_variant *tc_variant_of(const tc_job *job)
{
    if (job->variant > 0 && job->variant <= VARIANT_COUNT)
        return &variants[job->variant - 1];
    return variant_default(&job->filter);
}

tc_kernel_kind tc_kernel_for(const tc_filter_spec *f, tc_algorithm algorithm)
{
    if (algorithm == TC_BILINEAR)
        return TC_KERNEL_BILINEAR;
    if (is_mask(f) && algorithm == TC_ONEPASS)
        return TC_KERNEL_ONEPASS_MASK;
    if (algorithm == TC_TWOPASS)
        return TC_KERNEL_TWOPASS;
    if (algorithm == TC_ONEPASS)
        return TC_KERNEL_ONEPASS;
    return variant_default(f)->kind;
}

tc_kernel_kind tc_kernel_for_variant(const tc_filter_spec *f, tc_algorithm algorithm,
                                     const char *name, const tc_variant **variant)
{
    int index = 0;
    const tc_variant *v = NULL;
    if (algorithm == TC_TILED) {
        v = tc_variant_find(name, f, &index, NULL) == TC_OK && index > 0 ? &variants[index - 1]
                                                                         : variant_default(f);
    }
    if (variant)
        *variant = v;
    return v ? v->kind : tc_kernel_for(f, algorithm);
}

tc_kernel_kind tc_kernel_of(const tc_job *job)
{
    if (job->algorithm == TC_TILED)
        return tc_variant_of(job)->kind;
    return tc_kernel_for(&job->filter, job->algorithm);
}

const char *tc_kernel_name(tc_kernel_kind kind)
{
    static const char *const names[] = {"tiled_conv",     "tiled_long_conv",
                                        "tiled_mask_conv", "rows_transposed_conv",
                                        "one_pass_conv",  "one_pass_mask_conv",
                                        "bilinear_rows",  "tiled_slide_conv",
                                        "tiled_mask_rows_conv"};
    return (int)kind >= 0 && kind <= TC_KERNEL_TILED_MASK_ROWS ? names[kind] : "?";
}

/* tiled_conv's block height: the job's, raised to the vertical radius where that is larger,
 * since a work-item takes the radius's rows above and below its block from its two vertical
 * neighbours' blocks; and from radius TC_TILED_LONG_RADIUS to at least TC_TILED_LONG_BLOCK_Y,
 * where taller tiles measured faster. */
static int tiled_block_y_for(const tc_job *job, int radius)
{
    int block_y = job->block_y >= radius ? job->block_y : radius;
    if (radius >= TC_TILED_LONG_RADIUS && block_y < TC_TILED_LONG_BLOCK_Y)
        block_y = TC_TILED_LONG_BLOCK_Y;
    return block_y;
}

static int tiled_block_y(const tc_job *job)
{
    return tiled_block_y_for(job, radius_y(job));
}

int tc_tiled_accumulating_rows(const tc_job *job)
{
    /* TiledConv.cl's default TC_VERTICAL_ACC: vertical radius 3 to 5 (with the halo rows
     * spread over the group, its default from radius 3, and no staging for class 2). */
    const int ry = radius_y(job);
    if (tc_kernel_of(job) != TC_KERNEL_TILED || ry < 3 || ry > 5)
        return 0;
    return tiled_block_y(job);
}

/* A positive integer from the environment, or fallback: the knobs bench/ turns to study the
 * kernels' geometry (README: "For kernel experiments"). */
static int env_int(const char *name, int fallback)
{
    const char *text = getenv(name);
    char *end;
    long v = text ? strtol(text, &end, 10) : 0;
    return text && end != text && *end == '\0' && v > 0 && v <= 4096 ? (int)v : fallback;
}

/* tiled_mask_conv's block height: TC_MASK_SHORT_BLOCK_Y for masks of at most 3 rows, else
 * TC_MASK_BLOCK_Y (config.h says why); or TILEDCONV_MASK_BLOCK_Y (1..16). */
static int mask_block_y(const tc_job *job)
{
    const int fallback = radius_y(job) <= 1 ? TC_MASK_SHORT_BLOCK_Y : TC_MASK_BLOCK_Y;
    const int b = env_int("TILEDCONV_MASK_BLOCK_Y", fallback);
    return b <= 16 ? b : fallback;
}

/* tiled_long_conv's tile: TC_LONG_TILE_W x TC_LONG_TILE_H (or TILEDCONV_LONG_TILE_W and
 * TILEDCONV_LONG_TILE_H where they make a tile Long.cl takes), the height halved while the
 * filtered rows, (height + 2 ry) x width floats, would not fit the device's local memory. */
static void long_tile(const tc_job *job, unsigned long long local_mem, int *tile_w,
                      int *tile_h)
{
    int w = env_int("TILEDCONV_LONG_TILE_W", TC_LONG_TILE_W);
    int h = env_int("TILEDCONV_LONG_TILE_H", TC_LONG_TILE_H);
    if (w < TC_LONG_JOB_W || (w & (w - 1)) != 0 || TC_LONG_GROUP % w != 0 ||
        (h * w) % TC_LONG_GROUP != 0) {
        w = TC_LONG_TILE_W;
        h = TC_LONG_TILE_H;
    }
    while ((unsigned long long)(h + 2 * radius_y(job)) * (unsigned long long)w * 4ULL >
               local_mem &&
           h / 2 * w >= TC_LONG_GROUP && (h / 2 * w) % TC_LONG_GROUP == 0)
        h /= 2;
    *tile_w = w;
    *tile_h = h;
}

/* a mod 4 in 0..3, for either sign of a. */
static int mod4(int a)
{
    return ((a % 4) + 4) % 4;
}

/* a rounded down to a multiple of 4, for either sign of a. */
static int floor4(int a)
{
    return a - mod4(a);
}

int tc_tiled_shift(const tc_job *job)
{
    /* tiled_long_conv's and tiled_slide_conv's tiles sit on the source's grid: their windows
     * are always aligned. */
    const tc_kernel_kind kind = tc_kernel_of(job);
    if (!job->vector_io || kind == TC_KERNEL_TILED_LONG || kind == TC_KERNEL_TILED_SLIDE)
        return 0;
    return mod4(job->roi.src_left - job->roi.dst_left);
}

/* tiled_slide_conv's step: the variant's rows, halved while the filtered rows the step keeps
 * in local memory, (2 ry + rows) x width floats, would not fit the device's (a group's
 * work-items halve with it: one vertical block each). */
static int slide_step_rows(const tc_variant *v, int ry, unsigned long long local_mem)
{
    int s = v->tile_h;
    while ((unsigned long long)(2 * ry + s) * (unsigned long long)v->tile_w * 4ULL > local_mem &&
           s / 2 >= v->rows && (s / 2) % v->rows == 0 &&
           (s / 2) * v->tile_w / (v->cols * v->rows) >= 32)
        s /= 2;
    return s;
}

/* The rows a tiled_slide_conv group walks down: about strip_radii vertical radii in whole steps,
 * so that the 2 ry rows it filters twice at a strip's start (the rows above its first tile)
 * stay a small share of its work; at least one step, and no more than a quarter of the image's
 * steps, so that a small image still has several groups down each strip column. */
static int slide_strip_h(const tc_variant *v, int ry, int step, int height)
{
    const int steps_down = (height + step - 1) / step;
    int steps = (v->strip_radii * ry + step - 1) / step;
    const int cap = (steps_down + 3) / 4;
    if (steps > cap)
        steps = cap;
    if (steps < 1)
        steps = 1;
    return steps * step;
}

void tc_tiled_geometry_of(const tc_job *job, unsigned long long local_mem,
                          tc_tiled_geometry *g)
{
    const tc_kernel_kind kind = tc_kernel_of(job);
    const int rx = radius_x(job), shift = tc_tiled_shift(job);
    int block_x = job->block_x;
    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->radius_y = radius_y(job);
    if (kind == TC_KERNEL_TILED_LONG) {
        /* Long.cl: 256 work-items, jobs of TC_LONG_JOB_W along rows, one column each. */
        long_tile(job, local_mem, &g->tile_w, &g->tile_h);
        block_x = TC_LONG_JOB_W;
        g->local[0] = (size_t)(g->tile_w / TC_LONG_JOB_W);
        g->local[1] = (size_t)(TC_LONG_GROUP / (g->tile_w / TC_LONG_JOB_W));
        g->block[0] = 1;
        g->block[1] = g->tile_h * g->tile_w / TC_LONG_GROUP;
        g->grid_offset = job->vector_io ? mod4(job->roi.src_left) : 0;
    } else if (kind == TC_KERNEL_TILED_SLIDE) {
        /* Long.cl's tiled_slide_conv: one group a strip of tiles, on the source's 4-grid. */
        const tc_variant *v = tc_variant_of(job);
        g->tile_w = v->tile_w;
        g->tile_h = slide_step_rows(v, g->radius_y, local_mem);
        block_x = v->job_w;
        g->local[0] = (size_t)(g->tile_w * g->tile_h / (v->cols * v->rows));
        g->local[1] = 1;
        g->block[0] = v->cols;
        g->block[1] = v->rows;
        g->grid_offset = job->vector_io ? mod4(job->roi.src_left) : 0;
        g->strip_h = slide_strip_h(v, g->radius_y, g->tile_h, job->roi.height);
    } else {
        /* tiled_conv, tiled_mask_conv and tiled_mask_rows_conv: the article's groups, the
         * target's 4-column grid. */
        if (kind == TC_KERNEL_TILED_MASK)
            block_x = TC_TILED_BLOCK_X;
        if (kind == TC_KERNEL_TILED_MASK_ROWS)
            block_x = tc_variant_of(job)->tile_w;
        g->block[0] = block_x;
        g->block[1] = kind == TC_KERNEL_TILED_MASK        ? mask_block_y(job)
                      : kind == TC_KERNEL_TILED_MASK_ROWS ? tc_variant_of(job)->tile_h
                                                          : tiled_block_y(job);
        g->local[0] = TC_TILED_GROUP_X;
        g->local[1] = TC_TILED_GROUP_Y;
        g->tile_w = TC_TILED_GROUP_X * g->block[0];
        g->tile_h = TC_TILED_GROUP_Y * g->block[1];
        g->grid_offset = job->vector_io ? mod4(job->roi.dst_left) : 0;
    }
    if (!g->strip_h)
        g->strip_h = g->tile_h;
    g->read_block_x = block_x;
    /* Common.cl's APRON_L and APRON_R: the columns a block row's reads reach left of the
     * block and right of it. With float4 I/O the row is read as the aligned float4s that
     * cover it (WIN_LO .. WIN_HI relative to the multiple of 4 at or before the block's first
     * source column), except aligned rows of radius 1, read as the block's float4s and one
     * float a side. */
    if (!job->vector_io || (shift == 0 && rx == 1)) {
        g->apron_l = g->apron_r = rx;
    } else {
        const int lo = floor4(shift - rx);
        const int hi = floor4(shift + block_x - 1 + rx) + 4;
        g->apron_l = shift - lo;
        g->apron_r = hi - shift - block_x;
    }
}

void tc_tiled_tiles(const tc_job *job, unsigned long long local_mem,
                    void (*visit)(void *arg, const tc_tile_class *tile), void *arg)
{
    const tc_roi *roi = &job->roi;
    tc_tiled_geometry g;
    tc_tiled_geometry_of(job, local_mem, &g);
    const int w = roi->width, h = roi->height, tile_w = g.tile_w, tile_h = g.tile_h;
    for (int t = 0; t < h; t += tile_h)
        for (int l = -g.grid_offset; l < w; l += tile_w) {
            /* The tiled kernels' two tests (Common.cl), on the same values. */
            const tc_tile_class tile = {
                l, t, tile_w, tile_h,
                l >= g.apron_l && t >= g.radius_y && l + tile_w + g.apron_r <= w &&
                    t + tile_h + g.radius_y <= h,
                l >= 0 && l + tile_w <= w && t + tile_h <= h};
            visit(arg, &tile);
        }
}

static void count_tile(void *arg, const tc_tile_class *tile)
{
    long *classes = arg;
    classes[tile->free_on_read ? 0 : 1]++;
    classes[tile->free_on_write ? 2 : 3]++;
}

void tc_tiled_classes(const tc_job *job, unsigned long long local_mem, long classes[4])
{
    memset(classes, 0, 4 * sizeof classes[0]);
    tc_tiled_tiles(job, local_mem, count_tile, classes);
}

/* ---- What each kernel brings ---------------------------------------------------------- */

/* The device side of one run. */
typedef struct {
    const tc_job *job;
    const tc_buffers *buf; /* the coefficients, the two-pass temporary, the class counts */
    cl_mem src, dst;       /* the planes this run reads and writes */
    cl_command_queue queue;
    cl_kernel kernel;
    cl_kernel kernel2;     /* twopass: pass 2's (built for the column radius); bilinear: pass 2 */
    int pitch;          /* the device's row pitch in floats (tc_device_pitch) */
    unsigned long long local_mem; /* the device's local memory, bytes */
    tc_tiled_geometry tiled; /* the tiled kernels' tile, block and group */
    size_t local[2];
    size_t global[2];
    int nv_options;     /* the device's compiler takes NVIDIA's -cl-nv-* build options */
} launch_state;

typedef struct {
    tc_source source;
    int passes;
    /* The work-group and global sizes for this job (ls->tiled is known). */
    void (*geometry)(launch_state *ls);
    /* Sets the arguments that stay the same for every run. */
    int (*set_args)(launch_state *ls, tc_msg *m);
    /* Enqueues one complete filter run; events[p] receives pass p's event. */
    int (*enqueue)(launch_state *ls, cl_event events[2], tc_msg *m);
} kernel_desc;

/* The tiled kernels: one group per tile, from the tile grid's offset. */
static void tiled_geometry(launch_state *ls)
{
    const tc_tiled_geometry *g = &ls->tiled;
    ls->local[0] = g->local[0];
    ls->local[1] = g->local[1];
    ls->global[0] = (size_t)ceil_div(ls->job->roi.width + g->grid_offset, g->tile_w) * g->local[0];
    ls->global[1] = (size_t)ceil_div(ls->job->roi.height, g->strip_h) * g->local[1];
}

static void one_pass_geometry(launch_state *ls)
{
    ls->local[0] = ls->local[1] = TC_ONEPASS_GROUP;
    ls->global[0] = (size_t)ceil_div(ls->job->roi.width, TC_ONEPASS_GROUP) * TC_ONEPASS_GROUP;
    ls->global[1] = (size_t)ceil_div(ls->job->roi.height, TC_ONEPASS_GROUP) * TC_ONEPASS_GROUP;
}

/* Pass 1 covers the ROI; pass 2, the transposed ROI, is sized in two_pass_enqueue. */
static void two_pass_geometry(launch_state *ls)
{
    ls->local[0] = ls->local[1] = TC_TWOPASS_TILE;
    ls->global[0] = (size_t)ceil_div(ls->job->roi.width, TC_TWOPASS_TILE) * TC_TWOPASS_TILE;
    ls->global[1] = (size_t)ceil_div(ls->job->roi.height, TC_TWOPASS_TILE) * TC_TWOPASS_TILE;
}

/* Up to 16 values by value, zero-padded: TiledConv.cl's TC_COEFF_VALUES, Masks.cl's
 * TC_MASK_VALUES. */
static cl_float16 by_value(const float *k, int n)
{
    cl_float16 v;
    memset(&v, 0, sizeof v);
    for (int i = 0; i < n && i < 16; i++)
        v.s[i] = k[i];
    return v;
}

/* tiled_slide_conv: src ... dst_top, the ROI's size, each axis's coefficients by value as
 * four float16s (zero-padded), so that the unrolled loops' compile-time indices make each a
 * constant operand of its multiply-add (a kernel argument lives in a constant bank on GPUs)
 * rather than a load or a register; the border value, the rows a group walks down, and the
 * counters when it counts. */
static int slide_set_args(launch_state *ls, tc_msg *m)
{
    const tc_roi *r = &ls->job->roi;
    const tc_filter_spec *f = &ls->job->filter;
    const int strip_h = ls->tiled.strip_h;
    cl_float16 kx[4], ky[4];
    for (int q = 0; q < 4; q++) {
        kx[q] = by_value(f->kx + 16 * q, f->taps_x - 16 * q);
        ky[q] = by_value(f->ky + 16 * q, f->taps_y - 16 * q);
    }
    const tc_kernel_arg args[] = {
        TC_KARG(ls->src),    TC_KARG(ls->dst),     TC_KARG(ls->pitch),  TC_KARG(r->src_left),
        TC_KARG(r->src_top), TC_KARG(r->dst_left), TC_KARG(r->dst_top), TC_KARG(r->width),
        TC_KARG(r->height),  TC_KARG(kx[0]),       TC_KARG(kx[1]),      TC_KARG(kx[2]),
        TC_KARG(kx[3]),      TC_KARG(ky[0]),       TC_KARG(ky[1]),      TC_KARG(ky[2]),
        TC_KARG(ky[3]),      TC_KARG(f->border_value), TC_KARG(strip_h),
        TC_KARG(ls->buf->counts)};
    return tc_set_args(ls->kernel, "tiled_slide_conv", args, ls->job->count_classes ? 20 : 19,
                       m);
}

/* The separable kernels that read planes directly take the same first arguments
 * (src ... border_value); tiled_conv then the coefficients again by value (float16,
 * zero-padded: TiledConv.cl's TC_COEFF_VALUES); the tiled ones, when they count their
 * classes, the counters last. */
static int direct_set_args(launch_state *ls, tc_msg *m)
{
    const tc_roi *r = &ls->job->roi;
    const tc_buffers *b = ls->buf;
    const tc_filter_spec *f = &ls->job->filter;
    const tc_kernel_kind kind = tc_kernel_of(ls->job);
    const cl_float16 kx_values = by_value(f->kx, f->taps_x);
    const cl_float16 ky_values = by_value(f->ky, f->taps_y);
    const tc_kernel_arg args[] = {
        TC_KARG(ls->src),     TC_KARG(ls->dst),     TC_KARG(ls->pitch),    TC_KARG(r->src_left),
        TC_KARG(r->src_top),  TC_KARG(r->dst_left), TC_KARG(r->dst_top),   TC_KARG(r->width),
        TC_KARG(r->height),   TC_KARG(b->kx),       TC_KARG(b->ky),        TC_KARG(f->border_value),
        TC_KARG(kx_values),   TC_KARG(ky_values),   TC_KARG(b->counts)};
    const tc_kernel_arg long_args[] = {args[0], args[1], args[2],  args[3],  args[4],
                                       args[5], args[6], args[7],  args[8],  args[9],
                                       args[10], args[11], args[14]};
    const int counts = ls->job->count_classes;
    if (kind == TC_KERNEL_TILED_SLIDE)
        return slide_set_args(ls, m);
    if (kind == TC_KERNEL_TILED_LONG)
        return tc_set_args(ls->kernel, "tiled_long_conv", long_args, counts ? 13 : 12, m);
    if (kind == TC_KERNEL_TILED)
        return tc_set_args(ls->kernel, "tiled_conv", args, counts ? 15 : 14, m);
    return tc_set_args(ls->kernel, "one_pass_conv", args, 12, m);
}

/* tiled_mask_conv and one_pass_mask_conv: src ... dst_top, the ROI's size, the mask and the
 * border value; tiled_mask_conv then the first 16 weights by value (Masks.cl's
 * TC_MASK_VALUES) and, when it counts, the counters. */
static int mask_set_args(launch_state *ls, tc_msg *m)
{
    const tc_roi *r = &ls->job->roi;
    const tc_buffers *b = ls->buf;
    const tc_filter_spec *f = &ls->job->filter;
    const cl_float16 values = by_value(f->mask, f->mask_width * f->mask_height);
    const tc_kernel_arg args[] = {
        TC_KARG(ls->src),    TC_KARG(ls->dst),     TC_KARG(ls->pitch),  TC_KARG(r->src_left),
        TC_KARG(r->src_top), TC_KARG(r->dst_left), TC_KARG(r->dst_top), TC_KARG(r->width),
        TC_KARG(r->height),  TC_KARG(b->mask),     TC_KARG(f->border_value),
        TC_KARG(values),     TC_KARG(b->counts)};
    const tc_kernel_arg rows_args[] = {args[0], args[1], args[2], args[3], args[4],  args[5],
                                       args[6], args[7], args[8], args[9], args[10], args[12]};
    if (tc_kernel_of(ls->job) == TC_KERNEL_ONEPASS_MASK)
        return tc_set_args(ls->kernel, "one_pass_mask_conv", args, 11, m);
    if (tc_kernel_of(ls->job) == TC_KERNEL_TILED_MASK_ROWS)
        return tc_set_args(ls->kernel, "tiled_mask_rows_conv", rows_args,
                           ls->job->count_classes ? 12 : 11, m);
    return tc_set_args(ls->kernel, "tiled_mask_conv", args, ls->job->count_classes ? 13 : 12,
                       m);
}

static int direct_enqueue(launch_state *ls, cl_event events[2], tc_msg *m)
{
    int status = TC_OK;
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(ls->queue, ls->kernel, 2, NULL, ls->global, ls->local, 0,
                                   NULL, &events[0]));
cleanup:
    return status;
}

/* The two passes of rows_transposed_conv differ in every argument, so they are set per pass. */
static int two_pass_set_args(launch_state *ls, tc_msg *m)
{
    (void)ls;
    (void)m;
    return TC_OK;
}

static int two_pass_enqueue(launch_state *ls, cl_event events[2], tc_msg *m)
{
    int status = TC_OK;
    const tc_roi *r = &ls->job->roi;
    const tc_filter_spec *f = &ls->job->filter;
    const tc_buffers *b = ls->buf;
    const int zero = 0;
    /* Pass 2 filters rows that pass 1 already filtered with kx, so a constant border there is
     * the constant filtered by kx. */
    float pass2_value = 0.0f;
    for (int i = 0; i < f->taps_x; i++)
        pass2_value += f->kx[i] * f->border_value;
    /* Pass 1: rows of the sROI, filtered with kx, into tmp transposed (h x w, pitch h). */
    const tc_kernel_arg pass1[] = {
        TC_KARG(ls->src),    TC_KARG(ls->pitch), TC_KARG(r->src_left), TC_KARG(r->src_top),
        TC_KARG(b->tmp),     TC_KARG(r->height), TC_KARG(zero),        TC_KARG(zero),
        TC_KARG(r->width),   TC_KARG(r->height), TC_KARG(b->kx),       TC_KARG(f->border_value)};
    /* Pass 2: rows of tmp (the original columns), filtered with ky, into the tROI transposed
     * back. tmp is a region r->height wide and r->width high. */
    const tc_kernel_arg pass2[] = {
        TC_KARG(b->tmp),     TC_KARG(r->height),   TC_KARG(zero),       TC_KARG(zero),
        TC_KARG(ls->dst),    TC_KARG(ls->pitch),   TC_KARG(r->dst_left), TC_KARG(r->dst_top),
        TC_KARG(r->height),  TC_KARG(r->width),    TC_KARG(b->ky),      TC_KARG(pass2_value)};
    size_t global2[2] = {(size_t)ceil_div(r->height, TC_TWOPASS_TILE) * TC_TWOPASS_TILE,
                         (size_t)ceil_div(r->width, TC_TWOPASS_TILE) * TC_TWOPASS_TILE};
    const int n = (int)(sizeof pass1 / sizeof pass1[0]);

    if ((status = tc_set_args(ls->kernel, "rows_transposed_conv pass 1", pass1, n, m)) != TC_OK)
        return status;
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(ls->queue, ls->kernel, 2, NULL, ls->global, ls->local, 0,
                                   NULL, &events[0]));
    /* An in-order queue: pass 2 starts after pass 1 has finished. Its kernel is built for the
     * column radius (the same program as pass 1's when the radii agree, a kernel object of its
     * own either way). */
    if ((status = tc_set_args(ls->kernel2, "rows_transposed_conv pass 2", pass2, n, m)) != TC_OK)
        return status;
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(ls->queue, ls->kernel2, 2, NULL, global2, ls->local, 0, NULL,
                                   &events[1]));
cleanup:
    return status;
}

/* bilinear (storage.c, Images.cl): pass 1 rows from the source image into the temporary
 * image, pass 2 columns into the target; both the ROI's size. */
static void bilinear_geometry(launch_state *ls)
{
    ls->local[0] = TC_BILINEAR_GROUP_X;
    ls->local[1] = TC_BILINEAR_GROUP_Y;
    tc_bilinear_geometry(&ls->job->roi, ls->global);
}

/* Set per run by tc_bilinear_enqueue, as twopass's. */
static int bilinear_set_args(launch_state *ls, tc_msg *m)
{
    (void)ls;
    (void)m;
    return TC_OK;
}

static int bilinear_enqueue(launch_state *ls, cl_event events[2], tc_msg *m)
{
    return tc_bilinear_enqueue(ls->queue, ls->kernel, ls->kernel2, &ls->buf->images,
                               &ls->job->filter, &ls->job->roi, ls->buf->kx, ls->buf->ky, ls->dst,
                               ls->pitch, ls->local, events, m);
}

static const kernel_desc kernels[] = {
    [TC_KERNEL_TILED] = {TC_SOURCE_FILTERS, 1, tiled_geometry, direct_set_args, direct_enqueue},
    [TC_KERNEL_TILED_LONG] = {TC_SOURCE_LONG, 1, tiled_geometry, direct_set_args,
                              direct_enqueue},
    [TC_KERNEL_TILED_MASK] = {TC_SOURCE_MASKS, 1, tiled_geometry, mask_set_args,
                              direct_enqueue},
    [TC_KERNEL_TWOPASS] = {TC_SOURCE_FILTERS, 2, two_pass_geometry, two_pass_set_args,
                           two_pass_enqueue},
    [TC_KERNEL_ONEPASS] = {TC_SOURCE_FILTERS, 1, one_pass_geometry, direct_set_args,
                           direct_enqueue},
    [TC_KERNEL_ONEPASS_MASK] = {TC_SOURCE_MASKS, 1, one_pass_geometry, mask_set_args,
                                direct_enqueue},
    [TC_KERNEL_BILINEAR] = {TC_SOURCE_IMAGES, 2, bilinear_geometry, bilinear_set_args,
                            bilinear_enqueue},
    [TC_KERNEL_TILED_SLIDE] = {TC_SOURCE_LONG, 1, tiled_geometry, direct_set_args,
                               direct_enqueue},
    [TC_KERNEL_TILED_MASK_ROWS] = {TC_SOURCE_MASKS, 1, tiled_geometry, mask_set_args,
                                   direct_enqueue},
};

/* ---- The steps of a run ---------------------------------------------------------------- */

int tc_check_fits(const tc_device *d, int width, int height, tc_msg *m)
{
    const unsigned long long bytes = (unsigned long long)tc_device_pitch(width) *
                                     (unsigned long long)height * sizeof(float);
    if (bytes > d->info.max_alloc_bytes)
        return tc_fail(m, TC_EINVAL,
                       "a %d x %d plane needs %.1f MB in one buffer, more than the %.1f MB %s "
                       "allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                       width, height, tc_mb(bytes), tc_mb(d->info.max_alloc_bytes),
                       d->info.name);
    if (3 * bytes > d->info.global_mem_bytes)
        return tc_fail(m, TC_EINVAL,
                       "a %d x %d image needs %.1f MB of device memory (input, output and "
                       "temporary planes), more than the %.1f MB %s has "
                       "(CL_DEVICE_GLOBAL_MEM_SIZE)",
                       width, height, tc_mb(3 * bytes), tc_mb(d->info.global_mem_bytes),
                       d->info.name);
    return TC_OK;
}

/* On a CPU device the buffers are host memory, and PoCL aborts the process (an assertion, not
 * an error code) when it cannot back one at first use: so the host's room is checked before
 * `bytes` more are asked for. A reserve is kept for what the platform allocates itself. */
#define CPU_DEVICE_RESERVE (64ULL << 20)
int tc_check_host_room(const tc_device *d, unsigned long long bytes, const char *what,
                       tc_msg *m)
{
    tc_host_room room;
    if (!d->info.is_cpu || bytes == 0)
        return TC_OK;
    tc_host_room_now(&room);
    if (bytes + CPU_DEVICE_RESERVE <= room.bytes)
        return TC_OK;
    return tc_fail(m, TC_ENOMEM,
                   "%s on the CPU device need %.1f MB more of host memory, but %.1f MB is "
                   "available (%s)",
                   what, tc_mb(bytes), tc_mb(room.bytes), room.limit);
}

/* The build options that make this job's program: the radii, the border rule and the
 * geometry of config.h as -D values, and for the tiled kernels on the target's grid the source
 * alignment of the job's ROIs (SHIFT): one program per alignment class, built when first
 * needed. radius_x and radius_y are the job's, but for twopass's pass 2 (the column radius
 * along its rows). */
static void build_options(const launch_state *ls, int radius_x, int radius_y, char *options,
                          size_t size)
{
    const tc_job *job = ls->job;
    const tc_kernel_kind kind = tc_kernel_of(job);
    const int tiled = tc_kernel_is_tiled(kind);
    const tc_variant *v = tiled ? tc_variant_of(job) : NULL;
    char own[200] = "";
    /* For kernel experiments (bench/): extra build options, appended. */
    const char *extra = getenv("TILEDCONV_CL_OPTIONS");
    switch (kernels[kind].source) {
    case TC_SOURCE_LONG:
        if (kind == TC_KERNEL_TILED_SLIDE)
            snprintf(own, sizeof own, "-D SLIDE_W=%d -D SLIDE_S=%d -D SLIDE_CW=%d -D SLIDE_V=%d",
                     ls->tiled.tile_w, ls->tiled.tile_h, v->cols, v->rows);
        else
            snprintf(own, sizeof own,
                     "-D LONG_TILE_W=%d -D LONG_TILE_H=%d -D LONG_UNROLL_LIMIT=%d",
                     ls->tiled.tile_w, ls->tiled.tile_h, TC_LONG_UNROLL_LIMIT);
        break;
    case TC_SOURCE_MASKS:
        snprintf(own, sizeof own,
                 "-D GROUP_X=%d -D GROUP_Y=%d -D ONEPASS_GROUP=%d -D MASK_UNROLL_LIMIT=%d%s",
                 TC_TILED_GROUP_X, TC_TILED_GROUP_Y, TC_ONEPASS_GROUP, TC_MASK_UNROLL_LIMIT,
                 kind == TC_KERNEL_TILED_MASK_ROWS ? " -D TC_MASK_ROWS=1" : "");
        break;
    case TC_SOURCE_IMAGES: /* bilinear's samples per axis (storage.c) */
        tc_bilinear_options(&job->filter, own, sizeof own);
        break;
    default:
        snprintf(own, sizeof own,
                 "-D GROUP_X=%d -D GROUP_Y=%d -D ONEPASS_GROUP=%d -D TWOPASS_TILE=%d "
                 "-D TILED_MAX_TAPS=%d",
                 TC_TILED_GROUP_X, TC_TILED_GROUP_Y, TC_ONEPASS_GROUP, TC_TWOPASS_TILE,
                 TC_TILED_MAX_TAPS);
        break;
    }
    /* A variant's register budget, where the compiler takes one (NVIDIA's). */
    char registers[96] = "";
    if (v && v->max_registers && ls->nv_options)
        snprintf(registers, sizeof registers, " -cl-nv-maxrregcount=%d", v->max_registers);
    if (v && v->options)
        snprintf(registers + strlen(registers), sizeof registers - strlen(registers), " %s",
                 v->options);
    snprintf(options, size,
             "-cl-std=CL1.2 -D RADIUS_X=%d -D RADIUS_Y=%d -D BORDER=%d -D BLOCK_X=%d "
             "-D BLOCK_Y=%d -D TC_VECTOR_IO=%d -D SHIFT=%d %s%s%s%s %s",
             radius_x, radius_y, (int)job->filter.border,
             tiled ? ls->tiled.read_block_x : job->block_x,
             tiled ? ls->tiled.block[1] : tiled_block_y_for(job, radius_y), job->vector_io,
             tiled ? tc_tiled_shift(job) : 0, own,
             job->count_classes && tiled ? " -D TC_COUNT_CLASSES" : "",
             /* The kernels of tiled and onepass reading an image2d_t (Common.cl's SRC_T). */
             kind != TC_KERNEL_BILINEAR && tc_reads_image(job->algorithm, job->storage)
                 ? " -D TC_IMAGE=1"
                 : "",
             registers, extra ? extra : "");
}

/* Refuses a launch the device cannot run, with the reason in words, rather than letting
 * OpenCL fail inside clEnqueueNDRangeKernel with a bare error code. */
static int check_limits(const tc_device *d, cl_kernel kernel, const char *name,
                        const size_t local[2], tc_msg *m)
{
    int status = TC_OK;
    size_t kernel_group = 0;
    cl_ulong kernel_local = 0;
    if (local[0] > d->max_item_sizes[0] || local[1] > d->max_item_sizes[1] ||
        local[0] * local[1] > d->max_group_size)
        return tc_fail(m, TC_EDEVICE,
                       "%s needs work-groups of %zu x %zu, but %s allows at most %zu "
                       "work-items (%zu x %zu)",
                       name, local[0], local[1], d->info.name, d->max_group_size,
                       d->max_item_sizes[0], d->max_item_sizes[1]);
    CL_CALL(status, cleanup, m,
            clGetKernelWorkGroupInfo(kernel, d->device, CL_KERNEL_WORK_GROUP_SIZE,
                                     sizeof kernel_group, &kernel_group, NULL));
    CL_CALL(status, cleanup, m,
            clGetKernelWorkGroupInfo(kernel, d->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                     sizeof kernel_local, &kernel_local, NULL));
    if (local[0] * local[1] > kernel_group)
        return tc_fail(m, TC_EDEVICE,
                       "%s needs %zu work-items per group, but %s can run it with at most %zu "
                       "(register or resource limit)",
                       name, local[0] * local[1], d->info.name, kernel_group);
    if (kernel_local > d->info.local_mem_bytes)
        return tc_fail(m, TC_EDEVICE, "%s needs %llu bytes of local memory, %s has %llu", name,
                       (unsigned long long)kernel_local, d->info.name,
                       (unsigned long long)d->info.local_mem_bytes);
cleanup:
    return status;
}

/* Whether the device's compiler takes NVIDIA's -cl-nv-* options (cl_nv_compiler_options). */
static int has_nv_options(const tc_device *d)
{
    char extensions[8192] = "";
    if (clGetDeviceInfo(d->device, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions,
                        NULL) != CL_SUCCESS)
        return 0; /* a longer list than the buffer: no such option is passed */
    return strstr(extensions, "cl_nv_compiler_options") != NULL;
}

/* One kernel from the program for these options (built now or cached). */
static int get_kernel(const tc_device *d, tc_program_cache *programs, tc_source source,
                      const char *options, const char *name, cl_kernel *kernel,
                      double *build_ms, tc_msg *m)
{
    cl_program program;
    cl_int err;
    int status = tc_program_get(programs, d, source, options, &program, build_ms, m);
    if (status != TC_OK)
        return status;
    *kernel = clCreateKernel(program, name, &err);
    if (err != CL_SUCCESS)
        return cl_fail(m, err, "clCreateKernel");
    return TC_OK;
}

int tc_check_launch(const tc_device *d, cl_kernel kernel, const char *name,
                    const size_t local[2], tc_msg *m)
{
    return check_limits(d, kernel, name, local, m);
}

/* The job's kernel (and the second pass's of twopass and bilinear), from its program, checked
 * against the device. */
static int prepare_kernel(const tc_device *d, tc_program_cache *programs, const tc_job *job,
                          launch_state *ls, double *build_ms, tc_msg *m)
{
    const tc_kernel_kind kind = tc_kernel_of(job);
    const char *name = tc_kernel_name(kind);
    const int rx = radius_x(job), ry = radius_y(job);
    char options[1024];
    double more_ms = 0.0;
    int status;
    ls->nv_options = has_nv_options(d);
    build_options(ls, rx, ry, options, sizeof options);
    if ((status = get_kernel(d, programs, kernels[kind].source, options, name, &ls->kernel,
                             build_ms, m)) != TC_OK)
        return status;
    if (kind == TC_KERNEL_TWOPASS) {
        /* Pass 2 filters the columns as rows: its program has the column radius along rows. */
        build_options(ls, ry, rx, options, sizeof options);
        if ((status = get_kernel(d, programs, TC_SOURCE_FILTERS, options, name, &ls->kernel2,
                                 &more_ms, m)) != TC_OK)
            return status;
        *build_ms += more_ms;
        if ((status = check_limits(d, ls->kernel2, tc_algorithm_name(job->algorithm),
                                   ls->local, m)) != TC_OK)
            return status;
    } else if (kind == TC_KERNEL_BILINEAR) {
        /* Pass 2, from the same program (cached by now). */
        if ((status = get_kernel(d, programs, TC_SOURCE_IMAGES, options, "bilinear_cols",
                                 &ls->kernel2, &more_ms, m)) != TC_OK)
            return status;
        *build_ms += more_ms;
        if ((status = check_limits(d, ls->kernel2, "bilinear pass 2", ls->local, m)) != TC_OK)
            return status;
    }
    return check_limits(d, ls->kernel, tc_algorithm_name(job->algorithm), ls->local, m);
}

int tc_ensure_buffer(const tc_device *d, cl_mem *mem, size_t *capacity, size_t bytes,
                         cl_mem_flags flags, const char *what, tc_msg *m)
{
    cl_int err;
    if (*mem && *capacity >= bytes)
        return TC_OK;
    if (*mem)
        clReleaseMemObject(*mem);
    *capacity = 0;
    *mem = clCreateBuffer(d->context, flags, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        *mem = NULL;
        return cl_fail(m, err, what);
    }
    *capacity = bytes;
    return TC_OK;
}

/* A buffer whose size never changes, made on first use. */
static int ensure_fixed(const tc_device *d, cl_mem *mem, size_t bytes, cl_mem_flags flags,
                        const char *what, tc_msg *m)
{
    size_t capacity = *mem ? bytes : 0;
    return tc_ensure_buffer(d, mem, &capacity, bytes, flags, what, m);
}

/* The buffers every run needs besides its planes. */
static int ensure_buffers(const tc_device *d, tc_buffers *b, const tc_job *job, tc_msg *m)
{
    const size_t coeff_bytes = TC_MAX_TAPS * sizeof(float);
    const size_t tmp_bytes = (size_t)job->roi.width * (size_t)job->roi.height * sizeof(float);
    int status;
    if (job->algorithm == TC_TWOPASS &&
        (status = tc_check_host_room(d, tc_new_bytes(b->tmp_bytes, tmp_bytes),
                                     "the two-pass temporary", m)) != TC_OK)
        return status;
    if ((status = ensure_fixed(d, &b->kx, coeff_bytes, CL_MEM_READ_ONLY, "clCreateBuffer(kx)",
                               m)) != TC_OK ||
        (status = ensure_fixed(d, &b->ky, coeff_bytes, CL_MEM_READ_ONLY, "clCreateBuffer(ky)",
                               m)) != TC_OK ||
        (status = ensure_fixed(d, &b->mask, TC_MAX_MASK_TAPS * sizeof(float),
                               CL_MEM_READ_ONLY, "clCreateBuffer(mask)", m)) != TC_OK ||
        (status = ensure_fixed(d, &b->counts, 4 * sizeof(cl_int), CL_MEM_READ_WRITE,
                               "clCreateBuffer(class counts)", m)) != TC_OK)
        return status;
    if (job->algorithm == TC_TWOPASS)
        return tc_ensure_buffer(d, &b->tmp, &b->tmp_bytes, tmp_bytes, CL_MEM_READ_WRITE,
                             "clCreateBuffer(two-pass temporary)", m);
    return TC_OK;
}

void tc_buffers_release(tc_buffers *b)
{
    cl_mem *mems[] = {&b->counts, &b->mask, &b->tmp, &b->ky, &b->kx, &b->dst, &b->src};
    tc_image_buffers_release(&b->images);
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    free(b->staging);
    memset(b, 0, sizeof *b);
}

/* The host copy of a plane with the device's row pitch (zeros in the padding), kept between
 * runs. Padded rows go through it rather than clEnqueueWriteBufferRect: the same bytes, and
 * oclgrind, which checks the kernels for reads of uninitialised memory, does not count a
 * rectangle write as initialising. */
static float *staging_for(tc_buffers *b, size_t plane_bytes)
{
    if (b->staging_bytes < plane_bytes) {
        free(b->staging);
        b->staging_bytes = 0;
        if (!(b->staging = malloc(plane_bytes)))
            return NULL;
        b->staging_bytes = plane_bytes;
    }
    memset(b->staging, 0, plane_bytes);
    return b->staging;
}

/* The input plane to the device; the output plane starts as the input (SPEC.md: pixels
 * outside the tROI keep it), by a device copy rather than a second upload. */
static int upload_plane(cl_command_queue queue, tc_buffers *b, const tc_plane *in, int pitch,
                        size_t plane_bytes, cl_event *event, tc_msg *m)
{
    int status = TC_OK;
    const float *host = in->px;
    if (pitch != in->width) {
        float *staging = staging_for(b, plane_bytes);
        if (!staging)
            return tc_fail(m, TC_ENOMEM, "out of host memory for the padded plane (%zu bytes)",
                           plane_bytes);
        for (int y = 0; y < in->height; y++)
            memcpy(staging + (size_t)y * pitch, in->px + (size_t)y * in->width,
                   (size_t)in->width * sizeof(float));
        host = staging;
    }
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(queue, b->src, CL_FALSE, 0, plane_bytes, host, 0, NULL, event));
    CL_CALL(status, cleanup, m,
            clEnqueueCopyBuffer(queue, b->src, b->dst, 0, 0, plane_bytes, 0, NULL, NULL));
cleanup:
    return status;
}

/* The coefficients (and a mask's weights) to the device, and the class counts zeroed when
 * the kernel counts. */
static int upload_coefficients(const launch_state *ls, cl_event events[3], tc_msg *m)
{
    int status = TC_OK;
    const tc_filter_spec *f = &ls->job->filter;
    const tc_buffers *b = ls->buf;
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(ls->queue, b->kx, CL_FALSE, 0, sizeof f->kx, f->kx, 0, NULL,
                                 &events[0]));
    CL_CALL(status, cleanup, m,
            clEnqueueWriteBuffer(ls->queue, b->ky, CL_FALSE, 0, sizeof f->ky, f->ky, 0, NULL,
                                 &events[1]));
    if (f->mask_width && !f->mask_separable)
        CL_CALL(status, cleanup, m,
                clEnqueueWriteBuffer(ls->queue, b->mask, CL_FALSE, 0,
                                     (size_t)f->mask_width * (size_t)f->mask_height *
                                         sizeof(float),
                                     f->mask, 0, NULL, &events[2]));
    if (ls->job->count_classes) {
        const cl_int zero = 0;
        CL_CALL(status, cleanup, m,
                clEnqueueFillBuffer(ls->queue, b->counts, &zero, sizeof zero, 0,
                                    4 * sizeof zero, 0, NULL, NULL));
    }
cleanup:
    return status;
}

/* The warm-up runs, then the timed runs back to back: the kernel times come from each
 * kernel's own profiling counters; the host's wall clock around the timed runs gives the
 * time per iteration with the launches, which is what small images are limited by.
 * events[2 * i + p] is pass p of run i, warm-up runs first. */
static int run_all(launch_state *ls, int warmup, int iterations, cl_event *events,
                   double *wall_ms_per_iteration, tc_msg *m)
{
    const kernel_desc *a = &kernels[tc_kernel_of(ls->job)];
    int status = TC_OK;
    for (int i = 0; i < warmup; i++)
        if ((status = a->enqueue(ls, &events[2 * i], m)) != TC_OK)
            return status;
    CL_CALL(status, cleanup, m, clFinish(ls->queue));
    const double wall0 = tc_wall_ms();
    for (int i = warmup; i < warmup + iterations; i++)
        if ((status = a->enqueue(ls, &events[2 * i], m)) != TC_OK)
            return status;
    CL_CALL(status, cleanup, m, clFinish(ls->queue));
    *wall_ms_per_iteration = (tc_wall_ms() - wall0) / iterations;
cleanup:
    return status;
}

/* The output plane back to the host, through the staging copy when rows are padded. */
static int download_plane(cl_command_queue queue, tc_buffers *b, tc_plane *out, int pitch,
                          size_t plane_bytes, cl_event *event, tc_msg *m)
{
    int status = TC_OK;
    const int padded = pitch != out->width;
    CL_CALL(status, cleanup, m,
            clEnqueueReadBuffer(queue, b->dst, CL_TRUE, 0, plane_bytes,
                                padded ? (void *)b->staging : (void *)out->px, 0, NULL, event));
    if (padded)
        for (int y = 0; y < out->height; y++)
            memcpy(out->px + (size_t)y * out->width, b->staging + (size_t)y * pitch,
                   (size_t)out->width * sizeof(float));
cleanup:
    return status;
}

/* The times of the finished runs, and the class counts the kernel made. */
static int collect(const launch_state *ls, const cl_event *events, int warmup,
                   const cl_event upload_events[3], tc_run_stats *stats, tc_msg *m)
{
    const int passes = kernels[tc_kernel_of(ls->job)].passes;
    int status = TC_OK;
    double ms;
    for (int i = 0; i < 3 && upload_events[i]; i++) {
        if ((status = tc_event_ms(upload_events[i], &ms, m)) != TC_OK)
            return status;
        stats->h2d_ms += ms;
    }
    for (int i = 0; i < stats->iterations; i++) {
        stats->kernel_ms[i] = 0.0;
        for (int p = 0; p < passes; p++) {
            if ((status = tc_event_ms(events[2 * (warmup + i) + p], &ms, m)) != TC_OK)
                return status;
            if (passes == 2)
                stats->pass_ms[p][i] = ms;
            stats->kernel_ms[i] += ms;
        }
    }
    if (ls->job->count_classes && tc_kernel_is_tiled(tc_kernel_of(ls->job))) {
        /* Every run (warm-up and timed) counted each group once. */
        cl_int counts[4];
        CL_CALL(status, cleanup, m,
                clEnqueueReadBuffer(ls->queue, ls->buf->counts, CL_TRUE, 0, sizeof counts,
                                    counts, 0, NULL, NULL));
        for (int i = 0; i < 4; i++)
            stats->classes[i] = counts[i] / (warmup + stats->iterations);
        stats->classes_counted = 1;
    }
cleanup:
    return status;
}

/* The statistics' arrays and what is known before the run: the geometry and the classes. */
static int stats_begin(tc_run_stats *stats, const launch_state *ls, int iterations, tc_msg *m)
{
    const tc_job *job = ls->job;
    const int passes = kernels[tc_kernel_of(job)].passes;
    memset(stats, 0, sizeof *stats);
    stats->iterations = iterations;
    stats->kernel_ms = calloc((size_t)iterations, sizeof(double));
    if (passes == 2) {
        stats->pass_ms[0] = calloc((size_t)iterations, sizeof(double));
        stats->pass_ms[1] = calloc((size_t)iterations, sizeof(double));
    }
    if (!stats->kernel_ms || (passes == 2 && (!stats->pass_ms[0] || !stats->pass_ms[1])))
        return tc_fail(m, TC_ENOMEM, "out of host memory for %d iterations", iterations);
    memcpy(stats->global, ls->global, sizeof stats->global);
    memcpy(stats->local, ls->local, sizeof stats->local);
    if (tc_kernel_is_tiled(tc_kernel_of(job))) {
        tc_tiled_classes(job, ls->local_mem, stats->classes);
        stats->block[0] = ls->tiled.block[0];
        stats->block[1] = ls->tiled.block[1];
    }
    return TC_OK;
}

void tc_run_stats_free(tc_run_stats *stats)
{
    free(stats->kernel_ms);
    free(stats->pass_ms[0]);
    free(stats->pass_ms[1]);
    memset(stats, 0, sizeof *stats);
}

int tc_launch_prepare(const tc_device *d, tc_program_cache *programs, const tc_job *job,
                      cl_mem src, cl_mem dst, int width, tc_launch *l, double *build_ms,
                      tc_msg *m)
{
    const kernel_desc *a = &kernels[tc_kernel_of(job)];
    cl_event upload_events[3] = {NULL, NULL, NULL};
    launch_state ls;
    int status;

    memset(l, 0, sizeof *l);
    if (a->passes != 1)
        return tc_fail(m, TC_EINVAL, "%s: a prepared launch takes one pass",
                       tc_algorithm_name(job->algorithm));
    memset(&ls, 0, sizeof ls);
    ls.job = job;
    ls.buf = &l->coeffs;
    ls.src = src;
    ls.dst = dst;
    ls.queue = d->queue;
    ls.pitch = tc_device_pitch(width);
    ls.local_mem = d->info.local_mem_bytes;
    if (tc_kernel_is_tiled(tc_kernel_of(job)))
        tc_tiled_geometry_of(job, ls.local_mem, &ls.tiled);
    a->geometry(&ls);
    if ((status = prepare_kernel(d, programs, job, &ls, build_ms, m)) == TC_OK &&
        (status = ensure_buffers(d, &l->coeffs, job, m)) == TC_OK &&
        (status = upload_coefficients(&ls, upload_events, m)) == TC_OK &&
        (status = a->set_args(&ls, m)) == TC_OK)
        /* The writes read the job's coefficients, which the caller may drop after this. */
        CL_CALL(status, cleanup, m, clFinish(d->queue));
cleanup:
    for (int i = 2; i >= 0; i--)
        if (upload_events[i])
            clReleaseEvent(upload_events[i]);
    l->kernel = ls.kernel;
    l->queue = d->queue;
    memcpy(l->global, ls.global, sizeof l->global);
    memcpy(l->local, ls.local, sizeof l->local);
    if (status != TC_OK)
        tc_launch_release(l);
    return status;
}

int tc_launch_enqueue(tc_launch *l, cl_event *event, tc_msg *m)
{
    int status = TC_OK;
    CL_CALL(status, cleanup, m,
            clEnqueueNDRangeKernel(l->queue, l->kernel, 2, NULL, l->global, l->local, 0, NULL,
                                   event));
cleanup:
    return status;
}

void tc_launch_release(tc_launch *l)
{
    if (l->kernel)
        clReleaseKernel(l->kernel);
    tc_buffers_release(&l->coeffs);
    memset(l, 0, sizeof *l);
}

int tc_run_resident(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                    const tc_job *job, cl_mem src, cl_mem dst, int width, int height,
                    int warmup, int iterations, tc_run_stats *stats, tc_msg *m)
{
    const kernel_desc *a = &kernels[tc_kernel_of(job)];
    const int runs = warmup + iterations;
    cl_event upload_events[3] = {NULL, NULL, NULL};
    cl_event image_copy = NULL;
    cl_event *events = NULL; /* 2 per run: the warm-up runs, then the timed ones */
    const int reads_image = tc_reads_image(job->algorithm, job->storage);
    launch_state ls;
    double ms;
    int status;

    memset(&ls, 0, sizeof ls);
    ls.job = job;
    ls.buf = buffers;
    ls.src = src;
    ls.dst = dst;
    ls.queue = d->queue;
    ls.pitch = tc_device_pitch(width);
    ls.local_mem = d->info.local_mem_bytes;
    if (tc_kernel_is_tiled(tc_kernel_of(job)))
        tc_tiled_geometry_of(job, ls.local_mem, &ls.tiled);
    a->geometry(&ls);
    memset(stats, 0, sizeof *stats);
    if ((status = tc_images_check(d, job->algorithm, job->storage, width, height, &job->roi,
                                  m)) != TC_OK ||
        (reads_image &&
         (status = tc_check_host_room(d, tc_images_new_bytes(&buffers->images, job->algorithm,
                                                             ls.pitch, height, &job->roi),
                                      "the images", m)) != TC_OK) ||
        (status = stats_begin(stats, &ls, iterations, m)) != TC_OK)
        goto cleanup;
    if (!(events = calloc((size_t)runs * 2, sizeof *events))) {
        status = tc_fail(m, TC_ENOMEM, "out of host memory for %d runs", runs);
        goto cleanup;
    }
    if ((status = prepare_kernel(d, programs, job, &ls, &stats->build_ms, m)) != TC_OK ||
        (status = ensure_buffers(d, buffers, job, m)) != TC_OK)
        goto cleanup;
    /* An image run reads a copy of the source plane in an image (timed as part of the
     * upload); the kernels take it where they would take the buffer. */
    if (reads_image) {
        if ((status = tc_images_source(d, &buffers->images, src, ls.pitch, height, &image_copy,
                                       m)) != TC_OK ||
            (job->algorithm == TC_BILINEAR &&
             (status = tc_bilinear_prepare(d, &buffers->images, &job->filter, &job->roi, m)) !=
                 TC_OK))
            goto cleanup;
        ls.src = buffers->images.src;
    }
    if ((status = upload_coefficients(&ls, upload_events, m)) != TC_OK ||
        (status = a->set_args(&ls, m)) != TC_OK ||
        (status = run_all(&ls, warmup, iterations, events, &stats->wall_ms_per_iteration, m)) !=
            TC_OK ||
        (status = collect(&ls, events, warmup, upload_events, stats, m)) != TC_OK)
        goto cleanup;
    if (image_copy) {
        if ((status = tc_event_ms(image_copy, &ms, m)) != TC_OK)
            goto cleanup;
        stats->h2d_ms += ms;
    }

cleanup:
    if (status != TC_OK) {
        /* A failed run may leave work queued that refers to the buffers. */
        clFinish(d->queue);
        tc_run_stats_free(stats);
    }
    if (events)
        for (int i = 0; i < 2 * runs; i++)
            if (events[i])
                clReleaseEvent(events[i]);
    free(events);
    for (int i = 2; i >= 0; i--)
        if (upload_events[i])
            clReleaseEvent(upload_events[i]);
    if (image_copy)
        clReleaseEvent(image_copy);
    if (ls.kernel2)
        clReleaseKernel(ls.kernel2);
    if (ls.kernel)
        clReleaseKernel(ls.kernel);
    return status;
}

int tc_run(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
           const tc_job *job, const tc_plane *in, tc_plane *out, int warmup, int iterations,
           tc_run_stats *stats, tc_msg *m)
{
    /* Rows start on a 128-byte boundary on the device, so that the tiled kernel's float4
     * paths serve any image width, 8191 as well as 8192. */
    const int pitch = tc_device_pitch(in->width);
    const size_t plane_bytes = (size_t)pitch * (size_t)in->height * sizeof(float);
    cl_event upload = NULL, download = NULL;
    double ms;
    int status;

    memset(stats, 0, sizeof *stats);
    /* A device that cannot take the images is found before any plane is made. */
    if ((status = tc_images_check(d, job->algorithm, job->storage, in->width, in->height,
                                  &job->roi, m)) != TC_OK ||
        (status = tc_check_fits(d, in->width, in->height, m)) != TC_OK ||
        (status = tc_check_host_room(d, tc_new_bytes(buffers->src_bytes, plane_bytes) +
                                            tc_new_bytes(buffers->dst_bytes, plane_bytes) +
                                            (pitch != in->width
                                                 ? tc_new_bytes(buffers->staging_bytes,
                                                                plane_bytes)
                                                 : 0),
                                        "the image's planes", m)) != TC_OK ||
        /* Read-write: the pixel path (pixels.c) forms its planes in the same buffer. */
        (status = tc_ensure_buffer(d, &buffers->src, &buffers->src_bytes, plane_bytes,
                                CL_MEM_READ_WRITE, "clCreateBuffer(input plane)", m)) != TC_OK ||
        (status = tc_ensure_buffer(d, &buffers->dst, &buffers->dst_bytes, plane_bytes,
                                CL_MEM_READ_WRITE, "clCreateBuffer(output plane)", m)) != TC_OK ||
        (status = upload_plane(d->queue, buffers, in, pitch, plane_bytes, &upload, m)) != TC_OK)
        goto cleanup;
    if ((status = tc_run_resident(d, programs, buffers, job, buffers->src, buffers->dst,
                                  in->width, in->height, warmup, iterations, stats, m)) != TC_OK)
        goto cleanup;
    if ((status = download_plane(d->queue, buffers, out, pitch, plane_bytes, &download, m)) !=
            TC_OK ||
        (status = tc_event_ms(upload, &ms, m)) != TC_OK)
        goto cleanup;
    stats->h2d_ms += ms;
    status = tc_event_ms(download, &stats->d2h_ms, m);

cleanup:
    if (status != TC_OK) {
        clFinish(d->queue);
        tc_run_stats_free(stats);
    }
    if (download)
        clReleaseEvent(download);
    if (upload)
        clReleaseEvent(upload);
    return status;
}

/* ---- Figures ---------------------------------------------------------------------------- */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tc_median(const double *values, int count)
{
    double *sorted = count > 0 ? malloc((size_t)count * sizeof *sorted) : NULL;
    double med;
    if (!sorted)
        return -1.0;
    memcpy(sorted, values, (size_t)count * sizeof *sorted);
    qsort(sorted, (size_t)count, sizeof *sorted, compare_double);
    med = count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
    free(sorted);
    return med;
}

int tc_copy_ms(const tc_device *d, size_t bytes, int repeats, double *median_ms, tc_msg *m)
{
    int status = TC_OK;
    cl_int err;
    cl_mem a = NULL, b = NULL;
    cl_event *events = calloc((size_t)repeats + 1, sizeof *events);
    double *ms = calloc((size_t)repeats, sizeof *ms);
    const float pattern = 1.0f;
    if (!events || !ms) {
        status = tc_fail(m, TC_ENOMEM, "out of host memory for %d copies", repeats);
        goto cleanup;
    }
    if ((status = tc_check_host_room(d, 2ULL * bytes, "the copy floor's two buffers", m)) !=
        TC_OK)
        goto cleanup;
    a = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CL_CHECK(status, cleanup, m, err, "clCreateBuffer(copy source)");
    b = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CL_CHECK(status, cleanup, m, err, "clCreateBuffer(copy target)");
    /* Filled, so that no implementation can skip pages it never backed. */
    CL_CALL(status, cleanup, m,
            clEnqueueFillBuffer(d->queue, a, &pattern, sizeof pattern, 0, bytes, 0, NULL, NULL));
    for (int i = 0; i <= repeats; i++)
        CL_CALL(status, cleanup, m,
                clEnqueueCopyBuffer(d->queue, a, b, 0, 0, bytes, 0, NULL, &events[i]));
    CL_CALL(status, cleanup, m, clFinish(d->queue));
    for (int i = 0; i < repeats; i++)
        if ((status = tc_event_ms(events[i + 1], &ms[i], m)) != TC_OK)
            goto cleanup;
    *median_ms = tc_median(ms, repeats);
cleanup:
    if (events)
        for (int i = 0; i <= repeats; i++)
            if (events[i])
                clReleaseEvent(events[i]);
    free(events);
    free(ms);
    if (b)
        clReleaseMemObject(b);
    if (a)
        clReleaseMemObject(a);
    return status;
}
