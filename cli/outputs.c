/* outputs.c - the tool's output files: where they may go, the image (-o) and the float32
 * planes (--raw), staged and renamed into place together. */
#include "outputs.h"

#include "atomic_file.h"
#include "bmp.h"
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The output's folder must exist and take new files (a new output is created there, and a
 * replaced one is staged there), so that a typo, a read-only mount or a folder without write
 * permission fails before any work is done, not after it. */
static int check_folder(const char *flag, const char *path, char *err, size_t err_size)
{
    const char *slash = strrchr(path, '/');
    struct stat st;
    char folder[4096];
    text_shown shown, shown_folder;
    size_t len = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
    if (len >= sizeof folder) {
        snprintf(err, err_size, "%s %s: the path is too long", flag, text_show(path, &shown));
        return -1;
    }
    memcpy(folder, slash ? path : ".", len);
    folder[len] = '\0';
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "%s %s: the folder %s does not exist", flag,
                 text_show(path, &shown), text_show(folder, &shown_folder));
        return -1;
    }
    if (!atomic_file_folder_writable(folder)) {
        snprintf(err, err_size, "%s %s: cannot create files in the folder %s: %s", flag,
                 text_show(path, &shown), text_show(folder, &shown_folder), strerror(errno));
        return -1;
    }
    return 0;
}

int outputs_check(const char *out_path, const char *in_path, char *err, size_t err_size)
{
    return outputs_check_flag("-o", out_path, in_path, err, err_size);
}

int outputs_check_flag(const char *flag, const char *out_path, const char *in_path, char *err,
                       size_t err_size)
{
    struct stat out_st, in_st;
    text_shown shown;
    if (out_path[0] == '\0') {
        snprintf(err, err_size, "%s: the output file name is empty", flag);
        return -1;
    }
    if (stat(out_path, &out_st) != 0) {
        if (errno == ENOENT)
            return check_folder(flag, out_path, err, err_size); /* a new name */
        snprintf(err, err_size, "%s %s: %s", flag, text_show(out_path, &shown), strerror(errno));
        return -1;
    }
    if (!S_ISREG(out_st.st_mode)) {
        snprintf(err, err_size, "%s %s: not a regular file; refusing to replace it", flag,
                 text_show(out_path, &shown));
        return -1;
    }
    /* The same file under another name (a link, ./x vs x) is still the input. */
    if (in_path && stat(in_path, &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino) {
        snprintf(err, err_size, "%s %s: this is the input file; refusing to overwrite it", flag,
                 text_show(out_path, &shown));
        return -1;
    }
    return check_folder(flag, out_path, err, err_size); /* the replacement is staged there */
}

/* An existing output that is read-only (no write permission for anyone, or none for us) is
 * not replaced without --force, as cp and rm ask before they replace or remove one. */
int outputs_check_replaceable(const char *flag, const char *path, int force, char *err,
                              size_t err_size)
{
    struct stat st;
    text_shown shown;
    if (force || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    if ((st.st_mode & 0222) == 0 || access(path, W_OK) != 0) {
        snprintf(err, err_size, "%s %s: the file is read-only; refusing to replace it (--force "
                                "replaces it)", flag, text_show(path, &shown));
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

int outputs_same(const char *a, const char *b)
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

/* The planes as little-endian float32, whatever the host's byte order. */
static int write_raw_stream(FILE *f, const tc_plane *planes, int count)
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


int outputs_check_all(const tc_options *o, char *err, size_t err_size)
{
    const char *in_path = o->synth_width ? NULL : o->input;
    text_shown shown;
    if (o->write_output &&
        (outputs_check(o->output, in_path, err, err_size) ||
         outputs_check_replaceable("-o", o->output, o->force, err, err_size)))
        return -1;
    if (o->raw_output &&
        (outputs_check_flag("--raw", o->raw_output, in_path, err, err_size) ||
         outputs_check_replaceable("--raw", o->raw_output, o->force, err, err_size)))
        return -1;
    if (o->raw_output && o->write_output && outputs_same(o->raw_output, o->output)) {
        snprintf(err, err_size, "--raw %s: the same file as -o; give each its own name",
                 text_show(o->raw_output, &shown));
        return -1;
    }
    return 0;
}

/* The output image, grayscale or (--color) 24-bit, with --scale/--offset applied to the target
 * ROI, written into the staged file af. 0, or -1 with the reason in err. */
static int write_image(const tc_options *o, const tc_plane *planes, int count,
                       const tc_roi *roi, atomic_file *af, char *err, size_t err_size)
{
    const tc_plane *p = &planes[0];
    const size_t n = (size_t)p->width * (size_t)p->height;
    uint8_t *bytes = malloc(n * (size_t)(count == 3 ? 3 : 1));
    int rc;
    if (!bytes) {
        text_shown shown;
        snprintf(err, err_size, "%s: out of host memory", text_show(o->output, &shown));
        return -1;
    }
    if (count == 3)
        tc_planes_to_rgb24(planes, roi, o->out_scale, o->out_offset, bytes);
    else
        tc_plane_to_gray8(p, roi, o->out_scale, o->out_offset, bytes);
    rc = bmp_write_stream(af->f, bytes, p->width, p->height, count == 3 ? 24 : 8, o->output,
                          err, err_size);
    free(bytes);
    return rc;
}

int outputs_write(const tc_options *o, const tc_plane *planes, int count, const tc_roi *roi,
                  char *err, size_t err_size)
{
    atomic_file image = ATOMIC_FILE_INIT, raw = ATOMIC_FILE_INIT;
    char why[512] = "";
    const char *flag = "-o";
    int ok = (!o->write_output || (atomic_file_open(&image, o->output, why, sizeof why) == 0 &&
                                   write_image(o, planes, count, roi, &image, why,
                                               sizeof why) == 0 &&
                                   atomic_file_close(&image, why, sizeof why) == 0));
    if (ok && o->raw_output) {
        flag = "--raw";
        ok = atomic_file_open(&raw, o->raw_output, why, sizeof why) == 0 &&
             write_raw_stream(raw.f, planes, count) == 0 &&
             atomic_file_close(&raw, why, sizeof why) == 0;
        if (!ok && !why[0]) {
            text_shown shown;
            snprintf(why, sizeof why, "%s: write error: %s", text_show(o->raw_output, &shown),
                     strerror(errno));
        }
    }
    /* Both complete: into place. (A rename failing between the two is the one case left.) */
    if (ok && o->write_output && (flag = "-o", atomic_file_commit(&image, why, sizeof why)))
        ok = 0;
    if (ok && o->raw_output && (flag = "--raw", atomic_file_commit(&raw, why, sizeof why)))
        ok = 0;
    atomic_file_discard(&image);
    atomic_file_discard(&raw);
    if (!ok) {
        snprintf(err, err_size, "%s %s", flag, why);
        return -1;
    }
    return 0;
}
