/*
 * variants.h - which kernel runs a job: the algorithm's kernel and, for the tiled algorithm,
 * the variant of the tiled kernel its filter takes (one table of variants, each with its
 * geometry and a name for --kernel and tc_params.kernel, and a default per band of lengths).
 * The names of the algorithms and of the kernel functions.
 */
#ifndef TILEDCONV_VARIANTS_H
#define TILEDCONV_VARIANTS_H

#include "filter_job.h"
#include "status.h"

/* Decides which kernel runs the job, from its algorithm, filter and variant: each maker of a
 * job (params.c, pyramid_plan.c) calls it last, and again after changing one of the three;
 * tc_kernel_of reads what it decided. */
void tc_job_decide(tc_job *job);

/* What tc_job_decide would decide now (the tests hold every job's decision against it). */
tc_kernel_kind tc_kernel_deciding(const tc_job *job);


/* The same from the filter and the algorithm (what -v reports before a job exists), with the
 * variant's default for the filter's band. */
tc_kernel_kind tc_kernel_for(const tc_filter_spec *f, tc_algorithm algorithm);

/*
 * The variants of the tiled kernels for long filters and large masks, each a kernel with its
 * geometry: one table (variants.c), a name for each (--kernel NAME, tc_params.kernel), and per
 * band of lengths the default (one line per band). A variant is
 * for separable filters (tiled, long, slide-*) or for masks that are not rank 1 (mask,
 * mrows-*).
 */
typedef struct {
    const char *name;
    tc_kernel_kind kind;
    int tile_w, tile_h;   /* slide: the strip's width and the rows a step adds (a tile);
                           * mrows: the block per work-item (width, height); 0 for the others */
    int job_w;            /* slide, long-wide: outputs of one horizontal job (BLOCK_X, from
                           * one window) */
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
           kind == TC_KERNEL_TILED_MASK_ROWS || kind == TC_KERNEL_TILED_ROWS ||
           kind == TC_KERNEL_TILED_SPLIT;
}

#endif
