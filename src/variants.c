/*
 * variants.c - the variants of the tiled kernel and the kernel each job runs (variants.h).
 */
#include "variants.h"

#include <stdio.h>
#include <string.h>

#include "config.h"

TC_API const char *tc_algorithm_name(tc_algorithm a)
{
    static const char *const names[] = {"tiled", "twopass", "onepass", "bilinear"};
    return (int)a >= 0 && a <= TC_BILINEAR ? names[a] : "?";
}

/* ---- The tiled kernel's variants for long filters and large masks ------------------------- */

/*
 * Every variant the tiled algorithm can run for a filter beyond the article's lengths, by
 * name (--kernel NAME, tc_params.kernel). The slide variants are tiled_slide_conv (Long.cl)
 * with the geometry of their row: a work-group walks down a strip tile_w columns wide, tile_h
 * rows at a step (its tiles), filtering each step's rows horizontally in jobs of job_w outputs
 * and then every output column vertically, each work-item a block of cols x rows outputs; the
 * strip is about strip_radii vertical radii tall (tiled_geometry.c's slide_strip_h). The mrows
 * variants are tiled_mask_rows_conv (Masks.cl), a work-item a block of tile_w x tile_h
 * outputs. Local memory and registers per variant at 63 taps: docs/kernels.md, "Long filters
 * and masks: the tiled variants".
 */
#define SLIDE(w, s, j, c, r) .kind = TC_KERNEL_TILED_SLIDE, .tile_w = w, .tile_h = s, \
                             .job_w = j, .cols = c, .rows = r, .strip_radii = 16
static const tc_variant variants[] = {
    {.name = "tiled", .kind = TC_KERNEL_TILED,
     .about = "tiled_conv: the article's 32-column tiles, up to 15 taps an axis"},
    {.name = "long", .kind = TC_KERNEL_TILED_LONG,
     .about = "tiled_long_conv: tiles of 32 x 256 and their halo rows filtered into local "
              "memory, then one column of 32 a work-item"},
    {.name = "long-lean", .kind = TC_KERNEL_TILED_LONG, .options = "-D TC_LONG_LEAN=1",
     .about = "the same, the read windows that cross the sROI's left or right edge mapped "
              "pixel by pixel in a loop kept rolled"},
    {.name = "long-ahead", .kind = TC_KERNEL_TILED_LONG, .options = "-D TC_LONG_PREFETCH=1",
     .max_registers = 80, /* 64 doubles its time at 29-33 taps (docs/benchmarks.md) */
     .about = "long, each work-item's next row job's read window loaded while its current "
              "job is multiplied"},
    {.name = "long-wide", .kind = TC_KERNEL_TILED_LONG, .job_w = TC_LONG_WIDE_JOB_W,
     .about = "long with jobs of 16 outputs along rows (long's are 8)"},
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
    {.name = "rows", .kind = TC_KERNEL_TILED_ROWS,
     .about = "tiled_rows_conv: rows only (1 tap along columns), 32 rows of a tile 256 wide "
              "staged in local memory, a row's 32 outputs a work-item"},
    {.name = "split", .kind = TC_KERNEL_TILED_SPLIT,
     .about = "tiled_rows_conv into a plane of the ROI's size, then tiled_long_conv along "
              "columns: two passes, the rows staged in local memory"},
    {.name = "mask", .kind = TC_KERNEL_TILED_MASK,
     .about = "tiled_mask_conv: the article's groups, every source row of a block read once, "
              "every product unrolled"},
    /* The mrows variants under 128 registers: their class-2 windows (Masks.cl's
     * TC_MASK_ROWS_WINDOW) take 140-168 uncapped with the mirror borders and wrap, eight
     * groups an SM become six, and 9 x 9 to 15 x 15 masks took 1.10-1.16x the time they take
     * under 128 (bench/split/mask-edges.cases; replicate and constant
     * 0.99-1.03x, already at 126-128). */
    {.name = "mrows-8x4", .kind = TC_KERNEL_TILED_MASK_ROWS, .tile_w = 8, .tile_h = 4,
     .max_registers = 128,
     .about = "tiled_mask_rows_conv: blocks of 8 x 4, a loop over source rows"},
    {.name = "mrows-4x8", .kind = TC_KERNEL_TILED_MASK_ROWS, .tile_w = 4, .tile_h = 8,
     .max_registers = 128, .about = "tiled_mask_rows_conv: blocks of 4 x 8"},
    {.name = "mrows-8x8", .kind = TC_KERNEL_TILED_MASK_ROWS, .tile_w = 8, .tile_h = 8,
     .max_registers = 128, .about = "tiled_mask_rows_conv: blocks of 8 x 8"},
    {.name = "mrows-8x8-ahead", .kind = TC_KERNEL_TILED_MASK_ROWS, .tile_w = 8, .tile_h = 8,
     .options = "-D TC_MASK_PREFETCH=1", .max_registers = 128,
     .about = "the same, each source row's window read while the row before it is multiplied"},
    /* Blocks of 8 x 4 (32 sums) fit 64 registers: four warps more an SM. With the folded edge
     * windows of the mirror borders and wrap it spills (1.4-1.6x mrows-8x8-ahead's time at
     * 9 x 9 and 11 x 11), so it is the default with replicate and constant alone. */
    {.name = "mrows-8x4-r64", .kind = TC_KERNEL_TILED_MASK_ROWS, .tile_w = 8, .tile_h = 4,
     .max_registers = 64,
     .about = "mrows-8x4 under 64 registers (9 x 9 and 11 x 11 masks with replicate and constant)"},
};
#undef SLIDE
#define VARIANT_COUNT ((int)(sizeof variants / sizeof variants[0]))

/*
 * The default variant per band of lengths: the first row whose bound is at least the
 * filter's longer axis (a mask's larger side), but for the long rows of separable_by_rows.
 * Choosing another default for a band is a change of one name here; the bands are those
 * bench/roofline.sh measures every variant on.
 */
static const struct {
    int max_taps;
    const char *variant;
} separable_defaults[] = {
    {9, "tiled"},  /* 3 .. 9: the article's kernel, tuned for every ROI (not to be changed) */
    {15, "tiled"}, /* 11 .. 15 (long_bands' choice when the rows have 11 or more) */
    {21, "long"},  /* 17 .. 21 */
    {41, "long"},  /* 23 .. 41 */
    {63, "long"},  /* 43 .. 63 */
};
/*
 * Separable filters with long rows leave the table above, by their rows' length and border:
 * one tap along columns from TC_ROWS_MIN_TAPS along rows runs rows; more than one, from
 * TC_LONG_BANDS_FROM, the variant of the first row below for the border whose bound is at least
 * the rows' length. tiled_long_conv runs under a register budget on NVIDIA's compiler
 * (config.h's TC_LONG_BUDGETS) with its coefficients by value, which took away the jumps in its
 * time that the border's edge reads had made and the bands where long-lean, long-ahead and
 * long-wide had beaten it, and then split's from 47 to 63 taps (docs/kernels.md, "The bands",
 * has the measurements and bench/split/ their cases). At 11 taps the
 * mirror borders keep tiled_conv. The columns' length does not choose.
 */
#define TC_LONG_BANDS_FROM 11
static const struct {
    tc_border border;
    int max_taps;
    const char *variant;
} long_bands[] = {
    {TC_BORDER_REPLICATE, 63, "long"},      /* 0.82-0.98x tiled's time at 11-15 */
    {TC_BORDER_CONSTANT, 63, "long"},
    {TC_BORDER_REFLECT, 11, "tiled"},
    {TC_BORDER_REFLECT, 63, "long"},
    {TC_BORDER_REFLECT101, 11, "tiled"},
    {TC_BORDER_REFLECT101, 63, "long"},
    {TC_BORDER_WRAP, 63, "long"},
};
static const char *separable_by_rows(const tc_filter_spec *f)
{
    if (f->taps_y == 1)
        return f->taps_x >= TC_ROWS_MIN_TAPS ? "rows" : NULL;
    if (f->taps_x < TC_LONG_BANDS_FROM)
        return NULL;
    for (size_t i = 0; i < sizeof long_bands / sizeof long_bands[0]; i++)
        if (long_bands[i].border == f->border && f->taps_x <= long_bands[i].max_taps)
            return long_bands[i].variant;
    return NULL;
}

typedef struct {
    int max_size; /* the mask's larger side */
    const char *variant;
} mask_band;

/* Masks with the mirror borders and wrap (their edge windows folded, Masks.cl). */
static const mask_band mask_defaults[] = {
    {7, "mask"},        /* 3 x 3 .. 7 x 7: the article's groups, unrolled (7 x 7: 81.6 % of
                         * the roofline on the GPU machine, mrows 61-65 %; docs/benchmarks.md) */
    {11, "mrows-8x8-ahead"}, /* 9 x 9, 11 x 11: the next row's window in flight during the
                              * products (under the budget of 128, bench/split/mask-budgets.cases:
                              * 0.94-0.97x mrows-8x8's time at both; at 13 x 13 0.99x with
                              * replicate, 1.05x with reflect101) */
    {15, "mrows-8x8"},  /* 13 x 13, 15 x 15: a window read once feeds a block's rows (15 x 15:
                         * 76 % of the roofline on the GPU machine against the unrolled kernel's
                         * 47 %; docs/benchmarks.md) */
};
/* With replicate and constant, whose edge windows Masks.cl reads unrolled without a fold: 9 x 9
 * and 11 x 11 on mrows-8x4-r64, 0.90-0.96x mrows-8x8-ahead's time (gray and colour 8192^2,
 * gray 16384^2: bench/split/mask-rows-8x4.cases); at 13 x 13 it was 0.99-1.05x mrows-8x8's. */
static const mask_band mask_defaults_unfolded[] = {
    {7, "mask"}, {11, "mrows-8x4-r64"}, {15, "mrows-8x8"}};

#define MASK_BANDS(table) (sizeof table / sizeof table[0])

/* The variant of the first band whose bound is at least size. */
static const char *mask_band_variant(const mask_band *bands, size_t count, int size)
{
    for (size_t i = 0; i < count; i++)
        if (size <= bands[i].max_size)
            return bands[i].variant;
    return NULL;
}

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
    if (v->kind == TC_KERNEL_TILED_ROWS && f->taps_y != 1)
        return "filters rows only (1 tap along columns)";
    if (v->kind == TC_KERNEL_TILED_SPLIT && (f->taps_x == 1 || f->taps_y == 1))
        return "takes more than 1 tap along each axis (rows or long take the others)";
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
        const int unfolded = f->border == TC_BORDER_REPLICATE || f->border == TC_BORDER_CONSTANT;
        name = unfolded ? mask_band_variant(mask_defaults_unfolded,
                                            MASK_BANDS(mask_defaults_unfolded), size)
                        : mask_band_variant(mask_defaults, MASK_BANDS(mask_defaults), size);
    } else {
        const int taps = max_int(f->taps_x, f->taps_y);
        name = separable_by_rows(f);
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

tc_kernel_kind tc_kernel_deciding(const tc_job *job)
{
    if (job->algorithm == TC_TILED)
        return tc_variant_of(job)->kind;
    return tc_kernel_for(&job->filter, job->algorithm);
}

void tc_job_decide(tc_job *job)
{
    job->kernel = tc_kernel_deciding(job);
}

const char *tc_kernel_name(tc_kernel_kind kind)
{
    static const char *const names[] = {"tiled_conv",     "tiled_long_conv",
                                        "tiled_mask_conv", "rows_transposed_conv",
                                        "one_pass_conv",  "one_pass_mask_conv",
                                        "bilinear_rows",  "tiled_slide_conv",
                                        "tiled_mask_rows_conv", "tiled_rows_conv",
                                        "tiled_rows_conv+tiled_long_conv"};
    return (int)kind >= 0 && kind <= TC_KERNEL_TILED_SPLIT ? names[kind] : "?";
}
