/* programs.c - building the kernels' programs and keeping them per context. */
#include "programs.h"

#include "program_cache.h"
#include "tuning.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* For the tests of the kernels' sources: the tuning's dump_source names a folder that each
 * program built from source is written to, program-XXXXXX.cl, its first line a comment with
 * the build options, so that another compiler can build it for another CPU (clang for an x86
 * CPU without AVX-512, tests/cold-builds.sh). Best effort, as dump_binary. */
static void dump_source(const char *const *lines, unsigned count, const char *options)
{
    const char *dir = tc_tuning_now()->dump_source;
    char path[sizeof tc_tuning_now()->dump_source + 32];
    FILE *f = NULL;
    if (!dir[0] || snprintf(path, sizeof path, "%s/program-XXXXXX", dir) >= (int)sizeof path)
        return;
    const int fd = mkstemp(path);
    if (fd < 0)
        return;
    if (!(f = fdopen(fd, "w"))) {
        close(fd);
        return;
    }
    fprintf(f, "// options: %s\n", options);
    for (unsigned i = 0; i < count; i++)
        fputs(lines[i], f);
    fclose(f);
}

/* The program's build log, when it says anything (warnings: the sources are meant to build
 * without a word), added to the cache's log with the options it came from, for the caller to
 * show (tc_build_log); the log keeps its first TC_BUILD_LOG_MAX bytes. */
static void keep_build_log(tc_program_cache *cache, cl_program prog, const tc_device *d,
                           const char *options)
{
    size_t size = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(prog, d->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS || size < 2 || !(log = malloc(size + 1)))
        return;
    if (clGetProgramBuildInfo(prog, d->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
        CL_SUCCESS)
        log[0] = '\0';
    log[size] = '\0';
    size_t n = strlen(log);
    while (n > 0 && isspace((unsigned char)log[n - 1]))
        log[--n] = '\0';
    const size_t have = cache->log ? strlen(cache->log) : 0;
    const size_t need = have + strlen(options) + n + 32;
    if (n > 0 && have < TC_BUILD_LOG_MAX) {
        char *grown = realloc(cache->log, need);
        if (grown) {
            snprintf(grown + have, need - have, "build options: %s\n%s\n", options, log);
            cache->log = grown;
        }
    }
    free(log);
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

/* The border rules' numbers as the kernels name them, one line made from tiledconv.h's enum
 * and tc_border_name ("#define BORDER_REPLICATE 0 ..."), put before Common.cl: a new rule is
 * a new name there, not a number to copy by hand. */
static char border_text[64 * TC_BORDER_COUNT];
static pthread_once_t border_once = PTHREAD_ONCE_INIT;

static void make_border_line(void)
{
    size_t used = 0;
    for (int b = 0; b < TC_BORDER_COUNT; b++) {
        char name[32];
        const char *from = tc_border_name((tc_border)b);
        size_t i = 0;
        for (; from[i] && i < sizeof name - 1; i++)
            name[i] = (char)toupper((unsigned char)from[i]);
        name[i] = '\0';
        used += (size_t)snprintf(border_text + used, sizeof border_text - used,
                                 "#define BORDER_%s %d\n", name, b);
    }
}

static const char *border_line(void)
{
    pthread_once(&border_once, make_border_line);
    return border_text;
}

/* A source's lines: the file put first (Common.cl before the filter programs, Samples.cl before
 * the two conversion programs; none before a program that shares nothing: JpegEncode.cl,
 * JpegDecode.cl), then its own
 * file. */
#define CL_FILE(name) name##_cl_lines, &name##_cl_line_count
static const struct {
    const char *const *first_lines;
    const unsigned *first_count;
    const char *const *lines;
    const unsigned *count;
} source_files[] = {
    [TC_SOURCE_FILTERS] = {CL_FILE(common), CL_FILE(tiledconv)},
    [TC_SOURCE_PIXELS] = {CL_FILE(samples), CL_FILE(pixels)},
    [TC_SOURCE_LONG] = {CL_FILE(common), CL_FILE(long)},
    [TC_SOURCE_MASKS] = {CL_FILE(common), CL_FILE(masks)},
    [TC_SOURCE_IMAGES] = {CL_FILE(common), CL_FILE(images)},
    [TC_SOURCE_GRADIENT] = {CL_FILE(common), CL_FILE(gradient)},
    [TC_SOURCE_PYRAMID] = {CL_FILE(common), CL_FILE(pyramid)},
    [TC_SOURCE_CHANNELS] = {CL_FILE(samples), CL_FILE(channels)},
    [TC_SOURCE_JPEG_ENCODE] = {NULL, NULL, CL_FILE(jpegencode)},
    [TC_SOURCE_JPEG_DECODE] = {NULL, NULL, CL_FILE(jpegdecode)},
};
#undef CL_FILE
#define N_SOURCES (sizeof source_files / sizeof source_files[0])

/* The lines of a source's first file (0 without one). */
static unsigned first_count(size_t source)
{
    return source_files[source].first_count ? *source_files[source].first_count : 0;
}

/* The most lines a program's source can have (the border line among them). */
static unsigned lines_capacity(void)
{
    unsigned n = 0;
    for (size_t i = 0; i < N_SOURCES; i++)
        if (first_count(i) + *source_files[i].count > n)
            n = first_count(i) + *source_files[i].count;
    return n + 1;
}

/* The lines of a source: its first file followed by its own. */
static int source_lines(tc_source source, const char **lines, unsigned capacity,
                        unsigned *count)
{
    const unsigned first = first_count(source);
    const unsigned file_count = *source_files[source].count;
    unsigned n = 0;
    if (first + file_count + 1 > capacity)
        return -1;
    if (source_files[source].first_lines == common_cl_lines)
        lines[n++] = border_line();
    for (unsigned i = 0; i < first; i++)
        lines[n++] = source_files[source].first_lines[i];
    for (unsigned i = 0; i < file_count; i++)
        lines[n++] = source_files[source].lines[i];
    *count = n;
    return 0;
}

/* The build options with $TILEDCONV_CL_OPTIONS after them (every program of the process: the
 * tests build theirs with -cl-opt-disable on the CPU device, where the optimiser is most of a
 * build), or NULL when the memory for them is short. Free it. */
static char *options_with_environment(const char *options)
{
    const char *extra = getenv("TILEDCONV_CL_OPTIONS");
    const size_t size = strlen(options) + (extra ? strlen(extra) : 0) + 2;
    char *all = malloc(size);
    if (all)
        snprintf(all, size, "%s%s%s", options, extra && *extra ? " " : "", extra ? extra : "");
    return all;
}

/* The program from the disk cache of an earlier process (program_cache.h) where it holds a
 * binary the driver takes, else built from source (and then kept there for the next). */
static int build(tc_program_cache *cache, const tc_device *d, tc_source source,
                 const char *own_options, cl_program *program, tc_msg *m)
{
    int status = TC_OK;
    cl_int err;
    cl_program prog = NULL;
    tc_cached_program cached;
    const unsigned capacity = lines_capacity();
    const char **lines = malloc(capacity * sizeof *lines);
    char *options = options_with_environment(own_options);
    unsigned count = 0;
    if (!lines || !options || source_lines(source, lines, capacity, &count) != 0) {
        free(lines);
        free(options);
        return tc_fail(m, TC_ENOMEM, "out of host memory for a program's source");
    }
    const int use_cache = tc_program_cache_find(d, lines, count, options, &cached) == 0;
    if (use_cache && tc_program_cache_load(d, &cached, options, &prog) == 0)
        goto built;
    prog = clCreateProgramWithSource(d->context, count, lines, NULL, &err);
    CL_CHECK(status, cleanup, m, err, "clCreateProgramWithSource");
    dump_source(lines, count, options);
    err = clBuildProgram(prog, 1, &d->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        status = cl_fail(m, err, "clBuildProgram");
        append_build_log(prog, d, options, m);
        goto cleanup;
    }
    keep_build_log(cache, prog, d, options);
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
    free(options);
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
    int status = build(cache, d, source, options, &e->program, m);
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
    free(cache->log);
    cache->log = NULL;
}
