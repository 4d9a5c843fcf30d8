/* gradient_run.h - --gradient sobel|scharr: the x and y derivatives and their magnitude from one
 * read of the intensity plane (tc_gradient), checked, timed against the two filters run apart,
 * and reported. study.c reads the input, opens the device and writes the files. */
#ifndef TILEDCONV_GRADIENT_RUN_H
#define TILEDCONV_GRADIENT_RUN_H

#include "tiledconv_internal.h"
#include "option_parse.h"
#include "tiledconv.h"

/* What a gradient run leaves for the files: the magnitude (the image, and --raw's third
 * plane) and, with --raw, gx and gy (its first two). */
typedef struct {
    tc_plane gx, gy, magnitude;
} gradient_planes;

void gradient_planes_free(gradient_planes *g);

/* Runs --gradient on the intensity plane `in` with the ROIs and border of params: the one-read
 * pass, and the two filters apart where they are compared (-a all, or any timing); -e checks
 * each against the CPU reference; the figures are printed as the options ask (the timing and
 * the comparison line, the -a all table, or --csv/--json records). in is overwritten when
 * nothing else needs it. out receives the planes to write. Returns an exit status (reported);
 * *failed_verification is set when -e found a mismatch. */
int gradient_run(const tc_options *o, tc_context *ctx, const tc_device_info *dev, tc_plane *in,
                 const tc_roi *roi, const tc_params *params, gradient_planes *out,
                 int *failed_verification);

/* The bytes per target pixel the one-read pass must move: one float read, and the magnitude
 * (with --raw gx, gy and the magnitude) written. */
int gradient_bytes_per_pixel(const tc_options *o);

#endif
