/*
 * programs.h - the kernels' programs, built from the embedded TiledConv.cl with the geometry
 * as -D options, and kept per context: one entry per distinct set of build options (filter
 * length, border rule, block, float4 paths, class counting), so that a second filter call
 * with the same settings builds nothing.
 */
#ifndef TILEDCONV_PROGRAMS_H
#define TILEDCONV_PROGRAMS_H

#include "device.h"

/* TiledConv.cl and Pixels.cl, embedded at build time (scripts/embed-cl.sh), one string per
 * line. */
extern const char *const tiledconv_cl_lines[];
extern const unsigned tiledconv_cl_line_count;
extern const char *const pixels_cl_lines[];
extern const unsigned pixels_cl_line_count;
/* Gradient.cl: the one-read gradient (gradient.c), a program of its own. */
extern const char *const gradient_cl_lines[];
extern const unsigned gradient_cl_line_count;

/* Which source a program is built from. */
typedef enum { TC_SOURCE_FILTERS, TC_SOURCE_PIXELS, TC_SOURCE_GRADIENT } tc_source;

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
