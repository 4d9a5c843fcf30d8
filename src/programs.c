/* programs.c - building the kernels' programs and keeping them per context. */
#include "programs.h"

#include "program_cache.h"
#include "tuning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tc_program_entry {
    tc_source source;
    char *options;
    cl_program program;
    tc_program_entry *next;
};

/* For kernel studies: the tuning's dump_program names a file that the built program's binary
 * (PTX on NVIDIA) is written to, so that register use and the machine code can be read off the
 * device. Best effort: a failure to write it changes nothing else. */
static void dump_binary(cl_program prog)
{
    const char *path = tc_tuning_now()->dump_program[0] ? tc_tuning_now()->dump_program : NULL;
    size_t size = 0;
    unsigned char *bin = NULL;
    FILE *f = NULL;
    if (!path || clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) !=
                     CL_SUCCESS || size == 0 || !(bin = malloc(size)))
        return;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS &&
        (f = fopen(path, "wb")) != NULL) {
        /* NVIDIA's PTX ends with a NUL, which ptxas refuses ("Unexpected EOF"). */
        while (size > 0 && bin[size - 1] == '\0')
            size--;
        (void)fwrite(bin, 1, size, f);
        fclose(f);
    }
    free(bin);
}

/* The build log's first part, flattened onto one line, after the failure in m. */
static void append_build_log(cl_program prog, const tc_device *d, const char *options, tc_msg *m)
{
    char log[2048] = "";
    size_t used = strlen(m->text);
    if (clGetProgramBuildInfo(prog, d->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL) !=
        CL_SUCCESS)
        log[0] = '\0'; /* a log larger than the buffer: only the options are kept */
    for (char *c = log; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
    snprintf(m->text + used, sizeof m->text - used, "; options: %s; log: %s", options, log);
}

/* Each source's own file, and whether Common.cl comes first (the filter programs). */
static const struct {
    const char *const *lines;
    const unsigned *count;
    int after_common;
} source_files[] = {
    [TC_SOURCE_FILTERS] = {tiledconv_cl_lines, &tiledconv_cl_line_count, 1},
    [TC_SOURCE_PIXELS] = {pixels_cl_lines, &pixels_cl_line_count, 0},
    [TC_SOURCE_LONG] = {long_cl_lines, &long_cl_line_count, 1},
    [TC_SOURCE_MASKS] = {masks_cl_lines, &masks_cl_line_count, 1},
    [TC_SOURCE_IMAGES] = {images_cl_lines, &images_cl_line_count, 1},
    [TC_SOURCE_GRADIENT] = {gradient_cl_lines, &gradient_cl_line_count, 1},
    [TC_SOURCE_PYRAMID] = {pyramid_cl_lines, &pyramid_cl_line_count, 1},
    [TC_SOURCE_CHANNELS] = {channels_cl_lines, &channels_cl_line_count, 0},
};
#define N_SOURCES (sizeof source_files / sizeof source_files[0])

/* The most lines a program's source can have: Common.cl and every file. */
static unsigned lines_capacity(void)
{
    unsigned n = common_cl_line_count;
    for (size_t i = 0; i < N_SOURCES; i++)
        n += *source_files[i].count;
    return n;
}

/* The lines of a source: the filter programs are Common.cl followed by their own file. */
static int source_lines(tc_source source, const char **lines, unsigned capacity,
                        unsigned *count)
{
    const char *const *file = source_files[source].lines;
    const unsigned file_count = *source_files[source].count;
    unsigned n = 0;
    if (source_files[source].after_common) {
        if (common_cl_line_count + file_count > capacity)
            return -1;
        for (unsigned i = 0; i < common_cl_line_count; i++)
            lines[n++] = common_cl_lines[i];
    }
    if (n + file_count > capacity)
        return -1;
    for (unsigned i = 0; i < file_count; i++)
        lines[n++] = file[i];
    *count = n;
    return 0;
}

/* The program from the disk cache of an earlier process (program_cache.h) where it holds a
 * binary the driver takes, else built from source (and then kept there for the next). */
static int build(const tc_device *d, tc_source source, const char *options, cl_program *program,
                 tc_msg *m)
{
    int status = TC_OK;
    cl_int err;
    cl_program prog = NULL;
    tc_cached_program cached;
    const unsigned capacity = lines_capacity();
    const char **lines = malloc(capacity * sizeof *lines);
    unsigned count = 0;
    if (!lines || source_lines(source, lines, capacity, &count) != 0) {
        free(lines);
        return tc_fail(m, TC_ENOMEM, "out of host memory for a program's source");
    }
    const int use_cache = tc_program_cache_find(d, lines, count, options, &cached) == 0;
    if (use_cache && tc_program_cache_load(d, &cached, options, &prog) == 0)
        goto built;
    prog = clCreateProgramWithSource(d->context, count, lines, NULL, &err);
    CL_CHECK(status, cleanup, m, err, "clCreateProgramWithSource");
    err = clBuildProgram(prog, 1, &d->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        status = cl_fail(m, err, "clBuildProgram");
        append_build_log(prog, d, options, m);
        goto cleanup;
    }
    if (use_cache)
        tc_program_cache_store(d, &cached, prog);
built:
    dump_binary(prog);
    *program = prog;
    prog = NULL;
cleanup:
    if (prog)
        clReleaseProgram(prog);
    if (use_cache)
        tc_program_cache_entry_free(&cached);
    free(lines);
    return status;
}

int tc_program_get(tc_program_cache *cache, const tc_device *d, tc_source source,
                   const char *options, cl_program *program, double *build_ms, tc_msg *m)
{
    tc_program_entry *e;
    *build_ms = 0.0;
    for (e = cache->head; e; e = e->next)
        if (e->source == source && strcmp(e->options, options) == 0) {
            *program = e->program;
            return TC_OK;
        }
    if (!(e = calloc(1, sizeof *e)) || !(e->options = malloc(strlen(options) + 1))) {
        free(e);
        return tc_fail(m, TC_ENOMEM, "out of host memory for a program");
    }
    strcpy(e->options, options);
    e->source = source;
    const double t0 = tc_wall_ms();
    int status = build(d, source, options, &e->program, m);
    if (status != TC_OK) {
        free(e->options);
        free(e);
        return status;
    }
    *build_ms = tc_wall_ms() - t0;
    cache->built++;
    e->next = cache->head;
    cache->head = e;
    *program = e->program;
    return TC_OK;
}

void tc_program_cache_release(tc_program_cache *cache)
{
    tc_program_entry *e = cache->head;
    while (e) {
        tc_program_entry *next = e->next;
        clReleaseProgram(e->program);
        free(e->options);
        free(e);
        e = next;
    }
    cache->head = NULL;
}
