/* outputs.c - the tool's output files: where they may go, the image (-o, any format, or
 * standard output) and the float32 planes (--raw), staged and renamed into place together. */
#include "outputs.h"

#include "atomic_file.h"
#include "bmp.h"
#include "text.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process's standard output, kept for the image by outputs_claim_stdout; -1 before. */
static int image_fd = -1;

/* What messages call standard output: the flag as the user wrote it. */
#define STDOUT_NAME "-o -"

int outputs_is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

const char *outputs_name(const char *path)
{
    return outputs_is_stdout(path) ? "standard output" : path;
}

int outputs_depth(const tc_options *o, int deep)
{
    if (o->depth)
        return o->depth;
    return deep && io_format_holds_16_bits(o->image_format) ? 16 : 8;
}

void outputs_describe(io_format fmt, int depth, int channels, char *buf, size_t size)
{
    snprintf(buf, size, "%d-bit %s %s", depth, channels == 1 ? "grayscale" : "colour",
             io_format_kind(fmt, channels));
}

int outputs_claim_stdout(char *err, size_t err_size)
{
    int fd = dup(STDOUT_FILENO);
    if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        snprintf(err, err_size, "%s: %s", STDOUT_NAME, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    image_fd = fd;
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

int outputs_stdout_fd(void)
{
    return image_fd;
}

/* The bytes to the claimed standard output, all of them. */
static int write_stdout(const uint8_t *data, size_t size, char *err, size_t err_size)
{
    if (image_fd < 0) { /* a caller that forgot outputs_claim_stdout: a bug, said plainly */
        snprintf(err, err_size, "%s: standard output was not claimed for the image", STDOUT_NAME);
        return -1;
    }
    for (size_t done = 0; done < size;) {
        ssize_t n = write(image_fd, data + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EPIPE) {
            snprintf(err, err_size, "%s: broken pipe: the reader closed standard output after "
                                    "%lu of %lu bytes",
                     STDOUT_NAME, (unsigned long)done, (unsigned long)size);
            return -1;
        }
        if (n < 0) {
            snprintf(err, err_size, "%s: write error: %s", STDOUT_NAME, strerror(errno));
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* The image encoded into memory, for standard output: nothing reaches it unless the encoding
 * has succeeded. *data is malloc'd. 0, or -1 with the reason. */
static int encode_in_memory(io_format fmt, const io_image *img, int quality, uint8_t **data,
                            size_t *size, char *err, size_t err_size)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        snprintf(err, err_size, "%s: out of host memory for the encoded image", STDOUT_NAME);
        return -1;
    }
    int rc = io_encode(f, fmt, img, quality, STDOUT_NAME, err, err_size);
    if (fclose(f) != 0 && rc == 0) { /* the stream's buffer could not grow */
        snprintf(err, err_size, "%s: out of host memory for the encoded image", STDOUT_NAME);
        rc = -1;
    }
    if (rc != 0) {
        free(buf);
        return -1;
    }
    *data = (uint8_t *)buf;
    *size = len;
    return 0;
}

/* Stages a new file at path: opened, and with sync OUTPUTS_SYNC_FILE its folder left unsynced
 * (the caller syncs it once for many files). 0, or -1 with the reason. */
static int stage(atomic_file *f, const char *path, int sync, char *err, size_t err_size)
{
    if (atomic_file_open(f, path, err, err_size))
        return -1;
    if (sync == OUTPUTS_SYNC_FILE)
        f->sync_folder = 0;
    return 0;
}

int outputs_put_bytes(const char *path, const uint8_t *data, size_t size, int sync, char *err,
                      size_t err_size)
{
    if (outputs_is_stdout(path))
        return write_stdout(data, size, err, err_size);
    atomic_file f = ATOMIC_FILE_INIT;
    int ok = stage(&f, path, sync, err, err_size) == 0;
    if (ok && fwrite(data, 1, size, f.f) != size) {
        text_shown shown;
        snprintf(err, err_size, "%s: write error: %s", text_show(path, &shown), strerror(errno));
        ok = 0;
    }
    ok = ok && atomic_file_finish(&f, sync != OUTPUTS_SYNC_NONE, err, err_size) == 0 &&
         atomic_file_commit(&f, err, err_size) == 0;
    atomic_file_discard(&f);
    return ok ? 0 : -1;
}

int outputs_put_image(const char *path, io_format fmt, const io_image *img, int quality,
                      int sync, char *err, size_t err_size)
{
    if (outputs_is_stdout(path)) {
        uint8_t *data;
        size_t size;
        if (encode_in_memory(fmt, img, quality, &data, &size, err, err_size))
            return -1;
        const int rc = write_stdout(data, size, err, err_size);
        free(data);
        return rc;
    }
    atomic_file f = ATOMIC_FILE_INIT;
    text_shown shown;
    const int ok = stage(&f, path, sync, err, err_size) == 0 &&
                   io_encode(f.f, fmt, img, quality, text_show(path, &shown), err,
                             err_size) == 0 &&
                   atomic_file_finish(&f, sync != OUTPUTS_SYNC_NONE, err, err_size) == 0 &&
                   atomic_file_commit(&f, err, err_size) == 0;
    atomic_file_discard(&f);
    return ok ? 0 : -1;
}

/* The input's file status: standard input's own for "-", so that `-s - < x.png -o x.png` is
 * refused like `-s x.png -o x.png`. */
static int input_stat(const char *in_path, struct stat *st)
{
    return strcmp(in_path, "-") == 0 ? fstat(STDIN_FILENO, st) : stat(in_path, st);
}

/* The output's folder must exist and take new files (a new output is created there, and a
 * replaced one is staged there), so that a typo, a read-only mount or a folder without write
 * permission fails before any work is done, not after it. */
/* The last folder found writable, so that a batch's outputs, which share one folder, probe it
 * once: each probe creates an unnamed file there, and a thousand of them took 0.1-0.9 s on a
 * file system still busy with the previous run's deletions (the GPU machine; docs/benchmarks.md).
 * Only the main thread checks outputs, before any worker starts. */
static struct {
    char path[4096];
    dev_t dev;
    ino_t ino;
} writable;

static int folder_known_writable(const char *folder, const struct stat *st)
{
    return writable.path[0] && strcmp(folder, writable.path) == 0 && st->st_dev == writable.dev &&
           st->st_ino == writable.ino;
}

static void remember_writable(const char *folder, const struct stat *st)
{
    snprintf(writable.path, sizeof writable.path, "%s", folder);
    writable.dev = st->st_dev;
    writable.ino = st->st_ino;
}

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
    if (folder_known_writable(folder, &st))
        return 0;
    if (!atomic_file_folder_writable(folder)) {
        snprintf(err, err_size, "%s %s: cannot create files in the folder %s: %s", flag,
                 text_show(path, &shown), text_show(folder, &shown_folder), strerror(errno));
        return -1;
    }
    remember_writable(folder, &st);
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
    if (in_path && input_stat(in_path, &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
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
    if (outputs_is_stdout(a) || outputs_is_stdout(b)) /* standard output is no file */
        return 0;
    int has_a = stat(a, &sa) == 0, has_b = stat(b, &sb) == 0;
    if (has_a || has_b)
        return has_a && has_b && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    /* Two new names: the same name in the same folder (x.bmp and ./x.bmp). */
    const char *name_a = split_path(a, dir_a, sizeof dir_a);
    const char *name_b = split_path(b, dir_b, sizeof dir_b);
    return strcmp(name_a, name_b) == 0 && stat(dir_a, &sa) == 0 && stat(dir_b, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* What a file of outputs_check_distinct resolves to: an existing file by its inode (kind 0),
 * a new name by its folder's inode and its last component (kind 1), or a name whose folder
 * cannot be found by the name itself (kind 2), so that only the same string matches it. */
typedef struct {
    int kind;
    dev_t dev;
    ino_t ino;
    const char *name;
    size_t index;
} file_key;

int outputs_file_order(dev_t dev_a, ino_t ino_a, dev_t dev_b, ino_t ino_b)
{
    if (dev_a != dev_b)
        return dev_a < dev_b ? -1 : 1;
    return ino_a < ino_b ? -1 : ino_a > ino_b;
}

static int by_key(const void *a, const void *b)
{
    const file_key *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    const int f = outputs_file_order(x->dev, x->ino, y->dev, y->ino);
    if (f)
        return f;
    const int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The key of path, as outputs_same resolves names. The folder's status is cached in *last
 * (a batch's outputs share one folder, which is then looked up once). */
typedef struct {
    char dir[4096];
    int ok;
    struct stat st;
} folder_cache;

static void key_of(const char *path, size_t index, folder_cache *last, file_key *k)
{
    struct stat st;
    char dir[4096];
    k->index = index;
    k->dev = 0;
    k->ino = 0;
    k->name = "";
    if (stat(path, &st) == 0) {
        k->kind = 0;
        k->dev = st.st_dev;
        k->ino = st.st_ino;
        return;
    }
    const char *slash = strrchr(path, '/');
    const size_t len = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    k->kind = 2;
    k->name = path;
    if (errno != ENOENT || len >= sizeof dir)
        return;
    const char *name = split_path(path, dir, sizeof dir);
    if (strcmp(dir, last->dir) != 0) {
        snprintf(last->dir, sizeof last->dir, "%s", dir);
        last->ok = stat(dir, &last->st) == 0;
    }
    if (!last->ok)
        return;
    k->kind = 1;
    k->dev = last->st.st_dev;
    k->ino = last->st.st_ino;
    k->name = name;
}

int outputs_check_distinct(const outputs_named *files, size_t n, char *err, size_t err_size)
{
    file_key *keys = malloc((n ? n : 1) * sizeof *keys);
    folder_cache *last = calloc(1, sizeof *last);
    size_t m = 0;
    int rc = 0;
    if (!keys || !last) {
        snprintf(err, err_size, "out of host memory for %zu output names", n);
        free(keys);
        free(last);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (files[i].path && !outputs_is_stdout(files[i].path)) /* standard output is no file */
            key_of(files[i].path, i, last, &keys[m++]);
    qsort(keys, m, sizeof *keys, by_key);
    /* In each run of equal keys, the first two outputs, or else an output and an input. */
    for (size_t i = 0; i < m && rc == 0;) {
        size_t end = i + 1;
        while (end < m && keys[end].kind == keys[i].kind && keys[end].dev == keys[i].dev &&
               keys[end].ino == keys[i].ino && strcmp(keys[end].name, keys[i].name) == 0)
            end++;
        const outputs_named *out1 = NULL, *out2 = NULL, *input = NULL;
        for (size_t k = i; k < end; k++) {
            const outputs_named *f = &files[keys[k].index];
            if (!f->flag)
                input = input ? input : f;
            else if (!out1)
                out1 = f;
            else if (!out2)
                out2 = f;
        }
        text_shown a, b;
        if (out2) {
            snprintf(err, err_size, "%s %s and %s %s are the same file; give each its own name",
                     out1->flag, text_show(out1->path, &a), out2->flag,
                     text_show(out2->path, &b));
            rc = -1;
        } else if (out1 && input) {
            snprintf(err, err_size, "%s %s would replace the input %s; refusing", out1->flag,
                     text_show(out1->path, &a), text_show(input->path, &b));
            rc = -1;
        }
        i = end;
    }
    free(keys);
    free(last);
    return rc;
}

int outputs_raw_stream(FILE *f, const tc_plane *planes, int count)
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
    if (o->write_output && !outputs_is_stdout(o->output) &&
        (outputs_check(o->output, in_path, err, err_size) ||
         outputs_check_replaceable("-o", o->output, o->force, err, err_size)))
        return -1;
    if (o->raw_output &&
        (outputs_check_flag("--raw", o->raw_output, in_path, err, err_size) ||
         outputs_check_replaceable("--raw", o->raw_output, o->force, err, err_size)))
        return -1;
    const outputs_named outs[] = {{"-o", o->write_output ? o->output : NULL},
                                  {"--raw", o->raw_output},
                                  {"--class-map", o->class_map}};
    return outputs_check_distinct(outs, sizeof outs / sizeof outs[0], err, err_size);
}

int outputs_image_from_planes(const tc_options *o, const tc_plane *planes, int count,
                              const tc_roi *roi, int depth, io_image *img)
{
    const tc_plane *p = &planes[0];
    const size_t n = (size_t)p->width * (size_t)p->height * (size_t)(count == 3 ? 3 : 1);
    void *px = malloc(n * (size_t)(depth / 8));
    if (!px)
        return -1;
    tc_planes_to_samples(planes, count == 3 ? 3 : 1, depth, roi, o->out_scale, o->out_offset, px);
    *img = (io_image){p->width, p->height, count == 3 ? 3 : 1, depth,
                      depth == 16 ? 65535 : 255, px, NULL};
    return 0;
}

int outputs_write(const tc_options *o, const tc_plane *planes, int count, const tc_roi *roi,
                  int depth, char *err, size_t err_size)
{
    return outputs_write_split(o, planes, count, planes, count, roi, depth, err, err_size);
}

int outputs_write_split(const tc_options *o, const tc_plane *planes, int count,
                        const tc_plane *raw_planes, int raw_count, const tc_roi *roi, int depth,
                        char *err, size_t err_size)
{
    atomic_file image = ATOMIC_FILE_INIT, raw = ATOMIC_FILE_INIT;
    io_image img = {0, 0, 0, 0, 0, NULL, NULL};
    uint8_t *encoded = NULL; /* -o -: the whole image, before any of it is written */
    size_t encoded_size = 0;
    char why[512] = "";
    const char *flag = "-o";
    const int sync = !o->no_sync, to_stdout = o->write_output && outputs_is_stdout(o->output);
    int ok = 1;
    if (o->write_output) {
        text_shown shown;
        if (outputs_image_from_planes(o, planes, count, roi, depth, &img)) {
            snprintf(why, sizeof why, "%s: out of host memory", text_show(o->output, &shown));
            ok = 0;
        } else if (to_stdout) {
            ok = encode_in_memory(o->image_format, &img, o->quality, &encoded, &encoded_size,
                                  why, sizeof why) == 0;
        } else {
            ok = atomic_file_open(&image, o->output, why, sizeof why) == 0 &&
                 io_encode(image.f, o->image_format, &img, o->quality,
                           text_show(o->output, &shown), why, sizeof why) == 0 &&
                 atomic_file_finish(&image, sync, why, sizeof why) == 0;
        }
        io_image_free(&img);
    }
    if (ok && o->raw_output) {
        flag = "--raw";
        ok = atomic_file_open(&raw, o->raw_output, why, sizeof why) == 0 &&
             outputs_raw_stream(raw.f, raw_planes, raw_count) == 0 &&
             atomic_file_finish(&raw, sync, why, sizeof why) == 0;
        if (!ok && !why[0]) {
            text_shown shown;
            snprintf(why, sizeof why, "%s: write error: %s", text_show(o->raw_output, &shown),
                     strerror(errno));
        }
    }
    /* Both complete: into place, standard output first, since a reader that has gone away
     * can still fail it. (A rename failing between the two is the one case left.) */
    if (ok && to_stdout && (flag = "-o", write_stdout(encoded, encoded_size, why, sizeof why)))
        ok = 0;
    if (ok && o->write_output && !to_stdout &&
        (flag = "-o", atomic_file_commit(&image, why, sizeof why)))
        ok = 0;
    if (ok && o->raw_output && (flag = "--raw", atomic_file_commit(&raw, why, sizeof why)))
        ok = 0;
    free(encoded);
    atomic_file_discard(&image);
    atomic_file_discard(&raw);
    if (!ok) {
        /* Standard output's messages name their flag already ("-o -: ..."). */
        if (strcmp(flag, "-o") == 0 && to_stdout)
            snprintf(err, err_size, "%s", why);
        else
            snprintf(err, err_size, "%s %s", flag, why);
        return -1;
    }
    return 0;
}

int outputs_write_all(const tc_options *o, const outputs_item *items, int count, int depth,
                      char *err, size_t err_size)
{
    atomic_file *files = calloc((size_t)(2 * count), sizeof *files);
    const int sync = !o->no_sync;
    char why[768] = "";
    const char *flag = "-O";
    int ok = files != NULL, staged = 0;
    if (!files)
        snprintf(why, sizeof why, "out of host memory for %d files", 2 * count);
    for (int i = 0; ok && i < count; i++) {
        const outputs_item *it = &items[i];
        atomic_file *image = &files[2 * i], *raw = &files[2 * i + 1];
        *image = (atomic_file)ATOMIC_FILE_INIT;
        *raw = (atomic_file)ATOMIC_FILE_INIT;
        staged = i + 1;
        if (it->image) {
            io_image img = {0, 0, 0, 0, 0, NULL, NULL};
            text_shown shown;
            flag = "-O";
            if (outputs_image_from_planes(o, it->plane, 1, NULL, depth, &img)) {
                snprintf(why, sizeof why, "%s: out of host memory", text_show(it->image, &shown));
                ok = 0;
            } else {
                ok = atomic_file_open(image, it->image, why, sizeof why) == 0 &&
                     io_encode(image->f, o->image_format, &img, o->quality,
                               text_show(it->image, &shown), why, sizeof why) == 0 &&
                     atomic_file_finish(image, sync, why, sizeof why) == 0;
            }
            io_image_free(&img);
        }
        if (ok && it->raw) {
            flag = "--raw";
            ok = atomic_file_open(raw, it->raw, why, sizeof why) == 0 &&
                 outputs_raw_stream(raw->f, it->plane, 1) == 0 &&
                 atomic_file_finish(raw, sync, why, sizeof why) == 0;
            if (!ok && !why[0]) {
                text_shown shown;
                snprintf(why, sizeof why, "%s: write error: %s", text_show(it->raw, &shown),
                         strerror(errno));
            }
        }
    }
    /* All complete: into place, the folder synced once, after the last. */
    for (int i = 0; ok && i < 2 * count; i++) {
        if (!files[i].path)
            continue;
        int last = 1;
        for (int k = i + 1; k < 2 * count; k++)
            last = last && !files[k].path;
        files[i].sync_folder = sync && last;
        flag = i % 2 ? "--raw" : "-O";
        ok = atomic_file_commit(&files[i], why, sizeof why) == 0;
    }
    for (int i = 0; files && i < 2 * staged; i++)
        atomic_file_discard(&files[i]);
    free(files);
    if (!ok) {
        snprintf(err, err_size, "%s %s", flag, why);
        return -1;
    }
    return 0;
}
