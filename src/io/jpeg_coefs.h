/*
 * jpeg_coefs.h - a JPEG as libjpeg holds it between the entropy coder and the block arithmetic:
 * each component's quantised DCT coefficients and its quantisation table. The CPU reads them
 * from a file (jpeg_read_coefficients) or writes a file from them (jpeg_write_coefficients);
 * the device does everything between coefficients and pixels (the inverse DCT, upsampling and
 * colour conversion on the way in; colour conversion, downsampling, the forward DCT and
 * quantisation on the way out), with libjpeg-turbo 2.1's exact arithmetic, so that the pixels
 * and the files are the bytes of the CPU path.
 */
#ifndef TILEDCONV_JPEG_COEFS_H
#define TILEDCONV_JPEG_COEFS_H

#include <stddef.h>
#include <stdint.h>

#include "codec_common.h" /* io_allocator */

#define JPEG_COEFS_MAX_COMPONENTS 3

/* One component (Y, Cb or Cr; or the only one of a gray file). Blocks are stored row-major,
 * blocks_wide blocks a row, blocks_high rows, each block its 64 coefficients in natural
 * (row-major) order as libjpeg's JBLOCK holds them: a block's quantised values, not yet
 * multiplied by quant[]. */
typedef struct {
    int h_samp, v_samp;          /* sampling factors (1 or 2; 4 for 4:1:1's luma) */
    int width, height;           /* samples: libjpeg's downsampled_width and _height */
    int blocks_wide, blocks_high; /* the arrays' size: width_in_blocks and height_in_blocks
                                   * rounded up to h_samp and v_samp, as libjpeg allocates
                                   * them (the blocks past width_in_blocks are libjpeg's
                                   * dummy blocks: decoded, never shown) */
    uint16_t quant[64];          /* the component's quantisation table, natural order */
    int16_t *coef;               /* blocks_wide * blocks_high * 64 */
} jpeg_coef_component;

typedef struct jpeg_coefs { /* named, so that tiledconv_internal.h can declare it */
    int width, height;  /* the image's pixels */
    int components;     /* 1 (gray) or 3 (YCbCr) */
    int max_h, max_v;   /* the largest sampling factors */
    jpeg_coef_component comp[JPEG_COEFS_MAX_COMPONENTS];
    /* Every component's coefficients in one block, component 0 first (each comp[i].coef
     * points into it): one allocation an image, from the allocator the thread uses for
     * decoded pixels (codec_common.h's io_pixels_alloc), so that a batch's coefficients lie
     * in page-locked memory and cross the bus at its rate, as its pixels do. libjpeg decodes
     * into it and codes from it where it lies (jpeg_arrays.h). */
    void *block;
    const io_allocator *allocator; /* where block came from; NULL: malloc */
} jpeg_coefs;

/* The bytes of every component's coefficients as laid out in c (blocks_wide x blocks_high
 * blocks of 64 16-bit values each). */
size_t jpeg_coefs_bytes(const jpeg_coefs *c);

/* The one block of c's laid-out components (io_pixels_alloc's, the calling thread's
 * allocator or malloc; its contents undefined), with each comp[i].coef pointed into it. 0, or
 * -1 when no memory is left (c untouched). */
int jpeg_coefs_alloc(jpeg_coefs *c);

/* Frees the coefficients (to their allocator); *c is left empty (components 0). */
void jpeg_coefs_free(jpeg_coefs *c);

/* The coefficients of the JPEG in data, read with libjpeg's jpeg_read_coefficients after the
 * checks and with the refusals of jpeg.c's decoder (jpeg_probe's limits and words, warnings
 * refused, more than 500 scans refused). luma_only keeps component 0 alone, what a gray job
 * needs (TurboJPEG's TJPF_GRAY decode is the Y plane). Returns
 *    0  with *out filled (free it with jpeg_coefs_free);
 *   -1  for a file the CPU decoder refuses too, with the reason ("JPEG: ...") in err;
 *    1  for a valid file whose pixels only the CPU path gives as TurboJPEG does, the reason
 *       in err (no "JPEG: " prefix): a colour space other than YCbCr or gray, a coefficient
 *       whose product with its quantiser leaves +-32767 (TurboJPEG's SIMD inverse DCT
 *       wraps there, its C one does not), a progressive file whose low AC coefficients are
 *       not fully refined (libjpeg-turbo 2.1 smooths its blocks), a sampling that is not an
 *       integral ratio, or a build without libjpeg's header.
 * *out is untouched unless 0 is returned. data must stay valid during the call only. */
int jpeg_coefs_read(const uint8_t *data, size_t size, int luma_only, long max_pixels,
                    long max_pixels_per_byte, jpeg_coefs *out, char *err, size_t err_size);

#endif
