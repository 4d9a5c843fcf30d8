/*
 * tiled_geometry.c - the tiled kernels' launch geometry and tiles (tiled_geometry.h).
 */
#include "tiled_geometry.h"

#include <string.h>

#include "config.h"
#include "split.h"
#include "tuning.h"

int tc_tiled_block_y(const tc_job *job, int radius)
{
    int block_y = job->block_y >= radius ? job->block_y : radius;
    if (radius >= TC_TILED_LONG_RADIUS && block_y < TC_TILED_LONG_BLOCK_Y)
        block_y = TC_TILED_LONG_BLOCK_Y;
    return block_y;
}

static int tiled_block_y(const tc_job *job)
{
    return tc_tiled_block_y(job, tc_job_radius_y(job));
}

int tc_tiled_accumulating_rows(const tc_job *job)
{
    /* TiledConv.cl's default TC_VERTICAL_ACC: vertical radius 3 to 5 (with the halo rows
     * spread over the group, its default from radius 3, and no staging for class 2). */
    const int ry = tc_job_radius_y(job);
    if (tc_kernel_of(job) != TC_KERNEL_TILED || ry < 3 || ry > 5)
        return 0;
    return tiled_block_y(job);
}

/* tiled_mask_conv's block height: TC_MASK_SHORT_BLOCK_Y for masks of at most 3 rows, else
 * TC_MASK_BLOCK_Y (config.h says why). */
static int mask_block_y(const tc_job *job)
{
    return tc_job_radius_y(job) <= 1 ? TC_MASK_SHORT_BLOCK_Y : TC_MASK_BLOCK_Y;
}

/* tiled_long_conv's tile: TC_LONG_TILE_W x TC_LONG_TILE_H (the height the tuning's
 * long_tile_h where set: the tests reach interior tiles of small images with 32), the height
 * halved while the filtered rows, (height + 2 ry) x width floats, would not fit the device's
 * local memory. */
/* tiled_long_conv's work-items a group: TC_LONG_GROUP, or the tuning's long_group where set. */
static int long_group(void)
{
    return tc_tuning_now()->long_group ? tc_tuning_now()->long_group : TC_LONG_GROUP;
}

static void long_tile(const tc_job *job, unsigned long long local_mem, int *tile_w,
                      int *tile_h)
{
    const int w = TC_LONG_TILE_W, group = long_group();
    int h = tc_tuning_now()->long_tile_h ? tc_tuning_now()->long_tile_h : TC_LONG_TILE_H;
    while ((unsigned long long)(h + 2 * tc_job_radius_y(job)) * (unsigned long long)w * 4ULL >
               local_mem &&
           h / 2 * w >= group && (h / 2 * w) % group == 0)
        h /= 2;
    *tile_w = w;
    *tile_h = h;
}

/* tiled_rows_conv's outputs a work-item (ROWS_HV): TC_ROWS_HV, halved while the group's 32
 * staged rows of 8 ROWS_HV + 2 rx + 1 floats would not fit the device's local memory. */
static int rows_hv(const tc_job *job, unsigned long long local_mem)
{
    int hv = TC_ROWS_HV;
    while (hv > 4 && 32ULL * (unsigned long long)(8 * hv + 2 * tc_job_radius_x(job) + 1) * 4ULL >
                         local_mem)
        hv /= 2;
    return hv;
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
    if (!job->vector_io || kind == TC_KERNEL_TILED_LONG || kind == TC_KERNEL_TILED_SLIDE ||
        kind == TC_KERNEL_TILED_ROWS || kind == TC_KERNEL_TILED_SPLIT)
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
    const int rx = tc_job_radius_x(job), shift = tc_tiled_shift(job);
    int block_x = job->block_x;
    if (kind == TC_KERNEL_TILED_SPLIT) { /* its first pass's: the launch of ls->kernel */
        tc_job rows, cols;
        tc_split_jobs(job, &rows, &cols);
        tc_tiled_geometry_of(&rows, local_mem, g);
        g->kind = kind;
        return;
    }
    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->radius_y = tc_job_radius_y(job);
    if (kind == TC_KERNEL_TILED_LONG) {
        /* Long.cl: 256 work-items, jobs of TC_LONG_JOB_W along rows (the variant's or the
         * tuning's for studies), one column each. */
        long_tile(job, local_mem, &g->tile_w, &g->tile_h);
        block_x = TC_LONG_JOB_W;
        if (tc_variant_of(job)->job_w) /* long-wide */
            block_x = tc_variant_of(job)->job_w;
        if (tc_tuning_now()->long_job_w)
            block_x = tc_tuning_now()->long_job_w;
        g->local[0] = (size_t)(g->tile_w / block_x);
        g->local[1] = (size_t)(long_group() / (g->tile_w / block_x));
        g->block[0] = 1;
        g->block[1] = g->tile_h * g->tile_w / long_group();
        g->grid_offset = job->vector_io ? mod4(job->roi.src_left) : 0;
    } else if (kind == TC_KERNEL_TILED_ROWS) {
        /* Long.cl's tiled_rows_conv: 32 x 8 work-items, a row's ROWS_HV outputs each, tiles
         * of 8 ROWS_HV x 32 from the ROI's corner; its reads are single floats, RADIUS_X a
         * side (set below). */
        const int hv = rows_hv(job, local_mem);
        g->tile_w = 8 * hv;
        g->tile_h = 32;
        g->local[0] = 32;
        g->local[1] = 8;
        g->block[0] = hv;
        g->block[1] = 1;
        block_x = TC_LONG_JOB_W; /* Common.cl's windows, unused by this kernel */
        g->grid_offset = 0;
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
    if (!job->vector_io || (shift == 0 && rx == 1) || kind == TC_KERNEL_TILED_ROWS) {
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
    if (tc_kernel_of(job) == TC_KERNEL_TILED_SPLIT) { /* both passes' tiles, in their order */
        tc_job rows, cols;
        tc_split_jobs(job, &rows, &cols);
        tc_tiled_tiles(&rows, local_mem, visit, arg);
        tc_tiled_tiles(&cols, local_mem, visit, arg);
        return;
    }
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
