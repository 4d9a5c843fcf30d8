/* outfile.c - output path checks and the 8-bit conversion. */
#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A new name must be in an existing folder, so that a typo fails before any work is done. */
static int check_folder(const char *path, char *err, size_t err_size)
{
    const char *slash = strrchr(path, '/');
    struct stat st;
    char folder[4096];
    if (!slash)
        return 0; /* the working directory */
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    if (len >= sizeof folder) {
        snprintf(err, err_size, "-o %s: the path is too long", path);
        return -1;
    }
    memcpy(folder, path, len);
    folder[len] = '\0';
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "-o %s: the folder %s does not exist", path, folder);
        return -1;
    }
    return 0;
}

int outfile_check(const char *out_path, const char *in_path, char *err, size_t err_size)
{
    struct stat out_st, in_st;
    if (out_path[0] == '\0') {
        snprintf(err, err_size, "-o: the output file name is empty");
        return -1;
    }
    if (stat(out_path, &out_st) != 0) {
        if (errno == ENOENT)
            return check_folder(out_path, err, err_size); /* a new name */
        snprintf(err, err_size, "-o %s: %s", out_path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(out_st.st_mode)) {
        snprintf(err, err_size, "-o %s: not a regular file; refusing to replace it", out_path);
        return -1;
    }
    /* The same file under another name (a link, ./x vs x) is still the input. */
    if (in_path && stat(in_path, &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino) {
        snprintf(err, err_size, "-o %s: this is the input file; refusing to overwrite it",
                 out_path);
        return -1;
    }
    return 0;
}

uint8_t outfile_to_byte(float v)
{
    if (!(v > 0.0f)) /* negative, zero and NaN */
        return 0;
    if (v >= 255.0f)
        return 255;
    return (uint8_t)floorf(v + 0.5f);
}

uint8_t *outfile_gray8(const tc_plane *p)
{
    size_t n = (size_t)p->width * (size_t)p->height;
    uint8_t *g = malloc(n ? n : 1);
    if (!g)
        return NULL;
    for (size_t i = 0; i < n; i++)
        g[i] = outfile_to_byte(p->px[i]);
    return g;
}
