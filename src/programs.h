/*
 * programs.h - the kernels' programs, built from the embedded sources with the geometry as -D
 * options, and kept per context: one entry per distinct set of build options (filter
 * length, border rule, block, float4 paths, class counting), so that a second filter call
 * with the same settings builds nothing.
 */
#ifndef TILEDCONV_PROGRAMS_H
#define TILEDCONV_PROGRAMS_H

#include "device.h"

/* The kernel sources, embedded at build time (scripts/embed-cl.sh), one string per line: NAME.cl
 * becomes name_cl_lines[name_cl_line_count]. */
#define TC_EMBEDDED_CL(name)                  \
    extern const char *const name##_cl_lines[]; \
    extern const unsigned name##_cl_line_count

TC_EMBEDDED_CL(common); /* Common.cl: what the filter programs share */
TC_EMBEDDED_CL(tiledconv);
TC_EMBEDDED_CL(long);
TC_EMBEDDED_CL(masks);
TC_EMBEDDED_CL(samples); /* Samples.cl: what the two conversion programs share */
TC_EMBEDDED_CL(pixels);
TC_EMBEDDED_CL(pyramid);
TC_EMBEDDED_CL(images);
TC_EMBEDDED_CL(channels); /* the channel-last layouts' conversions (stream.c), as Pixels.cl */
TC_EMBEDDED_CL(gradient); /* the one-read gradient (gradient.c), after Common.cl as the filters */
TC_EMBEDDED_CL(jpegencode); /* JpegEncode.cl: pixels to a JPEG's coefficients (jpeg_encode.c) */
TC_EMBEDDED_CL(jpegdecode); /* JPEG coefficients to pixels (jpeg_decode.c), a file alone */

/* Which source a program is built from: the separable kernels (Common.cl + TiledConv.cl), the
 * tiled kernel for long filters (Common.cl + Long.cl), the masks' (Common.cl + Masks.cl), the
 * pixel conversions (Samples.cl + Pixels.cl), the bilinear passes (Common.cl + Images.cl,
 * which shares Common.cl's border rule), the one-read gradient (Common.cl + Gradient.cl), the
 * Gaussian scale space's (Common.cl + Pyramid.cl), a JPEG's coefficients from pixels
 * (JpegEncode.cl alone). */
typedef enum {
    TC_SOURCE_FILTERS,
    TC_SOURCE_PIXELS,
    TC_SOURCE_LONG,
    TC_SOURCE_MASKS,
    TC_SOURCE_IMAGES,
    TC_SOURCE_GRADIENT,
    TC_SOURCE_PYRAMID,
    TC_SOURCE_CHANNELS, /* Samples.cl + Channels.cl: the channel-last layouts' conversions */
    TC_SOURCE_JPEG_ENCODE /* JpegEncode.cl: libjpeg's colour conversion, downsampling, DCT */,
    TC_SOURCE_JPEG_DECODE /* JpegDecode.cl alone: a JPEG's pixels from its coefficients */
} tc_source;

typedef struct tc_program_entry tc_program_entry;

/* How much of the build logs a cache keeps (tc_build_log), in bytes, at least. */
#define TC_BUILD_LOG_MAX 65536

typedef struct {
    tc_program_entry *head;
    long built; /* programs built so far */
    char *log;  /* what the builds said, each log after its options; NULL: nothing */
} tc_program_cache;

/* The program built from that source with these options, from the cache or built now
 * (*build_ms: host wall time of the build, 0 when it came from the cache). On a build failure
 * the message holds the options and the start of the build log, on one line. */
int tc_program_get(tc_program_cache *cache, const tc_device *d, tc_source source,
                   const char *options, cl_program *program, double *build_ms, tc_msg *m);

void tc_program_cache_release(tc_program_cache *cache);

#endif
