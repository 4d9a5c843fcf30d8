/*
 * tiled_geometry.h - the tiled kernels' launch geometry for a job: the tile a work-group
 * produces, the block of each work-item, the aprons its reads reach, the source alignment its
 * program is built for, and the tiles themselves with the article's classes, predicted by the
 * same tests the kernels make.
 */
#ifndef TILEDCONV_TILED_GEOMETRY_H
#define TILEDCONV_TILED_GEOMETRY_H

#include <stddef.h>

#include "variants.h"

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

/* tiled_conv's block height for a vertical radius: the job's, raised to the radius where that
 * is larger, since a work-item takes the radius's rows above and below its block from its two
 * vertical neighbours' blocks; and from radius TC_TILED_LONG_RADIUS to at least
 * TC_TILED_LONG_BLOCK_Y, where taller tiles measured faster. (The one-pass and two-pass
 * programs are built with it too.) */
int tc_tiled_block_y(const tc_job *job, int radius);

#endif
