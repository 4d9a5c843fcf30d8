/* device.c - finding, opening and listing OpenCL devices. */
#include "device.h"

#include "hostmem.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Under an address-space or data limit (ulimit -v, -d), PoCL cannot always start: it maps
 * about 240 MB of libraries and then one stack per CPU for its worker threads, and when such a
 * stack cannot be mapped it aborts the process (SIGABRT) instead of returning an error. Below
 * this much room (measured on PoCL 3.1, with a margin) the platform is not even asked. */
static unsigned long long platform_start_bytes(void)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return (320ULL << 20) + (unsigned long long)(cpus > 0 ? cpus : 1) * (16ULL << 20);
}

/* Set once every platform has listed its devices (tc_device_list; opening one device may stop
 * at another platform): PoCL starts its threads then, whatever the type asked, and maps no
 * more of them later. */
static _Atomic int platforms_started;

static int check_start_room(tc_msg *m)
{
    tc_host_room room;
    if (platforms_started)
        return TC_OK;
    tc_host_room_now(&room);
    if (strncmp(room.limit, "RLIMIT", 6) != 0 || room.bytes >= platform_start_bytes())
        return TC_OK;
    return tc_fail(m, TC_ENOMEM,
                   "%.0f MB of memory available (%s) is too little to start an OpenCL platform "
                   "safely (PoCL needs about %.0f MB here)",
                   tc_mb(room.bytes), room.limit, tc_mb(platform_start_bytes()));
}

/* The platforms, allocated; *count set. A missing ICD (-1001, CL_PLATFORM_NOT_FOUND_KHR)
 * counts as zero platforms, so that callers can say "no OpenCL platform" in words. */
static int get_platforms(cl_platform_id **out, cl_uint *count, tc_msg *m)
{
    int status = TC_OK;
    cl_platform_id *ids = NULL;
    *out = NULL;
    if ((status = check_start_room(m)) != TC_OK)
        return status;
    cl_int err = clGetPlatformIDs(0, NULL, count);
    if (err == -1001 || (err == CL_SUCCESS && *count == 0)) {
        *count = 0;
        return TC_OK;
    }
    CL_CHECK(status, cleanup, m, err, "clGetPlatformIDs");
    if (!(ids = malloc(*count * sizeof *ids)))
        return tc_fail(m, TC_ENOMEM, "out of host memory listing platforms");
    CL_CALL(status, cleanup, m, clGetPlatformIDs(*count, ids, NULL));
    *out = ids;
    return TC_OK;
cleanup:
    free(ids);
    return status;
}

/* The devices of one platform of the given type; an empty list when there is none. */
static int get_devices(cl_platform_id platform, cl_device_type type, cl_device_id **out,
                       cl_uint *count, tc_msg *m)
{
    int status = TC_OK;
    cl_device_id *ids = NULL;
    cl_int err = clGetDeviceIDs(platform, type, 0, NULL, count);
    *out = NULL;
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && *count == 0)) {
        *count = 0;
        return TC_OK;
    }
    CL_CHECK(status, cleanup, m, err, "clGetDeviceIDs");
    if (!(ids = malloc(*count * sizeof *ids)))
        return tc_fail(m, TC_ENOMEM, "out of host memory listing devices");
    CL_CALL(status, cleanup, m, clGetDeviceIDs(platform, type, *count, ids, NULL));
    *out = ids;
    return TC_OK;
cleanup:
    free(ids);
    return status;
}

/* What tc_device_info holds of a device, read from OpenCL. */
static int describe(cl_platform_id platform, cl_device_id device, int p, int d,
                    tc_device_info *info, tc_msg *m)
{
    int status = TC_OK;
    cl_device_type type = 0;
    cl_ulong global = 0, alloc = 0, local = 0;
    cl_device_fp_config fp64 = 0;
    memset(info, 0, sizeof *info);
    info->platform = p;
    info->device = d;
    CL_CALL(status, cleanup, m,
            clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof info->platform_name,
                              info->platform_name, NULL));
    CL_CALL(status, cleanup, m,
            clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof info->platform_version,
                              info->platform_version, NULL));
    CL_CALL(status, cleanup, m,
            clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof info->name, info->name, NULL));
    CL_CALL(status, cleanup, m, clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL));
    CL_CALL(status, cleanup, m,
            clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof info->compute_units,
                            &info->compute_units, NULL));
    CL_CALL(status, cleanup, m,
            clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL));
    CL_CALL(status, cleanup, m,
            clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL));
    CL_CALL(status, cleanup, m,
            clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL));
    /* 0 when the device has no double precision (an optional feature in OpenCL 1.2). */
    if (clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) !=
        CL_SUCCESS)
        fp64 = 0;
    info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    info->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    info->global_mem_bytes = global;
    info->max_alloc_bytes = alloc;
    info->local_mem_bytes = local;
    info->has_double = fp64 != 0;
cleanup:
    return status;
}

int tc_device_list(tc_device_info *list, int capacity, int *count, tc_msg *m)
{
    int status = TC_OK, n = 0;
    cl_platform_id *platforms = NULL;
    cl_device_id *devices = NULL;
    cl_uint np = 0, nd = 0;
    if ((status = get_platforms(&platforms, &np, m)) != TC_OK)
        return status;
    for (cl_uint p = 0; p < np && status == TC_OK; p++) {
        if ((status = get_devices(platforms[p], CL_DEVICE_TYPE_ALL, &devices, &nd, m)) != TC_OK)
            break;
        for (cl_uint d = 0; d < nd && status == TC_OK; d++, n++)
            if (n < capacity)
                status = describe(platforms[p], devices[d], (int)p, (int)d, &list[n], m);
        free(devices);
        devices = NULL;
    }
    free(platforms);
    if (status == TC_OK)
        *count = n, platforms_started = 1; /* every platform's, PoCL's among them */
    return status;
}

/* tc_open's request, parsed: [TYPE][:P[:D]] or P[:D]; -1 where not given. */
typedef enum { TYPE_DEFAULT, TYPE_GPU, TYPE_CPU, TYPE_ALL } type_choice;
typedef struct {
    type_choice type;
    int platform, device;
} request;

/* "gpu ", "cpu " or "" (any type), for messages. */
static const char *type_label(type_choice t)
{
    return t == TYPE_GPU ? "gpu " : t == TYPE_CPU ? "cpu " : "";
}

/* A decimal index 0..1000 at *s, advancing *s; -1 when there is no digit there. */
static int parse_index(const char **s)
{
    long v = 0;
    if (!isdigit((unsigned char)**s))
        return -1;
    while (isdigit((unsigned char)**s) && v <= 1000)
        v = v * 10 + (*(*s)++ - '0');
    return v <= 1000 ? (int)v : -2;
}

static int parse_request(const char *text, request *r, tc_msg *m)
{
    const char *s = text ? text : "";
    r->type = TYPE_DEFAULT;
    r->platform = r->device = -1;
    if (isalpha((unsigned char)*s)) {
        size_t len = strcspn(s, ":");
        if (len == 3 && strncmp(s, "gpu", 3) == 0)
            r->type = TYPE_GPU;
        else if (len == 3 && strncmp(s, "cpu", 3) == 0)
            r->type = TYPE_CPU;
        else if (len == 3 && strncmp(s, "all", 3) == 0)
            r->type = TYPE_ALL;
        else
            goto bad;
        s += len;
        if (*s == ':')
            s++;
    }
    r->platform = parse_index(&s);
    if (*s == ':') {
        s++;
        if ((r->device = parse_index(&s)) < 0)
            goto bad;
    }
    if (*s != '\0' || r->platform < -1)
        goto bad;
    return TC_OK;
bad:
    return tc_fail(m, TC_EINVAL,
                   "device '%s': expected gpu, cpu, all, P:D (platform and device indices), "
                   "P, or TYPE:P[:D]",
                   text);
}

static cl_device_type cl_type(type_choice t)
{
    return t == TYPE_GPU ? CL_DEVICE_TYPE_GPU
           : t == TYPE_CPU ? CL_DEVICE_TYPE_CPU
                           : CL_DEVICE_TYPE_ALL;
}

/* Finds the device the request names. By default a GPU first, then anything; an explicit type
 * or index is taken literally. A device index without a platform counts on the first one. */
static int find_device(const request *r, tc_device *d, tc_msg *m)
{
    cl_platform_id *platforms = NULL;
    cl_device_id *devices = NULL;
    cl_uint np = 0, nd = 0;
    int status = get_platforms(&platforms, &np, m);
    if (status != TC_OK)
        return status;
    status = TC_EINVAL;
    if (np == 0) {
        /* Under a tight memory limit the ICD loader cannot load a platform (PoCL maps about
         * 400 MB of address space) and reports none: a run-time failure, said as such. */
        tc_host_room room;
        tc_host_room_now(&room);
        if (room.bytes < (2048ULL << 20) && strncmp(room.limit, "RLIMIT", 6) == 0)
            status = tc_fail(m, TC_ENOMEM, "no OpenCL platform could be loaded with %.0f MB "
                                           "of memory available (%s)",
                             tc_mb(room.bytes), room.limit);
        else
            tc_fail(m, TC_EINVAL, "no OpenCL platform found; install an ICD such as "
                                  "pocl-opencl-icd (make deps-build does)");
        goto done;
    }
    if (r->platform >= (int)np) {
        tc_fail(m, TC_EINVAL, "platform %d: no such platform; %u found (0..%u)", r->platform,
                np, np - 1);
        goto done;
    }
    const int prefer_gpu = r->type == TYPE_DEFAULT && r->device < 0;
    const int p0 = r->platform >= 0 ? r->platform : 0;
    const int p1 = r->platform >= 0 || r->device >= 0 ? p0 : (int)np - 1;
    for (int pass = prefer_gpu ? 0 : 1; pass < 2; pass++) {
        const cl_device_type t = pass == 0 ? CL_DEVICE_TYPE_GPU : cl_type(r->type);
        for (int p = p0; p <= p1; p++) {
            if ((status = get_devices(platforms[p], t, &devices, &nd, m)) != TC_OK)
                goto done;
            const int want = r->device >= 0 ? r->device : 0;
            if (want < (int)nd) {
                d->platform = platforms[p];
                d->device = devices[want];
                status = describe(d->platform, d->device, p, want, &d->info, m);
                goto done;
            }
            if (r->device >= 0) {
                status = tc_fail(m, TC_EINVAL, "device %d: no such %sdevice on platform %d "
                                               "(%u found)",
                                 r->device, type_label(r->type), p, nd);
                goto done;
            }
            free(devices);
            devices = NULL;
        }
    }
    status = tc_fail(m, TC_EINVAL, "no %sOpenCL device on %s", type_label(r->type),
                     r->platform >= 0 ? "that platform" : "any platform");
done:
    free(devices);
    free(platforms);
    return status;
}

int tc_device_open(tc_device *d, const char *text, tc_msg *m)
{
    int status;
    cl_int err;
    request r;
    memset(d, 0, sizeof *d);
    if ((status = parse_request(text, &r, m)) != TC_OK ||
        (status = find_device(&r, d, m)) != TC_OK)
        return status;
    CL_CALL(status, cleanup, m,
            clGetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_group_size,
                            &d->max_group_size, NULL));
    CL_CALL(status, cleanup, m,
            clGetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof d->max_item_sizes,
                            d->max_item_sizes, NULL));
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform,
                                     0};
    d->context = clCreateContext(props, 1, &d->device, NULL, NULL, &err);
    CL_CHECK(status, cleanup, m, err, "clCreateContext");
    d->queue = clCreateCommandQueue(d->context, d->device, CL_QUEUE_PROFILING_ENABLE, &err);
    CL_CHECK(status, cleanup, m, err, "clCreateCommandQueue");
    return TC_OK;
cleanup:
    tc_device_close(d);
    return status;
}

void tc_device_close(tc_device *d)
{
    if (d->queue)
        clReleaseCommandQueue(d->queue);
    if (d->context)
        clReleaseContext(d->context);
    d->queue = NULL;
    d->context = NULL;
}

int tc_event_ms(cl_event event, double *ms, tc_msg *m)
{
    return tc_event_span_ms(event, event, ms, m);
}

int tc_stat_ms(cl_event event, double *ms, tc_msg *m)
{
    return tc_stat_span_ms(event, event, ms, m);
}

/* One counter of a finished command: TC_OK with *t, TC_OK with *missing set where the driver
 * kept none, or the failure. Each counter is asked for once: a batch asks for a few an image,
 * and each question is a driver call on the calling thread. */
static int stat_counter(cl_event event, cl_profiling_info which, const char *name, cl_ulong *t,
                        int *missing, tc_msg *m)
{
    int status = TC_OK;
    const cl_int err = clGetEventProfilingInfo(event, which, sizeof *t, t, NULL);
    if (err == CL_PROFILING_INFO_NOT_AVAILABLE)
        *missing = 1;
    else
        CL_CHECK(status, cleanup, m, err, name);
cleanup:
    return status;
}

int tc_stat_span_ms(cl_event first, cl_event last, double *ms, tc_msg *m)
{
    int status, missing = 0;
    cl_ulong start = 0, end = 0;
    if ((status = stat_counter(first, CL_PROFILING_COMMAND_START,
                               "clGetEventProfilingInfo(CL_PROFILING_COMMAND_START)", &start,
                               &missing, m)) != TC_OK ||
        (!missing && (status = stat_counter(last, CL_PROFILING_COMMAND_END,
                                            "clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)",
                                            &end, &missing, m)) != TC_OK))
        return status;
    *ms = !missing && end > start ? (double)(end - start) / 1e6 : 0.0;
    return TC_OK;
}

int tc_event_span_ms(cl_event first, cl_event last, double *ms, tc_msg *m)
{
    int status = TC_OK;
    cl_ulong start = 0, end = 0;
    CL_CALL(status, cleanup, m,
            clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                    NULL));
    CL_CALL(status, cleanup, m,
            clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
    *ms = end > start ? (double)(end - start) / 1e6 : 0.0;
cleanup:
    return status;
}

void tc_event_release(cl_event *e)
{
    if (*e)
        clReleaseEvent(*e);
    *e = NULL;
}

void tc_events_free(cl_event *events, size_t count)
{
    if (!events)
        return;
    for (size_t i = 0; i < count; i++)
        if (events[i])
            clReleaseEvent(events[i]);
    free(events);
}
