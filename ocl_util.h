/*
 * ocl_util.h - OpenCL plumbing: error names, one checking macro, device selection, program
 * builds, event timing. Every OpenCL call in the project goes through OCL_CHECK or OCL_CALL.
 */
#ifndef TILEDCONV_OCL_UTIL_H
#define TILEDCONV_OCL_UTIL_H

#include <stdio.h>

#include <CL/cl.h>

/* "CL_INVALID_WORK_GROUP_SIZE" for -54; "unknown OpenCL error" for codes we do not know. */
const char *ocl_error_name(cl_int err);

/* Prints "tiledconv: WHAT failed: CL_NAME (code) at file:line" to stderr. */
void ocl_report(const char *what, cl_int err, const char *file, int line);

/* Checks a status code; on failure reports it by name and jumps to the function's cleanup
 * label. The caller's `status` variable (int) is set to 1, the run-time failure exit status. */
#define OCL_CHECK(err, what)                                                                    \
    do {                                                                                        \
        cl_int ocl_err_ = (err);                                                                \
        if (ocl_err_ != CL_SUCCESS) {                                                           \
            ocl_report((what), ocl_err_, __FILE__, __LINE__);                                   \
            status = 1;                                                                         \
            goto cleanup;                                                                       \
        }                                                                                       \
    } while (0)

/* For calls that return their status: the call's own text names it in the report. */
#define OCL_CALL(call) OCL_CHECK((call), #call)

typedef enum { OCL_TYPE_DEFAULT, OCL_TYPE_GPU, OCL_TYPE_CPU, OCL_TYPE_ALL } ocl_type_choice;

typedef struct {
    int platform_index;  /* -1: any */
    int device_index;    /* -1: the first that fits */
    ocl_type_choice type;
} ocl_selection;

/* One opened device with its context and profiling queue, and the limits kernels care about. */
typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    int platform_index, device_index;
    char platform_name[256];
    char device_name[256];
    cl_device_type type;
    size_t max_group_size;
    size_t max_item_sizes[3];
    cl_ulong local_mem_size;
    cl_ulong max_alloc_size;
    cl_ulong global_mem_size;
} ocl_env;

/* Opens the selected device: 0 on success; 2 when the selection names nothing that exists (a
 * usage error, message on stderr); 1 on an OpenCL failure. Prefers a GPU by default. */
int ocl_env_open(ocl_env *env, const ocl_selection *sel);
void ocl_env_close(ocl_env *env);

/* Lists every platform and device with their indices. Returns 0, or 1 on an OpenCL failure. */
int ocl_list_devices(FILE *out);

/* Builds a program from source lines with the given options for env's device; prints the build
 * log and the options on failure. Returns 0, or 1 (reported). *build_ms: host wall time. */
int ocl_build_program(ocl_env *env, const char *const *lines, unsigned line_count,
                      const char *options, cl_program *program, double *build_ms);

/* Kernel time of a finished event from its profiling counters, in ms. The nanosecond
 * timestamps stay cl_ulong until this one division. Returns a negative value on failure. */
double ocl_event_ms(cl_event event);

/* Host wall clock in ms (CLOCK_MONOTONIC), for build times and the launches of a batch. */
double ocl_wall_ms(void);

#endif
