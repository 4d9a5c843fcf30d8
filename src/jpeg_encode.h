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

/* JpegEncode.cl's component_layout, field for field (all cl_int, so the layouts agree). */
typedef struct {
    cl_int first_block;
    cl_int width_in_blocks, height_in_blocks;
    cl_int blocks_wide, blocks_high;
    cl_int coef_block;
    cl_int h_samp, v_samp;
    cl_int h_ratio, v_ratio;
    cl_int rows;
    cl_int kind;
} tc_jpeg_block_layout;

/* The ints a component's divisors take in the kernel's table: 64 reciprocals, 64
 * corrections, 64 shifts. */
#define TC_JPEG_DIVISOR_INTS 192

/* What the encoder keeps on a device between images: its kernel and its work-group size, the
 * buffers of the components' layouts, divisors and coefficients (grown when an image needs
 * more), and the encode in flight (tc_jpeg_encode_enqueue): the host's side of its writes,
 * which must live until its queue has finished, and its events where timed. The host's side
 * of the tables is also what their buffers hold for tables_sent components (0: nothing known),
 * so that a photo of the size and quality of the one before sends none. Zeroed: nothing made
 * yet. */
typedef struct {
    cl_kernel kernel;
    size_t group;
    cl_mem layouts, divisors, coef;
    size_t layouts_size, divisors_size, coef_size;
    tc_jpeg_block_layout layout_host[JPEG_COEFS_MAX_COMPONENTS];
    cl_int divisor_host[JPEG_COEFS_MAX_COMPONENTS][TC_JPEG_DIVISOR_INTS];
    int tables_sent;
    cl_event kernel_done, down;
} tc_jpeg_encoder;

void tc_jpeg_encoder_release(tc_jpeg_encoder *enc);

/* Enqueues on queue (the device's or another of its context) what tc_jpeg_encode_coefs does,
 * into c's block (which c must have: jpeg_coefs_alloc), and returns at once: c, pixels and the
 * encoder must stay as they are until queue has finished, then tc_jpeg_encode_finish. timed:
 * events kept for it. TC_OK, or the failure with its reason in m. */
int tc_jpeg_encode_enqueue(tc_jpeg_encoder *enc, const tc_device *d, tc_program_cache *programs,
                           cl_command_queue queue, cl_mem pixels, jpeg_coefs *c, int timed,
                           tc_msg *m);

/* After the queue of tc_jpeg_encode_enqueue has finished: its kernel's time and its download's
 * added to times (NULL: none), its events released. */
int tc_jpeg_encode_finish(tc_jpeg_encoder *enc, tc_jpeg_times *times, tc_msg *m);

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
