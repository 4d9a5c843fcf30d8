/*
 * config.h - the geometry shared by the host and the kernels.
 *
 * The host passes each of these to TiledConv.cl as a -D build option (see job_kernels.c), so the
 * two sides cannot drift apart: the kernel file defines none of them itself.
 */
#ifndef TILEDCONV_CONFIG_H
#define TILEDCONV_CONFIG_H

#include "tiledconv_internal.h"

/* tiled: the article's work-group of 8 x 8 work-items, each producing a block of
 * TC_TILED_BLOCK_X x TC_TILED_BLOCK_Y (4 x 4, tiledconv_internal.h) output pixels, so that one
 * group produces a 32 x 32 tile. */
#define TC_TILED_GROUP_X 8
#define TC_TILED_GROUP_Y 8
/* From radius 3 (7 taps) the block is at least this tall: the 2r halo rows a tile re-reads from
 * its neighbours are then a smaller share of its rows (measured faster, docs/benchmarks.md). */
#define TC_TILED_LONG_RADIUS 3
#define TC_TILED_LONG_BLOCK_Y 8

/* tiled_conv takes at most this many taps along each axis (its coefficients travel by value
 * as float16s, and its rows live in registers); longer filters, and those with 1 tap along
 * columns, run tiled_long_conv (Long.cl). */
#define TC_TILED_MAX_TAPS 15

/* tiled_long_conv: groups of 256 work-items filter tiles of TC_LONG_TILE_W x TC_LONG_TILE_H
 * pixels, horizontally in jobs of TC_LONG_JOB_W outputs, vertically one column of
 * TC_LONG_TILE_H x TC_LONG_TILE_W / 256 outputs (32) per work-item. The tile's filtered rows
 * ((TC_LONG_TILE_H + 2 ry) x TC_LONG_TILE_W floats, 40.7 KB at 63 taps) live in local memory:
 * the host halves the tile height until they fit the device's. The vertical pass is unrolled
 * row by row while that is at most TC_LONG_UNROLL_LIMIT multiply-adds (always, up to 63
 * taps: measured faster than the loop over chunks of rows, docs/benchmarks.md), else a loop
 * over chunks of rows (Long.cl). 32 x 256 measured 15 to 30 % faster than 32 x 128 and level
 * with 64 x 128 at 31 and 63 taps (docs/benchmarks.md). */
#define TC_LONG_TILE_W 32
#define TC_LONG_TILE_H 256
#define TC_LONG_JOB_W 8
/* The long-wide variant's jobs: TC_LONG_WIDE_JOB_W outputs from one window of 16 + 2 r floats,
 * half the loads a multiply-add of jobs of 8. Uncapped on the GPU machine that was 3-6 %
 * faster from 41 to 63 taps, and long took it there; under the register budget with the
 * coefficients by value jobs of 8 are faster or level at every length from 37 to 63 (41 taps
 * 0.290 ms against 0.321, 63 taps 0.448 against 0.450: docs/benchmarks.md), so long keeps jobs
 * of 8 and long-wide stays a study. */
#define TC_LONG_WIDE_JOB_W 16
#define TC_LONG_GROUP 256

/* tiled_long_conv's register budget on NVIDIA's compiler (-cl-nv-maxrregcount), by the rows'
 * radius: the first row whose bound is at least it; 0, the compiler's own choice. Left to
 * itself the compiler gives the kernel 106-255 registers a work-item, one or two groups an SM,
 * too few warps to hide phase (a)'s loads; a budget lets three or four groups share an SM.
 * Under a budget the kernel takes its coefficients by value at every length (Long.cl's
 * TC_LONG_KX_VALUES): constant operands, no registers, no loads. On one GPU machine, 8192^2 gray:
 * 64 registers 0.78-0.87x the uncapped time at 19-35 taps with reflect-101 and 27-35 with
 * replicate (bench/split/long-registers.cases); with the coefficients by value 64 is also the
 * fastest budget from 37 to 63 taps, 0.76-0.82x the time of the buffers under 80 or 96 (41 taps
 * 0.290 ms against 0.374, 63 taps 0.448 against 0.569: bench/split/long-values.cases); on
 * another, 13-15 taps with reflect-101 0.79-0.94x (docs/benchmarks.md). */
#define TC_LONG_BUDGETS {{5, 0}, {31, 64}}
/* Rows of 15 taps or fewer with longer columns (job_kernels.c): TC_LONG_COLUMNS_BUDGET
 * registers where the rows have more than one tap, else the compiler's choice: under 64 with
 * the coefficients by value, long columns took 0.78-0.97x the uncapped time, and one tap along
 * rows (split's second pass) ran slower under the budget (docs/kernels.md has the measurements,
 * bench/split/ their cases). */
#define TC_LONG_COLUMNS_BUDGET 64

/* tiled_rows_conv (the rows variant, and the split variant's first pass): a work-item a row's
 * TC_ROWS_HV outputs, tiles of 8 TC_ROWS_HV x 32 (halved while the staged rows would not fit
 * the device's local memory: 40.8 KB at 63 taps). */
#define TC_ROWS_HV 32

/* Where rows is the default (variants.c), by the rows' length: 1 tap along columns from this
 * many along rows. On the GPU machine, 8192^2 gray, medians of 30, against tiled_long_conv: 0.83x
 * at 17 taps, 0.73-0.76x at 21-41, 0.56-0.59x at 47-63 (docs/benchmarks.md). The other long
 * rows choose by border and length (variants.c's long_bands). */
#define TC_ROWS_MIN_TAPS 17
#define TC_LONG_UNROLL_LIMIT 4096

/* tiled_mask_conv: the article's 8 x 8 work-items (TC_TILED_GROUP_X/Y), blocks of 4 x this many
 * pixels: TC_MASK_BLOCK_Y, or TC_MASK_SHORT_BLOCK_Y for masks of 3 rows or fewer (3 x 3: 87.3 %
 * of the copy with 4 x 4 blocks, 85.7 % with 4 x 8; 5 x 5: 75.4 and 82.5 %; 7 x 7: 60.4 and
 * 68.6 %, docs/benchmarks.md); the mask's rows are unrolled (every source row read once) while
 * a work-item's code holds at most TC_MASK_UNROLL_LIMIT multiply-adds, a loop over them beyond. */
#define TC_MASK_BLOCK_Y 8
#define TC_MASK_SHORT_BLOCK_Y 4
#define TC_MASK_UNROLL_LIMIT 2048

/* onepass: 16 x 16 work-items, one output pixel each. */
#define TC_ONEPASS_GROUP 16

/* twopass: TC_TWOPASS_TILE (tiledconv_internal.h). */

/* bilinear: 32 x 8 work-items, one output pixel each, in both passes (Images.cl): a warp's
 * 32 work-items sample 32 neighbouring texels of a row, and pass 2 writes whole 128-byte rows
 * of the target. */
#define TC_BILINEAR_GROUP_X 32
#define TC_BILINEAR_GROUP_Y 8

/* Device planes start every row on a multiple of this many floats (128 bytes: a cache line),
 * whatever the image width, so that aligned float4 access works for any width. */
#define TC_ROW_ALIGN 32

#endif
