/*
 * jpeg_settings.h - what jpeg.c's libjpeg writer shares with the writer from coefficients
 * (jpeg_coefs_write.c), so that both write jpeg_encode's bytes: the trap libjpeg reports
 * through, and TurboJPEG's compression settings. Internal to src/io; libjpeg builds only
 * (TC_HAVE_JPEGLIB).
 */
#ifndef TILEDCONV_JPEG_SETTINGS_H
#define TILEDCONV_JPEG_SETTINGS_H

#ifdef TC_HAVE_JPEGLIB
#include <stdio.h> /* before jpeglib.h, which uses FILE and size_t */
#include <jpeglib.h>
#include <setjmp.h>

/* libjpeg reports through these: an error or a warning ends the call by a jump back into the
 * function that set `jump`, with the message kept. Nothing is printed. */
typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char msg[JMSG_LENGTH_MAX];
} jpeg_trap;

/* t ready to be a libjpeg object's err. */
void jpeg_trap_init(jpeg_trap *t);

/* TurboJPEG's setCompDefaults for tjCompress2 with TJFLAG_ACCURATEDCT, the sampling
 * io_set_jpeg_sampling chose (gray for 1 channel) and quality 1..100, with the TJ_OPTIMIZE,
 * TJ_ARITHMETIC, TJ_RESTART and TJ_PROGRESSIVE switches it reads from the environment: the
 * settings behind every JPEG this library writes. After jpeg_create_compress. */
void jpeg_writer_settings(j_compress_ptr c, int channels, int quality);
#endif

#endif
