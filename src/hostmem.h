/*
 * hostmem.h - how much memory this process can still get now, so that a run can be refused in
 * one line before it allocates rather than die inside an allocator. On the CPU OpenCL device
 * (PoCL) the device's buffers are host memory too, and PoCL aborts (SIGABRT) when it cannot
 * back one, so the library asks before it makes them.
 */
#ifndef TILEDCONV_HOSTMEM_H
#define TILEDCONV_HOSTMEM_H

typedef struct {
    unsigned long long bytes; /* the smallest room of those known; ~0ULL when none is known */
    const char *limit;        /* which: "MemAvailable", "RLIMIT_AS, ulimit -v",
                               * "RLIMIT_DATA, ulimit -d", "the cgroup's memory.max" */
} tc_host_room;

/* The room now: the host's MemAvailable (/proc/meminfo); RLIMIT_AS less the address space in
 * use (VmSize), RLIMIT_DATA less the data in use (VmData), each when set; a cgroup v2
 * memory.max less memory.current, when set. */
void tc_host_room_now(tc_host_room *room);

/* Bytes as a message shows them: "1074 MB" (decimal megabytes, like the rest of the tool). */
double tc_mb(unsigned long long bytes);

#endif
