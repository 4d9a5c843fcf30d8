/* status.c - status codes and their one-line reasons; the names of OpenCL's error codes. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int tc_fail(tc_msg *m, int code, const char *fmt, ...)
{
    if (m) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->text, sizeof m->text, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *cl_error_name(cl_int err)
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

int cl_fail(tc_msg *m, cl_int err, const char *what)
{
    /* CL_CALL passes the whole call's text: its function name is what a reader needs. */
    const char *paren = strchr(what, '(');
    int len = (int)strlen(what);
    if (paren && strchr(paren, ','))
        len = (int)(paren - what);
    const int code = err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY
                         ? TC_ENOMEM
                         : TC_EDEVICE;
    return tc_fail(m, code, "%.*s failed: %s (%d)", len, what, cl_error_name(err), (int)err);
}

double tc_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
