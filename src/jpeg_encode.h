/*
 * jpeg_encode.h - a JPEG's block arithmetic on the device, on the way out: from 8-bit pixels
 * in a device buffer to each component's quantised DCT coefficients (src/JpegEncode.cl), made
 * as libjpeg-turbo 2.1 makes them for jpeg_encode, so that the CPU's entropy coding of them
 * (jpeg_coefs_encode) writes jpeg_encode's bytes.
 */
#ifndef TILEDCONV_JPEG_ENCODE_H
#define TILEDCONV_JPEG_ENCODE_H

#include "device.h"
#include "jpeg_coefs.h"
#include "jpeg_decode.h" /* tc_jpeg_times */
#include "programs.h"

/* Fills each component's coefficients of c, whose shape and quantisation tables are set
 * (jpeg_coefs_layout), from pixels: c->width x c->height pixels, rows packed from the top, one
 * byte a pixel for a gray c (1 component), R, G, B for a colour one (3: Y, Cb, Cr). Samplings
 * where each factor is the largest or half of it (gray, 4:4:4, 4:2:2, 4:2:0). Where c has
 * its block (jpeg_coefs_alloc), the coefficients are written there; where it has none, one is
 * allocated (jpeg_coefs_alloc: the calling thread's allocator or malloc; jpeg_coefs_free
 * frees it). Every block is written, the dummy blocks that
 * pad the last MCUs as libjpeg makes them. Waits for the results. TC_OK; TC_EINVAL for a
 * layout these kernels do not make; TC_EDEVICE or TC_ENOMEM with the failing call. On failure
 * the coefficients allocated here are freed again (coef NULL). times (NULL: untimed) gets the
 * kernel's time and the coefficients' download added. */
int tc_jpeg_encode_coefs(const tc_device *d, tc_program_cache *programs, cl_mem pixels,
                         jpeg_coefs *c, tc_jpeg_times *times, tc_msg *m);

#endif
