/*
 * programs.h - the kernels' programs, built from the embedded sources with the geometry as -D
 * options, and kept per context: one entry per distinct set of build options (filter
 * length, border rule, block, float4 paths, class counting), so that a second filter call
 * with the same settings builds nothing.
 */
#ifndef TILEDCONV_PROGRAMS_H
#define TILEDCONV_PROGRAMS_H

#include "device.h"

/* The kernel sources, embedded at build time (scripts/embed-cl.sh), one string per line:
 * Common.cl (what the filter programs share), TiledConv.cl, Long.cl, Masks.cl, Pixels.cl. */
extern const char *const common_cl_lines[];
extern const unsigned common_cl_line_count;
extern const char *const tiledconv_cl_lines[];
extern const unsigned tiledconv_cl_line_count;
extern const char *const long_cl_lines[];
extern const unsigned long_cl_line_count;
extern const char *const masks_cl_lines[];
extern const unsigned masks_cl_line_count;
extern const char *const pixels_cl_lines[];
extern const unsigned pixels_cl_line_count;
extern const char *const pyramid_cl_lines[];
extern const unsigned pyramid_cl_line_count;
extern const char *const images_cl_lines[];
extern const unsigned images_cl_line_count;

/* Channels.cl: the channel-last layouts' conversions (stream.c), on its own as Pixels.cl. */
extern const char *const channels_cl_lines[];
extern const unsigned channels_cl_line_count;

/* Gradient.cl: the one-read gradient (gradient.c), after Common.cl as the filters are. */
extern const char *const gradient_cl_lines[];
extern const unsigned gradient_cl_line_count;

/* Which source a program is built from: the separable kernels (Common.cl + TiledConv.cl), the
 * tiled kernel for long filters (Common.cl + Long.cl), the masks' (Common.cl + Masks.cl), the
 * pixel conversions (Pixels.cl), the bilinear passes (Common.cl + Images.cl, which shares
 * Common.cl's border rule), the one-read gradient (Common.cl + Gradient.cl), the Gaussian
 * scale space's (Common.cl + Pyramid.cl). */
typedef enum {
    TC_SOURCE_FILTERS,
    TC_SOURCE_PIXELS,
    TC_SOURCE_LONG,
    TC_SOURCE_MASKS,
    TC_SOURCE_IMAGES,
    TC_SOURCE_GRADIENT,
    TC_SOURCE_PYRAMID,
    TC_SOURCE_CHANNELS /* Channels.cl alone: the channel-last layouts' conversions */
} tc_source;

typedef struct tc_program_entry tc_program_entry;

typedef struct {
    tc_program_entry *head;
    long built; /* programs built so far */
} tc_program_cache;

/* The program built from that source with these options, from the cache or built now
 * (*build_ms: host wall time of the build, 0 when it came from the cache). On a build failure
 * the message holds the options and the start of the build log, on one line. */
int tc_program_get(tc_program_cache *cache, const tc_device *d, tc_source source,
                   const char *options, cl_program *program, double *build_ms, tc_msg *m);

void tc_program_cache_release(tc_program_cache *cache);

#endif
