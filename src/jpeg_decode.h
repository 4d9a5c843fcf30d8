/*
 * jpeg_decode.h - a JPEG's pixels made on the device from its quantised coefficients
 * (src/io/jpeg_coefs.h, read on the CPU), byte for byte TurboJPEG's with the flags of
 * src/io/jpeg.c: the kernels of src/JpegDecode.cl, their buffers and one decode.
 */
#ifndef TILEDCONV_JPEG_DECODE_H
#define TILEDCONV_JPEG_DECODE_H

#include "device.h"
#include "jpeg_coefs.h"
#include "programs.h"

/* What the decoder keeps on a device between images: the two kernels, and buffers grown when an
 * image needs more (the components' coefficients, one after another as jpeg_coefs_alloc lays
 * them out, so that one transfer brings them; the quantisers; the components' planes of
 * samples; the count of blocks outside TurboJPEG's SIMD bounds). Zeroed: nothing made yet. */
typedef struct {
    cl_kernel idct, color;
    cl_mem coef, quant, planes, wrong;
    size_t coef_bytes, quant_bytes, planes_bytes, wrong_bytes;
    /* The decode in flight (tc_jpeg_decode_enqueue): the host's side of its transfers, which
     * must live until its queue has finished, and its events where timed. quant_host is also
     * what the quantisers' buffer holds where quant_sent: a photo with the tables of the one
     * before (a camera's, an encoder's) sends none. */
    uint16_t quant_host[JPEG_COEFS_MAX_COMPONENTS][64];
    int quant_sent;
    cl_int wrong_host;
    cl_event up[2], blocks[2];
} tc_jpeg_decoder;

void tc_jpeg_decoder_release(tc_jpeg_decoder *dec);

/* The device's times of a JPEG's block work, ms, from profiling events (0 where the driver
 * keeps none): the coefficients' transfers and the kernels of the block arithmetic. Each call
 * given one adds its own to it. */
typedef struct {
    double up_ms, blocks_ms, down_ms;
} tc_jpeg_times;

/* The parts of a context a decode uses; times NULL: untimed (no events). */
typedef struct {
    const tc_device *device;
    tc_program_cache *programs;
    tc_jpeg_decoder *decoder;
    tc_jpeg_times *times;
} tc_jpeg_decode_parts;

/* The bytes tc_jpeg_decode writes: width x height x channels, rows packed. */
size_t tc_jpeg_decoded_bytes(const jpeg_coefs *c, int channels);

/* Enqueues c's decode into out on queue (the device's or another of its context), as
 * tc_jpeg_decode does it, and returns at once: c, and the decoder, must stay as they are until
 * queue has finished; tc_jpeg_decode_finish then says whether out is TurboJPEG's. TC_OK, or
 * the failure with its reason in m (the queue may hold work enqueued before it). */
int tc_jpeg_decode_enqueue(const tc_jpeg_decode_parts *p, cl_command_queue queue,
                           const jpeg_coefs *c, int channels, cl_mem out, tc_msg *m);

/* After the queue of tc_jpeg_decode_enqueue has finished: *exact as tc_jpeg_decode gives it,
 * and the decode's times added to p->times where it has them; the decode's events released. */
int tc_jpeg_decode_finish(const tc_jpeg_decode_parts *p, int *exact, tc_msg *m);

/* Decodes c on the device's queue into out (at least tc_jpeg_decoded_bytes): channels 3 gives
 * RGB from a three-component (YCbCr) c, 1 the first component's plane (the Y of a colour file,
 * a gray file's samples). Returns when out is written, with *exact 1 where every block lay
 * within the bounds in which TurboJPEG's SIMD inverse DCT equals libjpeg's C one (every block
 * made from 8-bit pixels does); 0 means out is not TurboJPEG's, and the file is to be decoded
 * on the CPU. TC_OK, or the failure with its reason in m (TC_EINVAL for a c or channels the
 * kernels do not take). */
int tc_jpeg_decode(const tc_jpeg_decode_parts *p, const jpeg_coefs *c, int channels, cl_mem out,
                   int *exact, tc_msg *m);

#endif
