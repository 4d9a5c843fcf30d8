/*
 * config.h - the geometry shared by the host and the kernels.
 *
 * The host passes each of these to TiledConv.cl as a -D build option (see launch.c), so the
 * two sides cannot drift apart: the kernel file defines none of them itself.
 */
#ifndef TILEDCONV_CONFIG_H
#define TILEDCONV_CONFIG_H

/* tiled: the article's work-group of 8 x 8 work-items, each producing a block of 4 x 4 output
 * pixels, so that one group produces a 32 x 32 tile. */
#define TC_TILED_GROUP_X 8
#define TC_TILED_GROUP_Y 8
#define TC_TILED_BLOCK_X 4
#define TC_TILED_BLOCK_Y 4
/* From radius 3 (7 taps) the block is at least this tall: the 2r halo rows a tile re-reads
 * from its neighbours are then a smaller share of its rows (measured faster, BENCHMARKS.md). */
#define TC_TILED_LONG_RADIUS 3
#define TC_TILED_LONG_BLOCK_Y 8

/* onepass: 16 x 16 work-items, one output pixel each. */
#define TC_ONEPASS_GROUP 16

/* twopass: each pass filters rows of a TILE x TILE square and writes it transposed; 16 x 16
 * work-items, staged through local memory so that reads and writes are both coalesced. */
#define TC_TWOPASS_TILE 16

/* bilinear: 32 x 8 work-items, one output pixel each, in both passes (Images.cl): a warp's
 * 32 work-items sample 32 neighbouring texels of a row, and pass 2 writes whole 128-byte rows
 * of the target. */
#define TC_BILINEAR_GROUP_X 32
#define TC_BILINEAR_GROUP_Y 8

/* Device planes start every row on a multiple of this many floats (128 bytes: a cache line),
 * whatever the image width, so that aligned float4 access works for any width. */
#define TC_ROW_ALIGN 32

#endif
