/*
 * option_values.c - each option's value read and checked on its own: numbers within their
 * ranges, sizes, coefficient lists, masks, names. Each reader writes one line naming the flag
 * and what is wrong, and returns 2; the rules between options are option_rules.c's.
 */
#include "option_parts.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "io_limits.h"
#include "text.h"

/* A whole decimal integer in [lo, hi]: no junk after it, no overflow. */
int opt_parse_long(const char *flag, const char *text, long lo, long hi, long *out, FILE *err)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || text[0] == '\0' || text[0] == ' ') {
        fprintf(err, "tiledconv: %s '%s': not a whole number\n", flag, text);
        return 2;
    }
    if (errno == ERANGE || v < lo || v > hi) {
        fprintf(err, "tiledconv: %s %s: out of range, must be %ld..%ld\n", flag, text, lo, hi);
        return 2;
    }
    *out = v;
    return 0;
}

int opt_parse_int(const char *flag, const char *text, long lo, long hi, int *out, FILE *err)
{
    long v;
    int rc = opt_parse_long(flag, text, lo, hi, &v, err);
    if (rc == 0)
        *out = (int)v;
    return rc;
}

int opt_parse_tune(const char *text, tc_options *o, FILE *err)
{
    char why[512];
    text_shown shown;
    if (tc_tuning_parse(&o->tuning, text, why, sizeof why) == 0)
        return 0;
    fprintf(err, "tiledconv: %s\n", text_show(why, &shown));
    return 2;
}

/* "WxH" with both sides positive and the image within TC_MAX_SYNTH_PIXELS. */
int opt_parse_size(const char *text, int *w, int *h, FILE *err)
{
    char *end;
    errno = 0;
    long a = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X') || !(end[1] >= '0' && end[1] <= '9')) {
        fprintf(err, "tiledconv: -g '%s': expected WIDTHxHEIGHT, for example 8192x8192\n", text);
        return 2;
    }
    const char *second = end + 1;
    long b = strtol(second, &end, 10);
    if (*end != '\0' || errno == ERANGE) {
        fprintf(err, "tiledconv: -g '%s': expected WIDTHxHEIGHT, for example 8192x8192\n", text);
        return 2;
    }
    if (a < 1 || b < 1 || a > TC_MAX_SYNTH_SIDE || b > TC_MAX_SYNTH_SIDE ||
        a * b > TC_MAX_SYNTH_PIXELS) {
        fprintf(err, "tiledconv: -g %s: each side must be 1..%d and the image at most %ld "
                     "pixels\n", text, TC_MAX_SYNTH_SIDE, TC_MAX_SYNTH_PIXELS);
        return 2;
    }
    *w = (int)a;
    *h = (int)b;
    return 0;
}

/* The largest magnitude any number on the command line may have: far beyond any useful value,
 * and small enough that products of a few of them stay finite in double. */
#define MAX_NUMBER 1e30

/* strtod for the command line: a number at p, its end in *end. 0 when it is finite and within
 * MAX_NUMBER; -1 (not a number, infinite, NaN, or overflowing) or -2 (too large). A value too
 * small for a double (1e-400) is not an error: it is its nearest double, 0 or a denormal, as
 * every program that prints it would read it back. */
static int strtod_finite(const char *p, char **end, double *out)
{
    errno = 0;
    const double v = strtod(p, end);
    if (*end == p || !isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
        return -1;
    if (fabs(v) > MAX_NUMBER)
        return -2;
    *out = v;
    return 0;
}

/* A finite number, for --sigma, --offset, --scale and constant=V. */
int opt_parse_double(const char *flag, const char *text, double *out, FILE *err)
{
    char *end;
    const int rc = text[0] == ' ' ? -1 : strtod_finite(text, &end, out);
    if (rc == -1 || (rc == 0 && *end != '\0')) {
        fprintf(err, "tiledconv: %s '%s': not a finite number\n", flag, text);
        return 2;
    }
    if (rc == -2) {
        fprintf(err, "tiledconv: %s %s: out of range, at most %g in magnitude\n", flag, text,
                MAX_NUMBER);
        return 2;
    }
    return 0;
}

/* "a,b,c[,...]": finite numbers separated by commas. */
int opt_parse_coefficients(const char *text, coefficient_list *list, FILE *err)
{
    const char *flag = list->flag;
    float *k = list->k;
    int *count = &list->count;
    const char *p = text;
    int n = 0;
    for (;;) {
        char *end;
        double v = 0.0;
        const int rc = strtod_finite(p, &end, &v);
        if (rc == -1) {
            fprintf(err, "tiledconv: %s '%s': coefficient %d is not a finite number\n", flag,
                    text, n + 1);
            return 2;
        }
        if (rc == -2) {
            fprintf(err, "tiledconv: %s '%s': coefficient %d is out of range, at most %g in "
                         "magnitude\n", flag, text, n + 1, MAX_NUMBER);
            return 2;
        }
        if (n == TC_MAX_TAPS) {
            fprintf(err, "tiledconv: %s '%s': more than %d coefficients\n", flag, text,
                    TC_MAX_TAPS);
            return 2;
        }
        k[n++] = (float)v;
        if (*end == '\0')
            break;
        if (*end != ',') {
            fprintf(err, "tiledconv: %s '%s': unexpected '%c' after coefficient %d\n", flag,
                    text, *end, n);
            return 2;
        }
        p = end + 1;
    }
    *count = n;
    return 0;
}

/* --max-pixels N or WxH (the product): 1 .. IO_HARD_MAX_PIXELS. */
int opt_parse_max_pixels(const char *text, tc_options *o, FILE *err)
{
    char *end;
    errno = 0;
    long long a = text[0] >= '0' && text[0] <= '9' ? strtoll(text, &end, 10) : -1, b = 1;
    if (a >= 0 && (*end == 'x' || *end == 'X') && end[1] >= '0' && end[1] <= '9')
        b = strtoll(end + 1, &end, 10);
    if (a < 0 || *end != '\0') {
        fprintf(err, "tiledconv: --max-pixels '%s': expected a number of pixels or WIDTHxHEIGHT, "
                     "for example 268435456 or 16384x16384\n", text);
        return 2;
    }
    if (errno == ERANGE || a < 1 || b < 1 || a > IO_HARD_MAX_PIXELS || b > IO_HARD_MAX_PIXELS ||
        a * b > IO_HARD_MAX_PIXELS) {
        fprintf(err, "tiledconv: --max-pixels %s: out of range, must be 1..%lld (32768x32768)\n",
                text, IO_HARD_MAX_PIXELS);
        return 2;
    }
    o->max_pixels = a * b;
    return 0;
}

/* --block WxH: the tiled kernel's pixels per work-item; W 4 or 8, H 1..16. */
int opt_parse_block(const char *text, tc_options *o, FILE *err)
{
    char *end;
    long bw = strtol(text, &end, 10), bh = -1;
    if (end != text && (*end == 'x' || *end == 'X') && end[1] >= '0' && end[1] <= '9')
        bh = strtol(end + 1, &end, 10);
    if (bh < 0 || *end != '\0' || (bw != 4 && bw != 8) || bh < 1 || bh > 16) {
        fprintf(err, "tiledconv: --block '%s': expected WxH with W 4 or 8 and H 1..16, for "
                     "example 4x4 (the article's)\n", text);
        return 2;
    }
    o->block_x = (int)bw;
    o->block_y = (int)bh;
    return 0;
}

/* --format NAME: the output image's format, whatever -o's extension (for -o - and -O DIR). */
int opt_parse_image_format(const char *text, tc_options *o, FILE *err)
{
    if (io_format_from_word(text, &o->image_format)) {
        char formats[64];
        io_format_list(formats, sizeof formats);
        fprintf(err, "tiledconv: --format '%s': unknown format; use %s\n", text, formats);
        return 2;
    }
    o->image_format_given = 1;
    return 0;
}

/* --sampling 420|422|444: the chroma sampling of colour JPEG outputs. */
int opt_parse_sampling(const char *text, tc_options *o, FILE *err)
{
    static const char *const words[3] = {"420", "422", "444"};
    for (int i = 0; i < 3; i++)
        if (strcmp(text, words[i]) == 0) {
            o->sampling = (io_jpeg_sampling)i;
            return 0;
        }
    text_shown shown;
    fprintf(err, "tiledconv: --sampling '%s': use 420 (the default), 422 or 444\n",
            text_show(text, &shown));
    return 2;
}

/* --depth 8|16: the output's bits per sample. */
int opt_parse_depth(const char *text, tc_options *o, FILE *err)
{
    if (opt_parse_int("--depth", text, 8, 16, &o->depth, err))
        return 2;
    if (o->depth != 8 && o->depth != 16) {
        fprintf(err, "tiledconv: --depth %s: use 8 or 16\n", text);
        return 2;
    }
    return 0;
}

/* One length of -f, already a whole number: odd, lo .. TC_MAX_TAPS. */
static int taps_in_range(long v, long lo)
{
    return v >= lo && v <= TC_MAX_TAPS && v % 2 == 1;
}

/* -f N (both axes, odd 3..TC_MAX_TAPS) or -f WxH (kx W taps, ky H taps, each odd
 * 1..TC_MAX_TAPS, not both 1: 1 leaves that axis unfiltered). */
int opt_parse_taps(const char *text, filter_args *a, FILE *err)
{
    const char *x = strpbrk(text, "xX");
    long v, w, h;
    if (!x) {
        if (opt_parse_long("-f", text, LONG_MIN, LONG_MAX, &v, err))
            return 2;
        /* Range first: (int) of 4294967299 would be 3. */
        if (!taps_in_range(v, TC_MIN_TAPS)) {
            fprintf(err, "tiledconv: -f %s: the filter length must be odd, %d..%d (or WxH, "
                         "each odd 1..%d: 1 leaves that axis unfiltered)\n",
                    text, TC_MIN_TAPS, TC_MAX_TAPS, TC_MAX_TAPS);
            return 2;
        }
        a->taps_x = a->taps_y = (int)v;
        return 0;
    }
    char first[32];
    const size_t len = (size_t)(x - text);
    if (len == 0 || len >= sizeof first || x[1] == '\0') {
        fprintf(err, "tiledconv: -f '%s': expected a length N or WIDTHxHEIGHT, for example 7 or "
                     "9x3\n", text);
        return 2;
    }
    memcpy(first, text, len);
    first[len] = '\0';
    if (opt_parse_long("-f", first, LONG_MIN, LONG_MAX, &w, err) ||
        opt_parse_long("-f", x + 1, LONG_MIN, LONG_MAX, &h, err))
        return 2;
    if (!taps_in_range(w, 1) || !taps_in_range(h, 1) || (w == 1 && h == 1)) {
        fprintf(err, "tiledconv: -f %s: each length must be odd, 1..%d (1 leaves that axis "
                     "unfiltered), and not both 1\n", text, TC_MAX_TAPS);
        return 2;
    }
    a->taps_x = (int)w;
    a->taps_y = (int)h;
    return 0;
}

/* --mask's text: rows separated by ';' or newlines, weights within a row by ',' and/or
 * spaces; with @FILE, the file's lines are the rows, and '#' starts a comment to the end of
 * its line; blank lines are skipped. what names the text in messages ("--mask", or
 * "--mask @FILE"). */
static int parse_mask_text(const char *text, const char *what, mask_arg *mask, int comments,
                           FILE *err)
{
    int row = 0, col = 0, width = 0;
    const char *p = text;
    for (;;) {
        /* Separators within a row, and comments. */
        while (*p == ',' || *p == ' ' || *p == '\t' || *p == '\r' || (comments && *p == '#')) {
            if (*p == '#')
                while (*p && *p != '\n')
                    p++;
            else
                p++;
        }
        if (*p == ';' || *p == '\n' || *p == '\0') { /* a row ends (a blank one is skipped) */
            if (col > 0) {
                if (row == 0)
                    width = col;
                else if (col != width) {
                    fprintf(err, "tiledconv: %s: row %d has %d weight%s, row 1 has %d: every "
                                 "row needs the same count\n",
                            what, row + 1, col, col == 1 ? "" : "s", width);
                    return 2;
                }
                row++;
                col = 0;
            }
            if (*p == '\0')
                break;
            p++;
            continue;
        }
        char *end;
        double v = 0.0;
        const int rc = strtod_finite(p, &end, &v);
        const int separated = *end == '\0' || strchr(",; \t\r\n", *end) ||
                              (comments && *end == '#');
        if (rc == -1 || (rc == 0 && !separated)) {
            /* The word that is not a number, for the message. */
            const size_t n = strcspn(p, ",; \t\r\n");
            fprintf(err, "tiledconv: %s: row %d, weight %d: '%.*s' is not a finite number\n",
                    what, row + 1, col + 1, (int)(n > 40 ? 40 : n), p);
            return 2;
        }
        if (rc == -2) {
            fprintf(err, "tiledconv: %s: row %d, weight %d is out of range, at most %g in "
                         "magnitude\n", what, row + 1, col + 1, MAX_NUMBER);
            return 2;
        }
        if (col == TC_MAX_MASK_SIZE || row == TC_MAX_MASK_SIZE) {
            fprintf(err, "tiledconv: %s: more than %d %s: a mask is at most %d x %d\n", what,
                    TC_MAX_MASK_SIZE, col == TC_MAX_MASK_SIZE ? "weights in a row" : "rows",
                    TC_MAX_MASK_SIZE, TC_MAX_MASK_SIZE);
            return 2;
        }
        if (row > 0 && col == width) {
            fprintf(err, "tiledconv: %s: row %d has more weights than row 1 (%d): every row "
                         "needs the same count\n", what, row + 1, width);
            return 2;
        }
        mask->w[row * width + col] = (float)v; /* width is 0 while row 0 is read */
        col++;
        p = end;
    }
    if (row == 0) {
        fprintf(err, "tiledconv: %s: no weights; give rows such as '0,1,0;1,-4,1;0,1,0'\n", what);
        return 2;
    }
    if (!tc_mask_size_valid(width, row)) {
        fprintf(err, "tiledconv: %s: %d x %d: %s\n", what, width, row,
                width == 1 && row == 1
                    ? "a 1 x 1 mask only scales the image (use --scale)"
                    : "the width and height must be odd, 1..15 (3x3, 5x3, 15x15, ...)");
        return 2;
    }
    mask->width = width;
    mask->height = row;
    return 0;
}

/* The largest --mask @FILE read: 15 x 15 weights of 30 characters is 7 KB; room for comments. */
#define MASK_FILE_MAX 65536

/* --mask 'a,b,c;d,e,f;g,h,i' or --mask @FILE. */
int opt_parse_mask(const char *text, filter_args *a, FILE *err)
{
    if (text[0] != '@')
        return parse_mask_text(text, "--mask", &a->mask, 0, err);
    char what[300];
    text_shown shown;
    snprintf(what, sizeof what, "--mask @%s", text_show(text + 1, &shown));
    FILE *f = text[1] ? fopen(text + 1, "rb") : NULL;
    if (!f) {
        fprintf(err, "tiledconv: %s: cannot read: %s\n", what,
                text[1] ? strerror(errno) : "no file name after '@'");
        return 2;
    }
    char *buf = malloc(MASK_FILE_MAX + 1);
    size_t n = buf ? fread(buf, 1, MASK_FILE_MAX + 1, f) : 0;
    const int read_error = ferror(f);
    fclose(f);
    int rc = 2;
    if (!buf)
        fprintf(err, "tiledconv: %s: out of memory\n", what);
    else if (read_error)
        fprintf(err, "tiledconv: %s: cannot read: a read error\n", what);
    else if (n > MASK_FILE_MAX)
        fprintf(err, "tiledconv: %s: more than %d bytes: not a mask file\n", what,
                MASK_FILE_MAX);
    else if (memchr(buf, '\0', n))
        fprintf(err, "tiledconv: %s: a NUL byte: not a text file\n", what);
    else {
        buf[n] = '\0';
        rc = parse_mask_text(buf, what, &a->mask, 1, err);
    }
    free(buf);
    return rc;
}

/* --amount A: sharpen's strength. */
int opt_parse_amount(const char *text, tc_options *o, filter_args *a, FILE *err)
{
    if (opt_parse_double("--amount", text, &o->amount, err))
        return 2;
    a->amount_given = 1;
    return 0;
}

int opt_parse_filter_name(const char *text, tc_options *o, FILE *err)
{
    int id = tc_named_find(text);
    if (id < 0) {
        fprintf(err, "tiledconv: --filter '%s': unknown filter; use", text);
        for (int i = 0; i < TC_NAMED_COUNT; i++)
            fprintf(err, "%s %s", i == 0 ? "" : i == TC_NAMED_COUNT - 1 ? " or" : ",",
                    tc_named_name((tc_named)i));
        fputc('\n', err);
        return 2;
    }
    o->named_filter = id;
    return 0;
}

/* --sigma S: gauss's standard deviation in pixels. The upper limit only keeps the arithmetic
 * sane; beyond a few times the radius the filter is a box anyway. */
int opt_parse_sigma(const char *text, tc_options *o, filter_args *a, FILE *err)
{
    if (opt_parse_double("--sigma", text, &o->sigma, err))
        return 2;
    /* A positive number too small for a double (1e-400) reads as 0: too small, not negative. */
    const int underflow = o->sigma == 0.0 && text[0] != '-' && strpbrk(text, "123456789");
    if ((!(o->sigma > 0.0) && !underflow) || o->sigma > 1000.0) {
        fprintf(err, "tiledconv: --sigma %s: must be above 0 and at most 1000\n", text);
        return 2;
    }
    if (o->sigma < TC_MIN_SIGMA) { /* 1e-200, or a denormal such as 1e-310 */
        fprintf(err, "tiledconv: --sigma %s: too small, the smallest is %g: below it sigma^2 "
                     "underflows to 0 and the Gaussian's weights are not finite (any sigma "
                     "below 0.2 already leaves the image as it is)\n", text, TC_MIN_SIGMA);
        return 2;
    }
    a->sigma_given = 1;
    return 0;
}

/* --border replicate|constant[=V]|reflect101|reflect|wrap (constant alone means V = 0). */
int opt_parse_border(const char *text, filter_args *a, FILE *err)
{
    const char *eq = strchr(text, '=');
    size_t len = eq ? (size_t)(eq - text) : strlen(text);
    for (int m = 0; m < TC_BORDER_COUNT; m++) {
        const char *name = tc_border_name((tc_border)m);
        if (strlen(name) != len || strncmp(text, name, len) != 0)
            continue;
        if (eq && m != TC_BORDER_CONSTANT) {
            fprintf(err, "tiledconv: --border '%s': only constant takes a value "
                         "(constant=V)\n", text);
            return 2;
        }
        double v = 0.0;
        char *end;
        if (eq && (eq[1] == ' ' || strtod_finite(eq + 1, &end, &v) != 0 || *end != '\0')) {
            fprintf(err, "tiledconv: --border '%s': the value after 'constant=' is not a "
                         "finite number of at most %g in magnitude\n", text, MAX_NUMBER);
            return 2;
        }
        a->border = (tc_border)m;
        a->border_value = v;
        return 0;
    }
    fprintf(err, "tiledconv: --border '%s': unknown mode; use ", text);
    for (int m = 0; m < TC_BORDER_COUNT; m++)
        fprintf(err, "%s%s%s", m == 0 ? "" : m + 1 < TC_BORDER_COUNT ? ", " : " or ",
                tc_border_name((tc_border)m), m == TC_BORDER_CONSTANT ? "[=V]" : "");
    fputs("\n", err);
    return 2;
}

/* The library's names of its enumerations, as functions of an int for value_named. */
static const char *gradient_name(int v)
{
    return tc_gradient_operator_name((tc_gradient_operator)v);
}

static const char *algorithm_name(int v)
{
    return tc_algorithm_name((tc_algorithm)v);
}

static const char *storage_name(int v)
{
    return tc_storage_name((tc_storage)v);
}

/* The value in first..last (none below 0) whose name is text, or -1. */
static int value_named(const char *text, int first, int last, const char *(*name)(int))
{
    for (int v = first; v <= last; v++)
        if (strcmp(text, name(v)) == 0)
            return v;
    return -1;
}

/* --gradient sobel|scharr: 1 + the tc_gradient_operator. */
int opt_parse_gradient(const char *text, tc_options *o, FILE *err)
{
    const int op = value_named(text, TC_GRADIENT_SOBEL, TC_GRADIENT_SCHARR, gradient_name);
    if (op < 0) {
        fprintf(err, "tiledconv: --gradient '%s': unknown operator; use sobel or scharr\n", text);
        return 2;
    }
    o->gradient = op + 1;
    return 0;
}

int opt_parse_algorithm(const char *text, tc_options *o, FILE *err)
{
    if (strcmp(text, "all") == 0) {
        o->all_algorithms = 1;
        return 0;
    }
    const int a = value_named(text, TC_TILED, TC_BILINEAR, algorithm_name);
    if (a < 0) {
        fprintf(err, "tiledconv: -a '%s': unknown algorithm; use tiled, twopass, onepass, "
                     "bilinear or all\n", text);
        return 2;
    }
    o->algorithm = (tc_algorithm)a;
    o->all_algorithms = 0;
    return 0;
}

/* --storage buffer|image. */
int opt_parse_storage(const char *text, tc_options *o, FILE *err)
{
    const int s = value_named(text, TC_STORAGE_BUFFER, TC_STORAGE_IMAGE, storage_name);
    if (s < 0) {
        fprintf(err, "tiledconv: --storage '%s': use buffer or image\n", text);
        return 2;
    }
    o->storage = (tc_storage)s;
    o->storage_given = 1;
    return 0;
}

/* --device cpu|gpu|all, or TYPE:all for every device of that type. */
int opt_parse_device_type(const char *text, tc_options *o, FILE *err)
{
    static const char *const words[] = {"gpu", "cpu", "all", "gpu:all", "cpu:all", "all:all"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(text, words[i]) == 0) {
            o->device_type = text;
            return 0;
        }
    fprintf(err, "tiledconv: --device '%s': use cpu, gpu or all, or TYPE:all (gpu:all) for "
                 "every device of that type\n",
            text);
    return 2;
}

/* -d N or -d LIST: device indices separated by commas; an index may repeat (-d 0,0: two
 * queues on one device). */
int opt_parse_device_list(const char *text, tc_options *o, FILE *err)
{
    const char *p = text;
    o->n_device_list = 0;
    for (;;) {
        char item[16];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item || o->n_device_list == TC_MAX_DEVICES) {
            fprintf(err, "tiledconv: -d '%s': expected a device index or a list such as 0,1 "
                         "(at most %d)\n",
                    text, TC_MAX_DEVICES);
            return 2;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (opt_parse_int("-d", item, 0, 1000, &o->device_list[o->n_device_list++], err))
            return 2;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

/* Whether a word has the form of a count: digits, or digits x digits ("4", "4x4", "0x3",
 * "99999999999x1"), whatever their value. An option with an optional count (a bare --pyramid)
 * takes such a word as its value, and judges it there, so that an invalid count is a usage
 * error before any work rather than an input file; any other word stays an input. */
int opt_count_shape(const char *w)
{
    const size_t a = strspn(w, "0123456789");
    if (a == 0)
        return 0;
    if (w[a] == '\0')
        return 1;
    if (w[a] != 'x' && w[a] != 'X')
        return 0;
    const size_t b = strspn(w + a + 1, "0123456789");
    return b > 0 && w[a + 1 + b] == '\0';
}

/* --pyramid OxL: O octaves, 1..TC_PYRAMID_MAX_OCTAVES, of L levels, 1..TC_PYRAMID_MAX_LEVELS.
 * A count of any size is judged by its range, never wrapped (strtol stops at LONG_MAX). */
int opt_parse_pyramid(const char *text, tc_options *o, FILE *err)
{
    text_shown shown;
    char *end;
    long a = -1, b = -1;
    if (opt_count_shape(text) && !strpbrk(text, "xX")) {
        text_shown again;
        fprintf(err, "tiledconv: --pyramid %s: a pyramid is OCTAVESxLEVELS, for example 4x4 (the "
                     "default); an input file of that name is ./%s\n", text_show(text, &shown),
                text_show(text, &again));
        return 2;
    }
    if (opt_count_shape(text)) {
        a = strtol(text, &end, 10);
        b = strtol(end + 1, &end, 10);
    }
    if (b < 0) {
        fprintf(err, "tiledconv: --pyramid '%s': expected OCTAVESxLEVELS, for example 4x4 (the "
                     "default)\n", text_show(text, &shown));
        return 2;
    }
    if (a < 1 || a > TC_PYRAMID_MAX_OCTAVES || b < 1 || b > TC_PYRAMID_MAX_LEVELS) {
        fprintf(err, "tiledconv: --pyramid %s: octaves must be 1..%d and levels 1..%d\n",
                text_show(text, &shown), TC_PYRAMID_MAX_OCTAVES, TC_PYRAMID_MAX_LEVELS);
        return 2;
    }
    o->pyramid_octaves = (int)a;
    o->pyramid_levels = (int)b;
    return 0;
}

/* --max-memory BYTES, with K, M, G or T for binary multiples (bytes.h). */
int opt_parse_max_memory(const char *text, tc_options *o, FILE *err)
{
    if (bytes_parse(text, &o->max_memory) == 0)
        return 0;
    fprintf(err, "tiledconv: --max-memory '%s': expected a number of bytes of at least 1, with "
                 "K, M, G or T for binary multiples (1G is 1073741824)\n",
            text);
    return 2;
}
