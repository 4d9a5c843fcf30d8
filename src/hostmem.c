/* hostmem.c - the memory this process can still get (hostmem.h). */
#include "hostmem.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* A "Name:   N kB" line of a /proc file: 1 and its value in bytes in *bytes, or 0 when the
 * line is absent. */
static int proc_kb(const char *path, const char *name, unsigned long long *bytes)
{
    FILE *f = fopen(path, "r");
    char line[256];
    const size_t len = strlen(name);
    int found = 0;
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long long kb;
        if (strncmp(line, name, len) == 0 && line[len] == ':' &&
            sscanf(line + len + 1, "%llu", &kb) == 1) {
            *bytes = kb * 1024ULL;
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* One number from a file (a cgroup's memory.max or memory.current): 1, or 0 for "max" (no
 * limit) and for no file. */
static int file_number(const char *path, unsigned long long *value)
{
    FILE *f = fopen(path, "r");
    int ok = f && fscanf(f, "%llu", value) == 1;
    if (f)
        fclose(f);
    return ok;
}

/* Takes room as the new smallest when it is smaller. */
static void consider(tc_host_room *r, unsigned long long room, const char *limit)
{
    if (room < r->bytes) {
        r->bytes = room;
        r->limit = limit;
    }
}

/* An rlimit less what the process already uses of it (a /proc/self/status field). */
static void consider_rlimit(tc_host_room *r, int resource, const char *field, const char *limit)
{
    struct rlimit rl;
    unsigned long long used = 0;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return;
    proc_kb("/proc/self/status", field, &used);
    consider(r, (unsigned long long)rl.rlim_cur > used ? (unsigned long long)rl.rlim_cur - used
                                                         : 0,
             limit);
}

/* cgroup v2: "0::/PATH" in /proc/self/cgroup names the group whose memory.max applies. */
static void consider_cgroup(tc_host_room *r)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[512], path[700];
    unsigned long long max = 0, current = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) != 0)
            continue;
        line[strcspn(line, "\n")] = '\0';
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
        if (file_number(path, &max)) {
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", line + 3);
            file_number(path, &current);
            consider(r, max > current ? max - current : 0, "the cgroup's memory.max");
        }
        break;
    }
    fclose(f);
}

void tc_host_room_now(tc_host_room *room)
{
    unsigned long long available;
    room->bytes = ~0ULL;
    room->limit = "no known limit";
    if (proc_kb("/proc/meminfo", "MemAvailable", &available))
        consider(room, available, "MemAvailable");
    consider_rlimit(room, RLIMIT_AS, "VmSize", "RLIMIT_AS, ulimit -v");
    consider_rlimit(room, RLIMIT_DATA, "VmData", "RLIMIT_DATA, ulimit -d");
    consider_cgroup(room);
}

int tc_host_address_bounded(void)
{
    struct rlimit as, data;
    return (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
           (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY);
}

unsigned long long tc_host_resident(void)
{
    unsigned long long rss = 0;
    proc_kb("/proc/self/status", "VmRSS", &rss);
    return rss;
}

double tc_mb(unsigned long long bytes)
{
    return (double)bytes / 1e6;
}
