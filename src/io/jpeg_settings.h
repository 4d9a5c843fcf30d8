/*
 * jpeg_settings.h - what jpeg.c's libjpeg writer shares with the writer from coefficients
 * (jpeg_coefs_write.c), so that both write jpeg_encode's bytes: TurboJPEG's compression
 * settings (the trap libjpeg reports through is jpeg_trap.h's). Internal to src/io; libjpeg builds only
 * (TC_HAVE_JPEGLIB).
 */
#ifndef TILEDCONV_JPEG_SETTINGS_H
#define TILEDCONV_JPEG_SETTINGS_H

#ifdef TC_HAVE_JPEGLIB
#include <stdio.h> /* before jpeglib.h, which uses FILE and size_t */
#include <jpeglib.h>

#include "jpeg_trap.h" /* the trap libjpeg reports through */

/* TurboJPEG's setCompDefaults for tjCompress2 with TJFLAG_ACCURATEDCT, the sampling
 * io_set_jpeg_sampling chose (gray for 1 channel) and quality 1..100, with the TJ_OPTIMIZE,
 * TJ_ARITHMETIC, TJ_RESTART and TJ_PROGRESSIVE switches it reads from the environment: the
 * settings behind every JPEG this library writes. After jpeg_create_compress. */
void jpeg_writer_settings(j_compress_ptr c, int channels, int quality);
#endif

#endif
