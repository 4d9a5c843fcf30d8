/* program_cache.c - built programs kept on disk between processes (program_cache.h). */
#include "program_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first line of every cache file; the number changes when the layout does. */
static const char magic[] = "tiledconv program cache 1\n";

/* The largest binary kept or loaded: far above any program of ours (PoCL's are about 100 KB,
 * NVIDIA's PTX tens of KB), and a bound on what a damaged file can make us allocate. */
#define MAX_BINARY ((uint64_t)64 << 20)

/* 64-bit FNV-1a, continued from h: for the file names and the checksums. A checksum against
 * damage, not an adversary: the folder is the user's own and nobody else may write it. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

#define FNV_START 0xcbf29ce484222325ULL

/* Makes the folder (and its missing parents) with mode 0700. 0, or -1. */
static int make_folder(const char *path)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    for (char *p = copy + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(copy, 0700) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(copy, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* The cache's folder, made if missing; -1 when the cache is off or the folder cannot be used
 * safely (not a folder, another user's, writable by others). */
static int cache_folder(char *out, size_t size)
{
    const char *set = getenv("TILEDCONV_PROGRAM_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    struct stat st;
    if (set && (!*set || strcmp(set, "0") == 0 || strcmp(set, "off") == 0))
        return -1;
    if (set)
        snprintf(out, size, "%s", set);
    else if (xdg && xdg[0] == '/') /* XDG: a relative value is to be ignored */
        snprintf(out, size, "%s/tiledconv", xdg);
    else if (home && home[0] == '/')
        snprintf(out, size, "%s/.cache/tiledconv", home);
    else
        return -1;
    if (stat(out, &st) != 0 && (make_folder(out) != 0 || stat(out, &st) != 0))
        return -1;
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0)
        return -1;
    return 0;
}

/* A device's or platform's text property, or "" when it cannot be read. */
static void device_text(cl_device_id d, cl_device_info what, char *out, size_t size)
{
    if (clGetDeviceInfo(d, what, size, out, NULL) != CL_SUCCESS)
        out[0] = '\0';
    out[size - 1] = '\0';
}

int tc_program_cache_find(const tc_device *d, const char *const *lines, unsigned count,
                          const char *options, tc_cached_program *entry)
{
    char dir[3800], device_version[256], driver[256];
    memset(entry, 0, sizeof *entry);
    if (cache_folder(dir, sizeof dir) != 0)
        return -1;
    device_text(d->device, CL_DEVICE_VERSION, device_version, sizeof device_version);
    device_text(d->device, CL_DRIVER_VERSION, driver, sizeof driver);
    uint64_t source = FNV_START;
    for (unsigned i = 0; i < count; i++)
        source = fnv1a(fnv1a(source, lines[i], strlen(lines[i])), "\n", 1);
    const char *fmt = "platform=%s|%s\ndevice=%s|%s\ndriver=%s\nsource=%016llx\noptions=%s\n";
    const int n = snprintf(NULL, 0, fmt, d->info.platform_name, d->info.platform_version,
                           d->info.name, device_version, driver, (unsigned long long)source,
                           options);
    if (n < 0 || !(entry->key = malloc((size_t)n + 1)))
        return -1;
    snprintf(entry->key, (size_t)n + 1, fmt, d->info.platform_name, d->info.platform_version,
             d->info.name, device_version, driver, (unsigned long long)source, options);
    snprintf(entry->path, sizeof entry->path, "%s/%016llx.bin", dir,
             (unsigned long long)fnv1a(FNV_START, entry->key, (size_t)n));
    return 0;
}

void tc_program_cache_entry_free(tc_cached_program *entry)
{
    free(entry->key);
    entry->key = NULL;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (unsigned char)(v & 0xff);
}

/* The whole file, at most `limit` bytes, into a new buffer. 0, or -1. */
static int read_whole(const char *path, size_t limit, unsigned char **data, size_t *size)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    unsigned char *buf = NULL;
    size_t got = 0;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > limit || !(buf = malloc((size_t)st.st_size))) {
        close(fd);
        return -1;
    }
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != (size_t)st.st_size) {
        free(buf);
        return -1;
    }
    *data = buf;
    *size = got;
    return 0;
}

int tc_program_cache_load(const tc_device *d, const tc_cached_program *entry,
                          const char *options, cl_program *program)
{
    const size_t key_len = strlen(entry->key), head = sizeof magic - 1;
    unsigned char *file = NULL;
    size_t size = 0;
    cl_program prog = NULL;
    int rc = -1;
    if (read_whole(entry->path, head + 24 + key_len + MAX_BINARY, &file, &size) != 0)
        return -1;
    /* The magic line, the key (exactly ours), the binary, the checksum over key and binary. */
    if (size < head + 24 + key_len || memcmp(file, magic, head) != 0 ||
        get_u64(file + head) != key_len || memcmp(file + head + 8, entry->key, key_len) != 0)
        goto done;
    const unsigned char *bin_head = file + head + 8 + key_len;
    const uint64_t bin_len = get_u64(bin_head);
    if (bin_len == 0 || bin_len > MAX_BINARY || size != head + 24 + key_len + bin_len)
        goto done;
    const unsigned char *bin = bin_head + 8;
    const uint64_t sum = fnv1a(fnv1a(FNV_START, entry->key, key_len), bin, (size_t)bin_len);
    if (get_u64(bin + bin_len) != sum)
        goto done;
    /* The driver's word last: a binary it does not take, or will not build, is not used. */
    const size_t length = (size_t)bin_len;
    cl_int err, bin_status = CL_SUCCESS;
    prog = clCreateProgramWithBinary(d->context, 1, &d->device, &length, &bin, &bin_status, &err);
    if (err != CL_SUCCESS || bin_status != CL_SUCCESS ||
        clBuildProgram(prog, 1, &d->device, options, NULL, NULL) != CL_SUCCESS)
        goto done;
    *program = prog;
    prog = NULL;
    rc = 0;
done:
    if (prog)
        clReleaseProgram(prog);
    free(file);
    return rc;
}

void tc_program_cache_store(const tc_device *d, const tc_cached_program *entry,
                            cl_program program)
{
    const size_t key_len = strlen(entry->key), head = sizeof magic - 1;
    size_t bin_len = 0;
    unsigned char *file = NULL;
    char tmp[sizeof entry->path + 8];
    (void)d;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof bin_len, &bin_len, NULL) !=
            CL_SUCCESS ||
        bin_len == 0 || bin_len > MAX_BINARY ||
        !(file = malloc(head + 24 + key_len + bin_len)))
        return;
    unsigned char *bin = file + head + 16 + key_len;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
        free(file);
        return;
    }
    memcpy(file, magic, head);
    put_u64(file + head, key_len);
    memcpy(file + head + 8, entry->key, key_len);
    put_u64(file + head + 8 + key_len, bin_len);
    put_u64(bin + bin_len, fnv1a(fnv1a(FNV_START, entry->key, key_len), bin, bin_len));
    /* Under a name of this process's own, then renamed over the entry: a reader sees the old
     * file or the new one, whole, never a part (and a part left by a crash fails the checks). */
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", entry->path);
    const int fd = mkstemp(tmp);
    if (fd >= 0) {
        const size_t total = head + 24 + key_len + bin_len;
        size_t done = 0;
        while (done < total) {
            ssize_t w = write(fd, file + done, total - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            done += (size_t)w;
        }
        const int ok = close(fd) == 0 && done == total;
        if (!ok || rename(tmp, entry->path) != 0)
            unlink(tmp);
    }
    free(file);
}
