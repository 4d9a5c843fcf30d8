/* ocl_util.c - OpenCL plumbing shared by every algorithm. */
#include "ocl_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *ocl_error_name(cl_int err)
{
    switch (err) {
#define NAME(code) case code: return #code
    NAME(CL_SUCCESS);
    NAME(CL_DEVICE_NOT_FOUND);
    NAME(CL_DEVICE_NOT_AVAILABLE);
    NAME(CL_COMPILER_NOT_AVAILABLE);
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    NAME(CL_OUT_OF_RESOURCES);
    NAME(CL_OUT_OF_HOST_MEMORY);
    NAME(CL_PROFILING_INFO_NOT_AVAILABLE);
    NAME(CL_MEM_COPY_OVERLAP);
    NAME(CL_IMAGE_FORMAT_MISMATCH);
    NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    NAME(CL_BUILD_PROGRAM_FAILURE);
    NAME(CL_MAP_FAILURE);
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET);
    NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    NAME(CL_COMPILE_PROGRAM_FAILURE);
    NAME(CL_LINKER_NOT_AVAILABLE);
    NAME(CL_LINK_PROGRAM_FAILURE);
    NAME(CL_DEVICE_PARTITION_FAILED);
    NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    NAME(CL_INVALID_VALUE);
    NAME(CL_INVALID_DEVICE_TYPE);
    NAME(CL_INVALID_PLATFORM);
    NAME(CL_INVALID_DEVICE);
    NAME(CL_INVALID_CONTEXT);
    NAME(CL_INVALID_QUEUE_PROPERTIES);
    NAME(CL_INVALID_COMMAND_QUEUE);
    NAME(CL_INVALID_HOST_PTR);
    NAME(CL_INVALID_MEM_OBJECT);
    NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    NAME(CL_INVALID_IMAGE_SIZE);
    NAME(CL_INVALID_SAMPLER);
    NAME(CL_INVALID_BINARY);
    NAME(CL_INVALID_BUILD_OPTIONS);
    NAME(CL_INVALID_PROGRAM);
    NAME(CL_INVALID_PROGRAM_EXECUTABLE);
    NAME(CL_INVALID_KERNEL_NAME);
    NAME(CL_INVALID_KERNEL_DEFINITION);
    NAME(CL_INVALID_KERNEL);
    NAME(CL_INVALID_ARG_INDEX);
    NAME(CL_INVALID_ARG_VALUE);
    NAME(CL_INVALID_ARG_SIZE);
    NAME(CL_INVALID_KERNEL_ARGS);
    NAME(CL_INVALID_WORK_DIMENSION);
    NAME(CL_INVALID_WORK_GROUP_SIZE);
    NAME(CL_INVALID_WORK_ITEM_SIZE);
    NAME(CL_INVALID_GLOBAL_OFFSET);
    NAME(CL_INVALID_EVENT_WAIT_LIST);
    NAME(CL_INVALID_EVENT);
    NAME(CL_INVALID_OPERATION);
    NAME(CL_INVALID_GL_OBJECT);
    NAME(CL_INVALID_BUFFER_SIZE);
    NAME(CL_INVALID_MIP_LEVEL);
    NAME(CL_INVALID_GLOBAL_WORK_SIZE);
    NAME(CL_INVALID_PROPERTY);
    NAME(CL_INVALID_IMAGE_DESCRIPTOR);
    NAME(CL_INVALID_COMPILER_OPTIONS);
    NAME(CL_INVALID_LINKER_OPTIONS);
    NAME(CL_INVALID_DEVICE_PARTITION_COUNT);
#undef NAME
    /* Codes of later OpenCL versions, by value: the 1.2 headers we build with lack the names. */
    case -69: return "CL_INVALID_PIPE_SIZE";
    case -70: return "CL_INVALID_DEVICE_QUEUE";
    case -71: return "CL_INVALID_SPEC_ID";
    case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform is installed)";
    default: return "unknown OpenCL error";
    }
}

void ocl_report(const char *what, cl_int err, const char *file, int line)
{
    fprintf(stderr, "tiledconv: %s failed: %s (%d) at %s:%d\n", what, ocl_error_name(err),
            (int)err, file, line);
}

double ocl_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double ocl_event_ms(cl_event event)
{
    cl_ulong start = 0, end = 0;
    cl_int err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                         NULL);
    if (err == CL_SUCCESS)
        err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    if (err != CL_SUCCESS) {
        ocl_report("clGetEventProfilingInfo", err, __FILE__, __LINE__);
        return -1.0;
    }
    return (double)(end - start) / 1e6;
}

/* Platform list, allocated; *count set. Returns 0, or 1 reported. A missing ICD (-1001) counts
 * as zero platforms so that the caller can say "no OpenCL platform" in words. */
static int get_platforms(cl_platform_id **out, cl_uint *count)
{
    int status = 0;
    cl_platform_id *ids = NULL;
    cl_int err = clGetPlatformIDs(0, NULL, count);
    if (err == -1001 || (err == CL_SUCCESS && *count == 0)) {
        *count = 0;
        *out = NULL;
        return 0;
    }
    OCL_CHECK(err, "clGetPlatformIDs");
    ids = malloc(*count * sizeof *ids);
    if (!ids) {
        fprintf(stderr, "tiledconv: out of host memory listing platforms\n");
        return 1;
    }
    OCL_CALL(clGetPlatformIDs(*count, ids, NULL));
    *out = ids;
    return 0;
cleanup:
    free(ids);
    return status;
}

/* Devices of one platform of the given type; an empty list when there is none. */
static int get_devices(cl_platform_id platform, cl_device_type type, cl_device_id **out,
                       cl_uint *count)
{
    int status = 0;
    cl_device_id *ids = NULL;
    cl_int err = clGetDeviceIDs(platform, type, 0, NULL, count);
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && *count == 0)) {
        *count = 0;
        *out = NULL;
        return 0;
    }
    OCL_CHECK(err, "clGetDeviceIDs");
    ids = malloc(*count * sizeof *ids);
    if (!ids) {
        fprintf(stderr, "tiledconv: out of host memory listing devices\n");
        return 1;
    }
    OCL_CALL(clGetDeviceIDs(platform, type, *count, ids, NULL));
    *out = ids;
    return 0;
cleanup:
    free(ids);
    return status;
}

static const char *type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (t & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "other";
}

int ocl_list_devices(FILE *out)
{
    int status = 0;
    cl_platform_id *platforms = NULL;
    cl_device_id *devices = NULL;
    cl_uint np = 0, nd = 0;
    if (get_platforms(&platforms, &np))
        return 1;
    if (np == 0)
        fprintf(out, "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)\n");
    for (cl_uint p = 0; p < np; p++) {
        char name[256] = "", version[256] = "";
        OCL_CALL(clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name, name, NULL));
        OCL_CALL(clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, sizeof version, version,
                                   NULL));
        fprintf(out, "platform %u: %s (%s)\n", p, name, version);
        if (get_devices(platforms[p], CL_DEVICE_TYPE_ALL, &devices, &nd)) {
            status = 1;
            goto cleanup;
        }
        for (cl_uint d = 0; d < nd; d++) {
            char dname[256] = "";
            cl_device_type t = 0;
            cl_ulong mem = 0;
            cl_uint units = 0;
            OCL_CALL(clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof dname, dname, NULL));
            OCL_CALL(clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof t, &t, NULL));
            OCL_CALL(clGetDeviceInfo(devices[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem,
                                     NULL));
            OCL_CALL(clGetDeviceInfo(devices[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units,
                                     &units, NULL));
            fprintf(out, "  device %u: %s [%s, %u compute units, %.1f GiB]  (-p %u -d %u)\n", d,
                    dname, type_name(t), units, (double)mem / (1024.0 * 1024.0 * 1024.0), p, d);
        }
        free(devices);
        devices = NULL;
    }
cleanup:
    free(devices);
    free(platforms);
    return status;
}

static cl_device_type wanted_type(ocl_type_choice c)
{
    switch (c) {
    case OCL_TYPE_GPU: return CL_DEVICE_TYPE_GPU;
    case OCL_TYPE_CPU: return CL_DEVICE_TYPE_CPU;
    default: return CL_DEVICE_TYPE_ALL;
    }
}

/* Finds the device the selection names. Returns 0 (found), 2 (nothing matches: usage), 1. */
static int find_device(const ocl_selection *sel, ocl_env *env)
{
    cl_platform_id *platforms = NULL;
    cl_device_id *devices = NULL;
    cl_uint np = 0, nd = 0;
    int status = 2;
    if (get_platforms(&platforms, &np))
        return 1;
    if (np == 0) {
        fprintf(stderr, "tiledconv: no OpenCL platform found; install an ICD such as "
                        "pocl-opencl-icd (make deps-build does)\n");
        goto done;
    }
    if (sel->platform_index >= (int)np) {
        fprintf(stderr, "tiledconv: -p %d: no such platform; %u found (0..%u), see -l\n",
                sel->platform_index, np, np - 1);
        goto done;
    }
    /* Default: a GPU first, then anything. An explicit type or index is taken literally. */
    int passes = (sel->type == OCL_TYPE_DEFAULT && sel->device_index < 0) ? 2 : 1;
    for (int pass = 0; pass < passes; pass++) {
        cl_device_type t = (sel->type == OCL_TYPE_DEFAULT && sel->device_index < 0 && pass == 0)
                               ? CL_DEVICE_TYPE_GPU
                               : wanted_type(sel->type);
        int p0 = sel->platform_index >= 0 ? sel->platform_index : 0;
        int p1 = sel->platform_index >= 0 ? sel->platform_index : (int)np - 1;
        /* -d without -p counts devices on the first platform, as -p 0 -d N would. */
        if (sel->device_index >= 0 && sel->platform_index < 0)
            p1 = p0;
        for (int p = p0; p <= p1; p++) {
            if (get_devices(platforms[p], t, &devices, &nd)) {
                status = 1;
                goto done;
            }
            int want = sel->device_index >= 0 ? sel->device_index : 0;
            if (want < (int)nd) {
                env->platform = platforms[p];
                env->device = devices[want];
                env->platform_index = p;
                env->device_index = want;
                status = 0;
                goto done;
            }
            if (sel->device_index >= 0) {
                fprintf(stderr, "tiledconv: -d %d: no such device on platform %d (%u found), "
                                "see -l\n", sel->device_index, p, nd);
                goto done;
            }
            free(devices);
            devices = NULL;
        }
    }
    if (sel->type == OCL_TYPE_DEFAULT)
        fprintf(stderr, "tiledconv: no OpenCL device on %s, see -l\n",
                sel->platform_index >= 0 ? "that platform (-p)" : "any platform");
    else
        fprintf(stderr, "tiledconv: --device %s: no such device on %s, see -l\n",
                sel->type == OCL_TYPE_CPU ? "cpu" : sel->type == OCL_TYPE_GPU ? "gpu" : "all",
                sel->platform_index >= 0 ? "that platform (-p)" : "any platform");
done:
    free(devices);
    free(platforms);
    return status;
}

int ocl_env_open(ocl_env *env, const ocl_selection *sel)
{
    int status;
    cl_int err;
    memset(env, 0, sizeof *env);
    status = find_device(sel, env);
    if (status)
        return status;

    OCL_CALL(clGetPlatformInfo(env->platform, CL_PLATFORM_NAME, sizeof env->platform_name,
                               env->platform_name, NULL));
    OCL_CALL(clGetDeviceInfo(env->device, CL_DEVICE_NAME, sizeof env->device_name,
                             env->device_name, NULL));
    OCL_CALL(clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof env->type, &env->type, NULL));
    OCL_CALL(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                             sizeof env->max_group_size, &env->max_group_size, NULL));
    OCL_CALL(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                             sizeof env->max_item_sizes, env->max_item_sizes, NULL));
    OCL_CALL(clGetDeviceInfo(env->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof env->local_mem_size,
                             &env->local_mem_size, NULL));
    OCL_CALL(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                             sizeof env->max_alloc_size, &env->max_alloc_size, NULL));
    OCL_CALL(clGetDeviceInfo(env->device, CL_DEVICE_GLOBAL_MEM_SIZE,
                             sizeof env->global_mem_size, &env->global_mem_size, NULL));

    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform,
                                     0};
    env->context = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
    OCL_CHECK(err, "clCreateContext");
    env->queue = clCreateCommandQueue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE, &err);
    OCL_CHECK(err, "clCreateCommandQueue");
    return 0;
cleanup:
    ocl_env_close(env);
    return status;
}

void ocl_env_close(ocl_env *env)
{
    if (env->queue)
        clReleaseCommandQueue(env->queue);
    if (env->context)
        clReleaseContext(env->context);
    env->queue = NULL;
    env->context = NULL;
}

/* For kernel studies: TILEDCONV_DUMP_PROGRAM=FILE writes the built program's binary (PTX on
 * NVIDIA) to FILE, so that register use and the machine code can be read off the device. */
static void dump_binary(cl_program prog)
{
    const char *path = getenv("TILEDCONV_DUMP_PROGRAM");
    size_t size = 0;
    unsigned char *bin = NULL;
    FILE *f = NULL;
    if (!path || clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) !=
                     CL_SUCCESS || size == 0 || !(bin = malloc(size)))
        return;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS &&
        (f = fopen(path, "wb")) != NULL) {
        if (fwrite(bin, 1, size, f) != size)
            fprintf(stderr, "tiledconv: %s: could not write the program binary\n", path);
        fclose(f);
    }
    free(bin);
}

int ocl_build_program(ocl_env *env, const char *const *lines, unsigned line_count,
                      const char *options, cl_program *program, double *build_ms)
{
    int status = 0;
    cl_int err;
    char *log = NULL;
    double t0 = ocl_wall_ms();
    cl_program prog = clCreateProgramWithSource(env->context, line_count, (const char **)lines,
                                                NULL, &err);
    OCL_CHECK(err, "clCreateProgramWithSource");
    err = clBuildProgram(prog, 1, &env->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t size = 0;
        ocl_report("clBuildProgram", err, __FILE__, __LINE__);
        fprintf(stderr, "tiledconv: build options: %s\n", options);
        if (clGetProgramBuildInfo(prog, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) ==
                CL_SUCCESS &&
            (log = malloc(size + 1)) != NULL &&
            clGetProgramBuildInfo(prog, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) ==
                CL_SUCCESS) {
            log[size] = '\0';
            fprintf(stderr, "tiledconv: build log:\n%s\n", log);
        }
        status = 1;
        goto cleanup;
    }
    *build_ms = ocl_wall_ms() - t0;
    dump_binary(prog);
    *program = prog;
    prog = NULL;
cleanup:
    if (prog)
        clReleaseProgram(prog);
    free(log);
    return status;
}
