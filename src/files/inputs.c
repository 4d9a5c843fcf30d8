/* inputs.c - the list of inputs and outputs of a run, and the checks made before any work. */
#include "inputs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outputs.h"
#include "source.h"
#include "text.h"

/* --files-from LIST ("-": standard input), read whole within the caps of name_list.h. A
 * folder is refused as any input folder is (exit 2), before a byte is read. 0, 2 or 1. */
static int read_list(const char *path, batch_list *l, char *err, size_t err_size)
{
    const int from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "r");
    char why[384];
    text_shown shown;
    struct stat st;
    int rc;
    if (!f) {
        snprintf(err, err_size, "--files-from %s: %s", text_show(path, &shown), strerror(errno));
        return 2;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, sizeof why, "a folder, not a list of file names");
        rc = 2;
    } else {
        rc = name_list_read(f, NULL, &l->names, why, sizeof why);
    }
    if (rc)
        snprintf(err, err_size, "--files-from %s: %s", from_stdin ? "-" : text_show(path, &shown),
                 why);
    if (!from_stdin)
        fclose(f);
    return rc;
}

/* The input's file name without its folder and its extension ("a/b.x.bmp" -> "b.x"). */
void inputs_base_name(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    size_t len = dot && dot != name ? (size_t)(dot - name) : strlen(name);
    snprintf(out, size, "%.*s", (int)len, name);
}

/* DIR/BASE.EXT (ext NULL: DIR/BASE), allocated. */
static char *join(const char *dir, const char *base, const char *ext)
{
    size_t n = strlen(dir) + strlen(base) + (ext ? strlen(ext) : 0) + 3;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/",
                 base, ext ? "." : "", ext ? ext : "");
    return s;
}

/* One output path and the input it is written for. */
typedef struct {
    const char *path;
    int index;
} named;

static int by_path(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : x->index - y->index;
}

/* Two inputs that would write one file (their images, or their --raw files, or one's image
 * and the other's raw file). 0, or 2 naming both and the file. */
static int check_collisions(const batch_list *l, char *err, size_t err_size)
{
    named *names = malloc(2 * (size_t)l->count * sizeof *names);
    int n = 0, rc = 0;
    if (!names) {
        snprintf(err, err_size, "out of host memory for %d names", l->count);
        return 1;
    }
    for (int i = 0; i < l->count; i++) {
        if (l->items[i].output)
            names[n++] = (named){l->items[i].output, i};
        if (l->items[i].raw)
            names[n++] = (named){l->items[i].raw, i};
    }
    qsort(names, (size_t)n, sizeof *names, by_path);
    for (int i = 1; i < n && rc == 0; i++)
        if (strcmp(names[i].path, names[i - 1].path) == 0 && names[i].index != names[i - 1].index) {
            snprintf(err, err_size, "%s and %s: both would be written to %s; rename one",
                     l->items[names[i - 1].index].input, l->items[names[i].index].input,
                     names[i].path);
            rc = 2;
        }
    free(names);
    return rc;
}

/* -O without --format names each output after its input, in DIR: where DIR is the folder of
 * an input, that output would replace the input. Said once for the folder, before any work.
 * 0, or 2. */
static int check_own_folder(const tc_options *o, const batch_list *l, char *err,
                            size_t err_size)
{
    struct stat dir, st;
    char folder[4096], last[4096] = "";
    if (stat(o->output_dir, &dir) != 0)
        return 0; /* a folder that does not exist yet holds no input */
    for (int i = 0; i < l->count; i++) {
        const char *path = l->items[i].input, *slash = strrchr(path, '/');
        if (!slash)
            snprintf(folder, sizeof folder, ".");
        else
            snprintf(folder, sizeof folder, "%.*s", slash == path ? 1 : (int)(slash - path),
                     path);
        if (strcmp(folder, last) == 0) /* inputs of one folder: stat it once */
            continue;
        snprintf(last, sizeof last, "%s", folder);
        if (stat(folder, &st) == 0 && st.st_dev == dir.st_dev && st.st_ino == dir.st_ino) {
            snprintf(err, err_size, "-O %s: the inputs' own folder; without --format each "
                                    "output keeps its input's name and would replace it (give "
                                    "another folder, or --format)",
                     o->output_dir);
            return 2;
        }
    }
    return 0;
}

/* The folders of path that mkdir_parents made, deepest last, to remove again when a later
 * rule refuses the run. */
typedef struct {
    char *made[64];
    int count;
} made_dirs;

/* Creates the folder path and its missing parents (mode 0777 less the umask, as mkdir -p).
 * 0, or -1 with errno set. */
static int mkdir_parents(const char *path, made_dirs *made)
{
    char *copy = strdup(path);
    int rc = 0;
    if (!copy)
        return -1;
    for (char *p = copy + 1; rc == 0; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        const char saved = *p;
        *p = '\0';
        struct stat st;
        if (stat(copy, &st) != 0) {
            if (mkdir(copy, 0777) != 0 && errno != EEXIST)
                rc = -1;
            else if (made->count < 64)
                made->made[made->count++] = strdup(copy);
        } else if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            rc = -1;
        }
        *p = saved;
        if (saved == '\0')
            break;
    }
    free(copy);
    return rc;
}

/* Removes the folders mkdir_parents made (a refused run leaves nothing), deepest first. */
static void unmake_dirs(made_dirs *made, int remove)
{
    for (int i = made->count - 1; i >= 0; i--) {
        if (remove && made->made[i])
            (void)rmdir(made->made[i]);
        free(made->made[i]);
    }
    made->count = 0;
}

typedef struct {
    dev_t dev;
    ino_t ino;
    int index;
} file_id;

static int by_id(const void *a, const void *b)
{
    const file_id *x = a, *y = b;
    return outputs_file_order(x->dev, x->ino, y->dev, y->ino);
}

/* An output that exists and is one of the inputs (the same file, whatever its name). */
static int check_replaced(const batch_list *l, char *err, size_t err_size)
{
    file_id *ids = malloc((size_t)l->count * sizeof *ids);
    int n = 0, rc = 0;
    struct stat st;
    if (!ids) {
        snprintf(err, err_size, "out of host memory for %d inputs", l->count);
        return 1;
    }
    for (int i = 0; i < l->count; i++)
        if (stat(l->items[i].input, &st) == 0)
            ids[n++] = (file_id){st.st_dev, st.st_ino, i};
    qsort(ids, (size_t)n, sizeof *ids, by_id);
    for (int i = 0; i < l->count && rc == 0; i++) {
        const char *outs[2] = {l->items[i].output, l->items[i].raw};
        for (int k = 0; k < 2 && rc == 0; k++) {
            if (!outs[k] || stat(outs[k], &st) != 0)
                continue;
            file_id key = {st.st_dev, st.st_ino, 0};
            const file_id *hit = bsearch(&key, ids, (size_t)n, sizeof *ids, by_id);
            if (hit) {
                snprintf(err, err_size, "%s would replace the input %s; refusing", outs[k],
                         l->items[hit->index].input);
                rc = 2;
            }
        }
    }
    free(ids);
    return rc;
}

/* No two of the batch's outputs are one file (existing outputs linked to each other; the
 * names themselves differ once the BASEs do). 0, 2 naming both, or 1 out of memory. */
static int check_outputs_distinct(const batch_list *l, char *err, size_t err_size)
{
    outputs_named *outs = malloc(2 * (size_t)l->count * sizeof *outs);
    if (!outs) {
        snprintf(err, err_size, "out of host memory for %d output names", 2 * l->count);
        return 1;
    }
    for (int i = 0; i < l->count; i++) {
        outs[2 * i] = (outputs_named){"-O", l->items[i].output};
        outs[2 * i + 1] = (outputs_named){"--raw", l->items[i].raw};
    }
    const int rc = outputs_check_distinct(outs, 2 * (size_t)l->count, err, err_size) ? 2 : 0;
    free(outs);
    return rc;
}

/* The rules that need the whole list: checked before any work. -O's folder is created last,
 * when only the checks of each output's own file remain, and removed again if one refuses. */
static int check_batch(const tc_options *o, const batch_list *l, char *err, size_t err_size)
{
    struct stat st;
    made_dirs made = {{NULL}, 0};
    int rc;
    if (o->output_given && o->output_dir) {
        snprintf(err, err_size, "-o and -O: give one output file or an output folder");
        return 2;
    }
    if (l->count > 1 && o->output_given) {
        snprintf(err, err_size, "-o %s: %d inputs need an output folder (-O DIR), not one file",
                 o->output, l->count);
        return 2;
    }
    if (l->count > 1 && o->raw_output) {
        snprintf(err, err_size, "--raw %s: %d inputs need -O DIR (a bare --raw writes "
                                "DIR/BASE.f32 for each)",
                 o->raw_output, l->count);
        return 2;
    }
    if (!o->output_dir && o->write_output) {
        snprintf(err, err_size, "%d inputs: give an output folder (-O DIR), or --no-output",
                 l->count);
        return 2;
    }
    if (o->synth_width || o->all_algorithms || o->iterations > 1) {
        snprintf(err, err_size, "%s: works on one image; a batch %s",
                 o->synth_width ? "-g" : o->all_algorithms ? "-a all" : "-i",
                 o->synth_width ? "reads files" : "runs one algorithm once per image (-t "
                                                  "times its stages)");
        return 2;
    }
    if (o->output_dir && stat(o->output_dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "-O %s: not a folder", o->output_dir);
        return 2;
    }
    if ((rc = check_collisions(l, err, err_size)) != 0 ||
        (l->keep_format && o->write_output &&
         (rc = check_own_folder(o, l, err, err_size)) != 0))
        return rc;
    if (o->output_dir && stat(o->output_dir, &st) != 0 && mkdir_parents(o->output_dir, &made)) {
        snprintf(err, err_size, "-O %s: cannot create the folder: %s", o->output_dir,
                 strerror(errno));
        unmake_dirs(&made, 1);
        return 2;
    }
    rc = 0;
    for (int i = 0; i < l->count && rc == 0; i++) {
        if (l->items[i].output &&
            (outputs_check_flag("-O", l->items[i].output, NULL, err, err_size) ||
             outputs_check_replaceable("-O", l->items[i].output, o->force, err, err_size)))
            rc = 2;
        else if (l->items[i].raw &&
                 (outputs_check_flag("--raw", l->items[i].raw, NULL, err, err_size) ||
                  outputs_check_replaceable("--raw", l->items[i].raw, o->force, err,
                                            err_size)))
            rc = 2;
    }
    if (rc == 0)
        rc = check_outputs_distinct(l, err, err_size);
    if (rc == 0)
        rc = check_replaced(l, err, err_size);
    unmake_dirs(&made, rc != 0);
    return rc;
}

/* Standard input ("-") is one image of a run of one: it cannot also carry the --files-from
 * list, be read twice, or give -O a BASE to name DIR/BASE.EXT by. 0, or 2 with the reason. */
static int check_stdin(const tc_options *o, const batch_list *l, char *err, size_t err_size)
{
    int n = 0;
    for (int i = 0; i < l->count; i++)
        n += source_is_stdin(l->items[i].input);
    if (n == 0)
        return 0;
    if (o->files_from && source_is_stdin(o->files_from)) {
        snprintf(err, err_size, "-s -: standard input already carries the --files-from list");
        return 2;
    }
    if (l->count > 1 || o->output_dir) {
        snprintf(err, err_size, "-s -: standard input is read as the only input, written with "
                                "-o FILE or -o - (it has no name for -O DIR/BASE.EXT)");
        return 2;
    }
    return 0;
}

int inputs_is_batch(const tc_options *o, const batch_list *list)
{
    return o->output_dir || o->files_from || list->count > 1;
}

int inputs_gather(const tc_options *o, batch_list *l, char *err, size_t err_size)
{
    int rc;
    memset(l, 0, sizeof *l);
    if (o->files_from && (rc = read_list(o->files_from, l, err, err_size)) != 0)
        return rc;
    const long n = (o->input ? 1 : 0) + o->n_positional + l->names.count;
    if (n == 0) {
        snprintf(err, err_size, "--files-from %s: no file names in it", o->files_from);
        return 2;
    }
    if (!(l->items = calloc((size_t)n, sizeof *l->items))) {
        snprintf(err, err_size, "out of host memory for %ld inputs", n);
        return 1;
    }
    /* -s first, so that the AMD sample's command lines work unchanged. */
    if (o->input)
        l->items[l->count++].input = o->input;
    for (int i = 0; i < o->n_positional; i++)
        l->items[l->count++].input = o->positional[i];
    for (const char *name = name_list_next(&l->names, NULL); name;
         name = name_list_next(&l->names, name))
        l->items[l->count++].input = name;
    if ((rc = check_stdin(o, l, err, err_size)) != 0)
        return rc;

    if (!inputs_is_batch(o, l)) { /* one image: -o and --raw FILE as given */
        batch_item *it = &l->items[0];
        it->output = o->write_output ? strdup(o->output) : NULL;
        it->raw = o->raw_output ? strdup(o->raw_output) : NULL;
        if ((o->write_output && !it->output) || (o->raw_output && !it->raw)) {
            snprintf(err, err_size, "out of host memory");
            return 1;
        }
        tc_options one = *o;
        one.input = it->input;
        return outputs_check_all(&one, err, err_size) ? 2 : 0;
    }
    /* -O without --format: each output keeps its input's file name (and, when written, its
     * format); with --format, BASE and the format's extension (a PNM's is .pgm for gray,
     * .ppm for colour). */
    l->keep_format = o->output_dir && !o->image_format_given;
    const char *ext = io_format_extension(o->image_format, o->color ? 3 : 1);
    for (int i = 0; o->output_dir && i < l->count; i++) {
        char base[256];
        const char *slash = strrchr(l->items[i].input, '/');
        inputs_base_name(l->items[i].input, base, sizeof base);
        l->items[i].output = !o->write_output ? NULL
                             : l->keep_format ? join(o->output_dir,
                                                     slash ? slash + 1 : l->items[i].input, NULL)
                                              : join(o->output_dir, base, ext);
        l->items[i].raw = o->raw_flag ? join(o->output_dir, base, "f32") : NULL;
        if ((o->write_output && !l->items[i].output) || (o->raw_flag && !l->items[i].raw)) {
            snprintf(err, err_size, "out of host memory for %d output names", l->count);
            return 1;
        }
    }
    return check_batch(o, l, err, err_size);
}

void inputs_free(batch_list *l)
{
    for (int i = 0; i < l->count; i++) {
        free(l->items[i].output);
        free(l->items[i].raw);
    }
    free(l->items);
    name_list_free(&l->names);
    memset(l, 0, sizeof *l);
}
