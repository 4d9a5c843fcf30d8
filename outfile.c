/* outfile.c - output path checks, the 8-bit conversion with --scale/--offset, the colour image,
 * and the --raw float file. */
#include "outfile.h"

#include "atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A new name must be in an existing folder, so that a typo fails before any work is done. */
static int check_folder(const char *flag, const char *path, char *err, size_t err_size)
{
    const char *slash = strrchr(path, '/');
    struct stat st;
    char folder[4096];
    if (!slash)
        return 0; /* the working directory */
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    if (len >= sizeof folder) {
        snprintf(err, err_size, "%s %s: the path is too long", flag, path);
        return -1;
    }
    memcpy(folder, path, len);
    folder[len] = '\0';
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "%s %s: the folder %s does not exist", flag, path, folder);
        return -1;
    }
    return 0;
}

int outfile_check(const char *out_path, const char *in_path, char *err, size_t err_size)
{
    return outfile_check_flag("-o", out_path, in_path, err, err_size);
}

int outfile_check_flag(const char *flag, const char *out_path, const char *in_path, char *err,
                       size_t err_size)
{
    struct stat out_st, in_st;
    if (out_path[0] == '\0') {
        snprintf(err, err_size, "%s: the output file name is empty", flag);
        return -1;
    }
    if (stat(out_path, &out_st) != 0) {
        if (errno == ENOENT)
            return check_folder(flag, out_path, err, err_size); /* a new name */
        snprintf(err, err_size, "%s %s: %s", flag, out_path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(out_st.st_mode)) {
        snprintf(err, err_size, "%s %s: not a regular file; refusing to replace it", flag,
                 out_path);
        return -1;
    }
    /* The same file under another name (a link, ./x vs x) is still the input. */
    if (in_path && stat(in_path, &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino) {
        snprintf(err, err_size, "%s %s: this is the input file; refusing to overwrite it", flag,
                 out_path);
        return -1;
    }
    return 0;
}

/* The folder part of path ("." for none) into buf; the name part is returned. */
static const char *split_path(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t len = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    if (!slash || len >= size)
        snprintf(buf, size, ".");
    else
        snprintf(buf, size, "%.*s", (int)len, path);
    return slash ? slash + 1 : path;
}

int outfile_same(const char *a, const char *b)
{
    struct stat sa, sb;
    char dir_a[4096], dir_b[4096];
    if (strcmp(a, b) == 0)
        return 1;
    int has_a = stat(a, &sa) == 0, has_b = stat(b, &sb) == 0;
    if (has_a || has_b)
        return has_a && has_b && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    /* Two new names: the same name in the same folder (x.bmp and ./x.bmp). */
    const char *name_a = split_path(a, dir_a, sizeof dir_a);
    const char *name_b = split_path(b, dir_b, sizeof dir_b);
    return strcmp(name_a, name_b) == 0 && stat(dir_a, &sa) == 0 && stat(dir_b, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

uint8_t outfile_map_byte(float v, double scale, double offset)
{
    double m = (double)v * scale + offset;
    if (!(m > 0.0)) /* negative, zero and NaN */
        return 0;
    if (m >= 255.0)
        return 255;
    return (uint8_t)floor(m + 0.5);
}

uint8_t outfile_to_byte(float v)
{
    return outfile_map_byte(v, 1.0, 0.0);
}

static int in_roi(const tc_roi *roi, int x, int y)
{
    return !roi || tc_roi_in_target(roi, x, y); /* NULL: the whole image */
}

/* Converts plane p into every stride-th byte of dst, mapping only the target ROI's pixels. */
static void convert_plane(const tc_plane *p, const tc_roi *roi, double scale, double offset,
                          uint8_t *dst, size_t stride)
{
    size_t i = 0;
    for (int y = 0; y < p->height; y++)
        for (int x = 0; x < p->width; x++, i++)
            dst[i * stride] = in_roi(roi, x, y) ? outfile_map_byte(p->px[i], scale, offset)
                                                : outfile_to_byte(p->px[i]);
}

uint8_t *outfile_gray8(const tc_plane *p, const tc_roi *roi, double scale, double offset)
{
    size_t n = (size_t)p->width * (size_t)p->height;
    uint8_t *g = malloc(n ? n : 1);
    if (!g)
        return NULL;
    convert_plane(p, roi, scale, offset, g, 1);
    return g;
}

uint8_t *outfile_rgb24(const tc_plane planes[3], const tc_roi *roi, double scale,
                       double offset)
{
    size_t n = (size_t)planes[0].width * (size_t)planes[0].height;
    uint8_t *rgb = malloc(n ? 3 * n : 1);
    if (!rgb)
        return NULL;
    for (int c = 0; c < 3; c++)
        convert_plane(&planes[c], roi, scale, offset, rgb + c, 3);
    return rgb;
}

/* The planes as little-endian float32, whatever the host's byte order. */
int outfile_write_raw_stream(FILE *f, const tc_plane *planes, int count)
{
    const uint32_t probe = 1;
    const int little = *(const unsigned char *)&probe == 1;
    unsigned char buf[4096 * 4];
    for (int c = 0; c < count; c++) {
        size_t n = (size_t)planes[c].width * (size_t)planes[c].height;
        for (size_t done = 0; done < n;) {
            size_t chunk = n - done < 4096 ? n - done : 4096;
            memcpy(buf, planes[c].px + done, chunk * 4);
            for (size_t i = 0; !little && i < chunk; i++) {
                unsigned char *b = buf + 4 * i, t0 = b[0], t1 = b[1];
                b[0] = b[3];
                b[1] = b[2];
                b[2] = t1;
                b[3] = t0;
            }
            if (fwrite(buf, 4, chunk, f) != chunk)
                return -1;
            done += chunk;
        }
    }
    return 0;
}

int outfile_write_raw(const char *path, const tc_plane *planes, int count, char *err,
                      size_t err_size)
{
    atomic_file af;
    int rc = -1;
    if (atomic_file_open(&af, path, err, err_size))
        return -1;
    if (outfile_write_raw_stream(af.f, planes, count) != 0)
        snprintf(err, err_size, "%s: write error: %s", path, strerror(errno));
    else if (atomic_file_close(&af, err, err_size) == 0 &&
             atomic_file_commit(&af, err, err_size) == 0)
        rc = 0;
    atomic_file_discard(&af);
    return rc;
}
