/* options.c - option parsing with getopt_long_only, so that the AMD sample's two-letter flags
 * (-sL 3) and readable long forms (--source-left 3) both work. */
#define _GNU_SOURCE /* getopt_long_only */
#include "options.h"

#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bilinear.h"
#include "bytes.h"
#include "io_limits.h"
#include "text.h"

enum {
    OPT_SRC_LEFT = 256, OPT_SRC_TOP, OPT_DST_LEFT, OPT_DST_TOP, OPT_DEVICE_TYPE, OPT_NO_OUTPUT,
    OPT_CSV, OPT_JSON, OPT_VERSION, OPT_BLOCK, OPT_SCALAR_IO, OPT_CX, OPT_CY, OPT_FILTER,
    OPT_SIGMA, OPT_BORDER, OPT_OFFSET, OPT_SCALE, OPT_COLOR, OPT_RAW, OPT_FILES_FROM,
    OPT_NO_SYNC, OPT_IMAGE_FORMAT, OPT_DEPTH, OPT_QUALITY
};

/* Hardening's flags (issue 12), kept apart so that the lists above can grow without clashing. */
enum { OPT_MAX_PIXELS = 512, OPT_ALLOW_HIGH_RATIO, OPT_FORCE };

/* The masks' flags (issue 15) and the seed articles' techniques (issue 16), likewise. */
enum { OPT_MASK = 768, OPT_AMOUNT, OPT_CLASS_MAP };
/* Issue 16's one-read gradient. */
enum { OPT_GRADIENT = 800 };
/* Image objects beside buffers (issue 16). */
enum { OPT_STORAGE = 1040 };

/* Issue 16's scale space. */
enum { OPT_PYRAMID = 1024 };
/* The memory budget, beyond which images are filtered in strips. */
enum { OPT_MAX_MEMORY = 1200 };

/* A folder at the speed of its codecs: the batch's workers, JPEG's chroma, the codec floor. */
enum { OPT_THREADS = 1100, OPT_SAMPLING, OPT_NO_FILTER };
/* The tiled kernel's variants for long filters and large masks (a study option). */
enum { OPT_KERNEL = 1056 };

static const struct option long_options[] = {
    {"sL", required_argument, NULL, OPT_SRC_LEFT},
    {"sT", required_argument, NULL, OPT_SRC_TOP},
    {"tL", required_argument, NULL, OPT_DST_LEFT},
    {"tT", required_argument, NULL, OPT_DST_TOP},
    {"source-left", required_argument, NULL, OPT_SRC_LEFT},
    {"source-top", required_argument, NULL, OPT_SRC_TOP},
    {"target-left", required_argument, NULL, OPT_DST_LEFT},
    {"target-top", required_argument, NULL, OPT_DST_TOP},
    {"width", required_argument, NULL, 'W'},
    {"height", required_argument, NULL, 'H'},
    {"source", required_argument, NULL, 's'},
    {"generate", required_argument, NULL, 'g'},
    {"output", required_argument, NULL, 'o'},
    {"no-output", no_argument, NULL, OPT_NO_OUTPUT},
    {"format", required_argument, NULL, OPT_IMAGE_FORMAT},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"quality", required_argument, NULL, OPT_QUALITY},
    {"taps", required_argument, NULL, 'f'},
    {"coefficients", required_argument, NULL, 'c'},
    {"cx", required_argument, NULL, OPT_CX},
    {"cy", required_argument, NULL, OPT_CY},
    {"filter", required_argument, NULL, OPT_FILTER},
    {"sigma", required_argument, NULL, OPT_SIGMA},
    {"border", required_argument, NULL, OPT_BORDER},
    {"mask", required_argument, NULL, OPT_MASK},
    {"amount", required_argument, NULL, OPT_AMOUNT},
    {"offset", required_argument, NULL, OPT_OFFSET},
    {"scale", required_argument, NULL, OPT_SCALE},
    {"color", no_argument, NULL, OPT_COLOR},
    {"colour", no_argument, NULL, OPT_COLOR},
    /* Optional: `--raw FILE` names the file for one image, a bare `--raw` with -O writes
     * DIR/BASE.f32 per input (see raw_word below). */
    {"raw", optional_argument, NULL, OPT_RAW},
    {"files-from", required_argument, NULL, OPT_FILES_FROM},
    {"output-dir", required_argument, NULL, 'O'},
    {"no-sync", no_argument, NULL, OPT_NO_SYNC},
    {"class-map", required_argument, NULL, OPT_CLASS_MAP},
    /* Optional: `--pyramid OxL`, or a bare `--pyramid` (4x4; see pyramid_word below). */
    {"pyramid", optional_argument, NULL, OPT_PYRAMID},
    {"gradient", required_argument, NULL, OPT_GRADIENT},
    {"algorithm", required_argument, NULL, 'a'},
    {"storage", required_argument, NULL, OPT_STORAGE},
    {"kernel", required_argument, NULL, OPT_KERNEL},
    {"verify", no_argument, NULL, 'e'},
    {"timing", no_argument, NULL, 't'},
    {"iterations", required_argument, NULL, 'i'},
    {"platform", required_argument, NULL, 'p'},
    {"device-index", required_argument, NULL, 'd'},
    {"device", required_argument, NULL, OPT_DEVICE_TYPE},
    {"list", no_argument, NULL, 'l'},
    {"verbose", no_argument, NULL, 'v'},
    {"quiet", no_argument, NULL, 'q'},
    {"csv", no_argument, NULL, OPT_CSV},
    {"json", no_argument, NULL, OPT_JSON},
    {"block", required_argument, NULL, OPT_BLOCK},
    {"scalar-io", no_argument, NULL, OPT_SCALAR_IO},
    {"max-pixels", required_argument, NULL, OPT_MAX_PIXELS},
    {"allow-high-ratio", no_argument, NULL, OPT_ALLOW_HIGH_RATIO},
    {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
    {"force", no_argument, NULL, OPT_FORCE},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"sampling", required_argument, NULL, OPT_SAMPLING},
    {"no-filter", no_argument, NULL, OPT_NO_FILTER},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static const char short_options[] = ":s:g:o:O:W:H:f:c:a:eti:p:d:lvqh";

/* The flag as the user typed it, for messages: argv[optind - 1] after getopt took a value
 * in the same word would be wrong, so messages use the canonical spelling instead. */
static const char *flag_name(int code)
{
    switch (code) {
    case OPT_SRC_LEFT: return "-sL";
    case OPT_SRC_TOP: return "-sT";
    case OPT_DST_LEFT: return "-tL";
    case OPT_DST_TOP: return "-tT";
    case OPT_DEVICE_TYPE: return "--device";
    case OPT_BLOCK: return "--block";
    case OPT_CX: return "--cx";
    case OPT_CY: return "--cy";
    case OPT_FILTER: return "--filter";
    case OPT_SIGMA: return "--sigma";
    case OPT_BORDER: return "--border";
    case OPT_MASK: return "--mask";
    case OPT_AMOUNT: return "--amount";
    case OPT_OFFSET: return "--offset";
    case OPT_SCALE: return "--scale";
    case OPT_RAW: return "--raw";
    case OPT_MAX_PIXELS: return "--max-pixels";
    case OPT_MAX_MEMORY: return "--max-memory";
    case OPT_FILES_FROM: return "--files-from";
    case OPT_IMAGE_FORMAT: return "--format";
    case OPT_DEPTH: return "--depth";
    case OPT_QUALITY: return "--quality";
    case OPT_GRADIENT: return "--gradient";
    case OPT_STORAGE: return "--storage";
    case 'O': return "-O";
    case 'W': return "-W";
    case 'H': return "-H";
    case 's': return "-s";
    case 'g': return "-g";
    case 'o': return "-o";
    case 'f': return "-f";
    case 'c': return "-c";
    case 'a': return "-a";
    case 'i': return "-i";
    case 'p': return "-p";
    case 'd': return "-d";
    default: return "option";
    }
}

/* A whole decimal integer in [lo, hi]: no junk after it, no overflow. */
static int parse_long(const char *flag, const char *text, long lo, long hi, long *out, FILE *err)
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

static int parse_int(const char *flag, const char *text, long lo, long hi, int *out, FILE *err)
{
    long v;
    int rc = parse_long(flag, text, lo, hi, &v, err);
    if (rc == 0)
        *out = (int)v;
    return rc;
}

/* "WxH" with both sides positive and the image within TC_MAX_SYNTH_PIXELS. */
static int parse_size(const char *text, int *w, int *h, FILE *err)
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
static int parse_double(const char *flag, const char *text, double *out, FILE *err)
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

/* One list of coefficients from -c, --cx or --cy; count 0 when the flag was not given. */
typedef struct {
    const char *flag;
    float k[TC_MAX_TAPS];
    int count;
} coefficient_list;

/* "a,b,c[,...]": finite numbers separated by commas. */
static int parse_coefficients(const char *text, coefficient_list *list, FILE *err)
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
static int parse_max_pixels(const char *text, tc_options *o, FILE *err)
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
static int parse_block(const char *text, tc_options *o, FILE *err)
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

/* A mask from --mask: the weights, row by row, as parse_mask read them. */
typedef struct {
    float w[TC_MAX_MASK_TAPS];
    int width, height; /* 0 x 0 when --mask was not given */
} mask_arg;

/* --format NAME: the output image's format, whatever -o's extension (for -o - and -O DIR). */
static int parse_image_format(const char *text, tc_options *o, FILE *err)
{
    if (io_format_from_word(text, &o->image_format)) {
        fprintf(err, "tiledconv: --format '%s': unknown format; use %s\n", text, IO_FORMAT_LIST);
        return 2;
    }
    o->image_format_given = 1;
    return 0;
}

/* --sampling 420|422|444: the chroma sampling of colour JPEG outputs. */
static int parse_sampling(const char *text, tc_options *o, FILE *err)
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
static int parse_depth(const char *text, tc_options *o, FILE *err)
{
    if (parse_int("--depth", text, 8, 16, &o->depth, err))
        return 2;
    if (o->depth != 8 && o->depth != 16) {
        fprintf(err, "tiledconv: --depth %s: use 8 or 16\n", text);
        return 2;
    }
    return 0;
}

/* Whether the last component of path has an extension, by io_format_from_name's rule (leading
 * dots belong to the name): "out" and ".png" have none, so they are BMP unless --format. */
static int has_extension(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    while (*base == '.')
        base++;
    return strchr(base, '.') != NULL;
}

/* The output image's format once every flag is read, and the rules that need it, all before
 * any work: -o's extension names the format unless --format does; an extension the tool does
 * not write is a usage error, and so is one that contradicts --format; --depth 16 needs a
 * format that holds 16 bits. Without -o, --format names the default output's extension. */
static int resolve_image_format(tc_options *o, FILE *err)
{
    io_format named;
    const int to_stdout = strcmp(o->output, "-") == 0;
    if (o->output_given && !to_stdout && has_extension(o->output)) {
        if (io_format_from_name(o->output, &named) != 0 && !o->image_format_given) {
            fprintf(err, "tiledconv: -o %s: unknown image extension; the formats are %s (a name "
                         "without an extension is BMP; --format NAME overrides)\n",
                    o->output, IO_FORMAT_LIST);
            return 2;
        }
        if (io_format_from_name(o->output, &named) == 0) {
            if (o->image_format_given && named != o->image_format) {
                fprintf(err, "tiledconv: -o %s names a %s file, but --format says %s; give one "
                             "or make them agree\n",
                        o->output, io_format_name(named), io_format_name(o->image_format));
                return 2;
            }
            o->image_format = named;
        }
    }
    if (o->class_map && io_format_from_name(o->class_map, &o->class_map_format) != 0) {
        fprintf(err, "tiledconv: --class-map %s: unknown image extension; the formats are %s (a "
                     "name without an extension is BMP)\n",
                o->class_map, IO_FORMAT_LIST);
        return 2;
    }
    if (o->class_map && strcmp(o->class_map, "-") == 0) {
        fprintf(err, "tiledconv: --class-map needs a file name, not standard output\n");
        return 2;
    }
    if (!o->output_given && o->image_format_given) {
        snprintf(o->default_output, sizeof o->default_output, "TiledConv_Output.%s",
                 io_format_extension(o->image_format, o->color ? 3 : 1));
        o->output = o->default_output;
    }
    if (o->depth == 16 && o->write_output &&
        (o->image_format == IO_FORMAT_BMP || o->image_format == IO_FORMAT_JPEG)) {
        fprintf(err, "tiledconv: --depth 16: %s holds 8-bit samples only; write PNG or PGM/PPM "
                     "for 16 bits (-o NAME.png, --format png)\n",
                io_format_name(o->image_format));
        return 2;
    }
    if (o->raw_output && strcmp(o->raw_output, "-") == 0) {
        fprintf(err, "tiledconv: --raw -: the float planes go to a file; standard output is "
                     "for the image (-o -)\n");
        return 2;
    }
    return 0;
}

/* What the filter flags said. They are resolved into o->filter once every flag has been read,
 * so that their order does not matter (-c 1,2,1,2,1 -f 5 works as well as -f 5 -c ...). */
typedef struct {
    int taps_x, taps_y; /* -f N or -f WxH; 0 when not given */
    coefficient_list c, cx, cy;
    int sigma_given;
    int amount_given;
    tc_border border;
    double border_value;
    mask_arg mask;
} filter_args;

/* One length of -f, already a whole number: odd, lo .. TC_MAX_TAPS. */
static int taps_in_range(long v, long lo)
{
    return v >= lo && v <= TC_MAX_TAPS && v % 2 == 1;
}

/* -f N (both axes, odd 3..TC_MAX_TAPS) or -f WxH (kx W taps, ky H taps, each odd
 * 1..TC_MAX_TAPS, not both 1: 1 leaves that axis unfiltered). */
static int parse_taps(const char *text, filter_args *a, FILE *err)
{
    const char *x = strpbrk(text, "xX");
    long v, w, h;
    if (!x) {
        if (parse_long("-f", text, LONG_MIN, LONG_MAX, &v, err))
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
    if (parse_long("-f", first, LONG_MIN, LONG_MAX, &w, err) ||
        parse_long("-f", x + 1, LONG_MIN, LONG_MAX, &h, err))
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
static int parse_mask(const char *text, filter_args *a, FILE *err)
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
static int parse_amount(const char *text, tc_options *o, filter_args *a, FILE *err)
{
    if (parse_double("--amount", text, &o->amount, err))
        return 2;
    a->amount_given = 1;
    return 0;
}

static int parse_filter_name(const char *text, tc_options *o, FILE *err)
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
static int parse_sigma(const char *text, tc_options *o, filter_args *a, FILE *err)
{
    if (parse_double("--sigma", text, &o->sigma, err))
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
static int parse_border(const char *text, filter_args *a, FILE *err)
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
    fprintf(err, "tiledconv: --border '%s': unknown mode; use replicate, constant[=V], "
                 "reflect101, reflect or wrap\n", text);
    return 2;
}

/* The coefficients of one list into kx and/or ky (its length is already the axis's). */
static void apply_coefficients(const coefficient_list *l, float *kx, float *ky)
{
    for (int i = 0; i < l->count; i++) {
        if (kx)
            kx[i] = l->k[i];
        if (ky)
            ky[i] = l->k[i];
    }
}

/* One axis's length from a list that sets it (count 0: none does) and -f's length for it
 * (0: not given): an odd count, 1..TC_MAX_TAPS, agreeing with -f. *taps keeps what it had when
 * neither says. axis names it in messages ("" when -f has one length). */
static int axis_length(const coefficient_list *l, int f_taps, int f_per_axis, const char *axis,
                       int *taps, FILE *err)
{
    if (l->count == 0) {
        if (f_taps)
            *taps = f_taps;
        return 0;
    }
    if (!tc_axis_taps_valid(l->count)) {
        fprintf(err, "tiledconv: %s: %d coefficient%s: a filter's length must be odd, 1..%d\n",
                l->flag, l->count, l->count == 1 ? "" : "s", TC_MAX_TAPS);
        return 2;
    }
    if (f_taps && l->count != f_taps) {
        fprintf(err, "tiledconv: %s: %d coefficient%s given, -f needs %d%s\n", l->flag,
                l->count, l->count == 1 ? "" : "s", f_taps, f_per_axis ? axis : "");
        return 2;
    }
    *taps = l->count;
    return 0;
}

/* The flag(s) that gave the coefficients, for messages. */
static const char *coefficient_flags(const tc_options *o, const filter_args *a)
{
    if (a->c.count)
        return "-c";
    if (a->cx.count && a->cy.count)
        return "--cx and --cy";
    if (a->cx.count || a->cy.count)
        return a->cx.count ? "--cx" : "--cy";
    if (a->mask.width)
        return "--mask";
    return o->named_filter >= 0 ? "--filter" : "-f";
}

/* No filter whose sums could leave float32 on 8-bit input (0..255) or the constant border:
 * the device would give infinities (and NaN where they cancel) with nothing to say so, and
 * -e would fail on "expected inf, actual inf". The flag that causes it is named. */
static int check_filter_range(const tc_options *o, const filter_args *a, FILE *err)
{
    int index = 0;
    double reach = 0.0;
    switch (tc_filter_check(&o->filter, 255.0, &index, &reach)) {
    case TC_FILTER_OK:
        return 0;
    case TC_FILTER_KX_NOT_FINITE:
    case TC_FILTER_KY_NOT_FINITE: /* only a named filter can get here: the lists are checked */
    case TC_FILTER_MASK_NOT_FINITE: /* (and --amount's weights, were it not bounded) */
        fprintf(err, "tiledconv: %s%s: coefficient %d is not a finite number\n",
                coefficient_flags(o, a), a->sigma_given ? " with --sigma" : "", index + 1);
        return 2;
    default:
        break;
    }
    double plain = 0.0;
    tc_filter_spec without_border = o->filter;
    without_border.border = TC_BORDER_REPLICATE;
    tc_filter_check(&without_border, 255.0, NULL, &plain);
    const int by_border = tc_filter_check(&without_border, 255.0, NULL, NULL) == TC_FILTER_OK;
    const char *gain = o->filter.mask_width ? "sum|mask|" : "sum|kx| x sum|ky|";
    if (by_border)
        fprintf(err, "tiledconv: --border constant=%g: with this filter (%s = %.3g) the sums "
                     "could reach %.3g, past float32's largest value (%.3g); use a smaller "
                     "value\n", (double)o->filter.border_value, gain, plain / 255.0, reach,
                (double)FLT_MAX);
    else
        fprintf(err, "tiledconv: %s: %s is %.3g, so on 8-bit input (up to 255) the sums could "
                     "reach %.3g, past float32's largest value (%.3g); scale the coefficients "
                     "down\n", coefficient_flags(o, a), gain, plain / 255.0, plain,
                (double)FLT_MAX);
    return 2;
}

/* -f's lengths as the user wrote them, for messages. */
static const char *taps_text(const filter_args *a, char *buf, size_t size)
{
    if (a->taps_x == a->taps_y)
        snprintf(buf, size, "%d", a->taps_x);
    else
        snprintf(buf, size, "%dx%d", a->taps_x, a->taps_y);
    return buf;
}

/* A mask from --mask or a named mask (--filter laplacian ...) into o->filter; -f, if given,
 * must be the mask's size. */
static int build_mask(tc_options *o, const filter_args *a, FILE *err)
{
    const int named = o->named_filter >= 0;
    const int w = named ? 3 : a->mask.width, h = named ? 3 : a->mask.height;
    char buf[32];
    if (a->taps_x && (a->taps_x != w || a->taps_y != h)) {
        if (named)
            fprintf(err, "tiledconv: -f %s: --filter %s is a 3 x 3 mask\n",
                    taps_text(a, buf, sizeof buf), tc_named_name((tc_named)o->named_filter));
        else
            fprintf(err, "tiledconv: -f %s and --mask: the mask is %d x %d; give -f %dx%d or "
                         "no -f\n", taps_text(a, buf, sizeof buf), w, h, w, h);
        return 2;
    }
    if (named)
        tc_filter_named_mask(&o->filter, (tc_named)o->named_filter,
                             a->amount_given ? o->amount : TC_SHARPEN_DEFAULT_AMOUNT);
    else
        tc_filter_set_mask(&o->filter, a->mask.w, w, h);
    return 0;
}

/* The separable filter of the flags: its lengths (-f, and each coefficient list sets its
 * axis's; an axis that neither sets takes the other's length, else the default), then the
 * named filter or the binomial with the lists' coefficients. */
static int build_separable(tc_options *o, const filter_args *a, FILE *err)
{
    const tc_named named = (tc_named)o->named_filter;
    const int per_axis = a->taps_x != a->taps_y;
    int taps_x = 0, taps_y = 0;
    char buf[32];
    if (axis_length(&a->c, a->taps_x, per_axis, " along rows", &taps_x, err) ||
        axis_length(&a->c, a->taps_y, per_axis, " along columns", &taps_y, err) ||
        axis_length(&a->cx, a->taps_x, per_axis, " along rows", &taps_x, err) ||
        axis_length(&a->cy, a->taps_y, per_axis, " along columns", &taps_y, err))
        return 2;
    if (!taps_x || !taps_y) {
        const int fallback = taps_x   ? taps_x
                             : taps_y ? taps_y
                             : o->named_filter >= 0 ? tc_named_default_taps(named, o->sigma)
                                                    : 3;
        taps_x = taps_x ? taps_x : fallback;
        taps_y = taps_y ? taps_y : fallback;
    }
    if (taps_x == 1 && taps_y == 1) {
        fprintf(err, "tiledconv: %s: 1 x 1 taps filter nothing; give 3 taps or more along one "
                     "axis (--scale scales)\n", coefficient_flags(o, a));
        return 2;
    }
    if (o->named_filter >= 0) {
        if (tc_filter_named_xy(&o->filter, named, taps_x, taps_y, o->sigma)) {
            snprintf(buf, sizeof buf, taps_x == taps_y ? "%d" : "%dx%d", taps_x, taps_y);
            if (named == TC_NAMED_SCHARR_X || named == TC_NAMED_SCHARR_Y)
                fprintf(err, "tiledconv: -f %s: --filter %s exists with 3 taps only\n", buf,
                        tc_named_name(named));
            else if (tc_taps_valid(taps_x) && tc_taps_valid(taps_y))
                fprintf(err, "tiledconv: -f %s: --filter %s goes up to %d taps (OpenCV's "
                             "limit)\n", buf, tc_named_name(named), TC_MAX_SOBEL_TAPS);
            else
                fprintf(err, "tiledconv: -f %s: --filter %s needs 3 taps or more along the axis "
                             "it differentiates\n", buf, tc_named_name(named));
            return 2;
        }
        return 0;
    }
    tc_filter_binomial_xy(&o->filter, taps_x, taps_y);
    apply_coefficients(&a->c, o->filter.kx, o->filter.ky);
    apply_coefficients(&a->cx, o->filter.kx, NULL);
    apply_coefficients(&a->cy, NULL, o->filter.ky);
    return 0;
}

/* Resolves the filter flags into o->filter: a mask (--mask, or a named one), or a separable
 * filter (named, or coefficients: an axis that gets none keeps the default binomial); the
 * lengths; the border. */
static int build_filter(tc_options *o, const filter_args *a, FILE *err)
{
    const char *per_direction = a->cx.count ? "--cx" : a->cy.count ? "--cy" : NULL;
    const char *any_list = a->c.count ? "-c" : per_direction;
    const int named_mask = o->named_filter >= 0 && tc_named_is_mask((tc_named)o->named_filter);
    if (a->c.count && per_direction) {
        fprintf(err, "tiledconv: -c and %s: -c sets both directions; give -c, or --cx and/or "
                     "--cy\n", per_direction);
        return 2;
    }
    if (a->mask.width && (o->named_filter >= 0 || any_list)) {
        fprintf(err, "tiledconv: --mask and %s: give a mask or a separable filter, not both\n",
                any_list ? any_list : "--filter");
        return 2;
    }
    if (o->named_filter >= 0 && any_list) {
        fprintf(err, "tiledconv: --filter and %s: give a named filter or coefficients, not "
                     "both\n", any_list);
        return 2;
    }
    if (a->sigma_given && o->named_filter != TC_NAMED_GAUSS && !o->pyramid) {
        fprintf(err, "tiledconv: --sigma: only --filter gauss (and --pyramid) takes a sigma\n");
        return 2;
    }
    if (a->amount_given && o->named_filter != TC_NAMED_SHARPEN) {
        fprintf(err, "tiledconv: --amount: only --filter sharpen takes an amount\n");
        return 2;
    }
    const int rc = a->mask.width || named_mask ? build_mask(o, a, err) : build_separable(o, a, err);
    if (rc)
        return rc;
    o->coefficients_given = any_list != NULL;
    o->filter.border = a->border;
    o->filter.border_value = (float)a->border_value;
    return check_filter_range(o, a, err);
}

/* --pyramid makes its own Gaussians: sigma0 from --sigma, their lengths from OpenCV's rule.
 * The flags that set another filter are refused, naming the first one given. */
static int check_pyramid_filter(const tc_options *o, const filter_args *a, FILE *err)
{
    const char *flag = a->taps_x            ? "-f"
                       : a->c.count         ? "-c"
                       : a->cx.count        ? "--cx"
                       : a->cy.count        ? "--cy"
                       : a->mask.width      ? "--mask"
                       : a->amount_given    ? "--amount"
                       : o->named_filter >= 0 && o->named_filter != TC_NAMED_GAUSS ? "--filter"
                                                                                    : NULL;
    if (!flag)
        return 0;
    fprintf(err, "tiledconv: %s: --pyramid makes its own Gaussians (sigma0 from --sigma, each "
                 "length round(6 sigma + 1), odd); give no other filter\n", flag);
    return 2;
}

/* --pyramid's rules that need every flag read (README, "A Gaussian scale space"). */
static int check_pyramid(const tc_options *o, FILE *err)
{
    const tc_roi_request whole = TC_ROI_REQUEST_DEFAULT;
    const char *roi_flag = o->roi.src_left != whole.src_left   ? "-sL"
                           : o->roi.src_top != whole.src_top   ? "-sT"
                           : o->roi.dst_left != whole.dst_left ? "-tL"
                           : o->roi.dst_top != whole.dst_top   ? "-tT"
                           : o->roi.width != whole.width       ? "-W"
                           : o->roi.height != whole.height     ? "-H"
                                                               : NULL;
    const char *other = o->all_algorithms || o->algorithm != TC_TILED ? "-a"
                        : o->storage_given ? "--storage"
                        : o->gradient ? "--gradient"
                        : o->block_x != TC_TILED_BLOCK_X || o->block_y != TC_TILED_BLOCK_Y
                            ? "--block"
                        : o->scalar_io ? "--scalar-io"
                        : o->class_map ? "--class-map"
                                       : NULL;
    if (roi_flag) {
        fprintf(err, "tiledconv: %s: --pyramid filters whole images, with no ROI\n", roi_flag);
        return 2;
    }
    if (other) {
        fprintf(err, "tiledconv: %s: does not apply to --pyramid, which runs its own launches "
                     "(one per octave; -t times one per level beside them)\n", other);
        return 2;
    }
    if (o->color) {
        fprintf(err, "tiledconv: --color: --pyramid works on the intensity plane\n");
        return 2;
    }
    if (o->output_given) {
        fprintf(err, "tiledconv: -o %s: --pyramid writes one image per level, "
                     "DIR/BASE-oK-lJ.EXT: give -O DIR, or --no-output\n", o->output);
        return 2;
    }
    if (o->raw_output) {
        fprintf(err, "tiledconv: --raw %s: with --pyramid, -O DIR and a bare --raw write "
                     "DIR/BASE-oK-lJ.f32\n", o->raw_output);
        return 2;
    }
    if (!o->output_dir && o->write_output) {
        fprintf(err, "tiledconv: --pyramid writes one image per level: give -O DIR (each level "
                     "DIR/BASE-oK-lJ.EXT), or --no-output\n");
        return 2;
    }
    /* The Gaussians' lengths do not depend on the image: refused here, before any work. */
    tc_pyramid_params p;
    char why[512];
    int count;
    tc_pyramid_params_init(&p);
    p.octaves = o->pyramid_octaves;
    p.levels = o->pyramid_levels;
    if (o->sigma > 0.0)
        p.sigma = o->sigma;
    if (tc_pyramid_layout(32768, 32768, &p, NULL, 0, &count, why, sizeof why) != TC_OK) {
        fprintf(err, "tiledconv: --pyramid %dx%d%s: %s\n", p.octaves, p.levels,
                o->sigma > 0.0 ? " --sigma" : "", why);
        return 2;
    }
    return 0;
}

/* --gradient sobel|scharr: 1 + the tc_gradient_operator. */
static int parse_gradient(const char *text, tc_options *o, FILE *err)
{
    for (int op = TC_GRADIENT_SOBEL; op <= TC_GRADIENT_SCHARR; op++)
        if (strcmp(text, tc_gradient_operator_name((tc_gradient_operator)op)) == 0) {
            o->gradient = op + 1;
            return 0;
        }
    fprintf(err, "tiledconv: --gradient '%s': unknown operator; use sobel or scharr\n", text);
    return 2;
}

/* --gradient's rules, once every flag is read: the intensity plane only; the operator brings
 * its own 3-tap kernels, the tiled kernel and the article's blocks; -a all compares it with
 * the two filters run apart. */
static int check_gradient(tc_options *o, const filter_args *a, FILE *err)
{
    const char *filter_flag = a->taps_x || a->taps_y ? "-f"
                              : a->c.count             ? "-c"
                              : a->cx.count            ? "--cx"
                              : a->cy.count            ? "--cy"
                              : a->mask.width          ? "--mask"
                              : o->named_filter >= 0   ? "--filter"
                              : a->sigma_given         ? "--sigma"
                              : a->amount_given        ? "--amount"
                                                       : NULL;
    const char *name = tc_gradient_operator_name((tc_gradient_operator)(o->gradient - 1));
    if (!o->gradient)
        return 0;
    if (o->color) {
        fprintf(err, "tiledconv: --gradient and --color: the gradient is computed on the "
                     "intensity plane only; drop --color\n");
        return 2;
    }
    if (filter_flag) {
        fprintf(err, "tiledconv: --gradient %s and %s: the operator brings its own 3-tap "
                     "kernels ([-1 0 1] and [%s]); drop %s\n",
                name, filter_flag, o->gradient == 1 ? "1 2 1" : "3 10 3", filter_flag);
        return 2;
    }
    if (!o->all_algorithms && o->algorithm != TC_TILED) {
        fprintf(err, "tiledconv: --gradient and -a %s: the one-read gradient is a pass of the "
                     "tiled kernel (-a all compares it with the two filters run apart)\n",
                tc_algorithm_name(o->algorithm));
        return 2;
    }
    if (o->storage == TC_STORAGE_IMAGE) {
        fprintf(err, "tiledconv: --gradient and --storage image: the one-read gradient reads "
                     "the plane from a buffer (image objects serve the filters' tiled and "
                     "onepass); drop --storage\n");
        return 2;
    }
    if (o->block_x != TC_TILED_BLOCK_X || o->block_y != TC_TILED_BLOCK_Y) {
        fprintf(err, "tiledconv: --block %dx%d: the one-read gradient keeps the article's %d x "
                     "%d blocks; drop --block\n",
                o->block_x, o->block_y, TC_TILED_BLOCK_X, TC_TILED_BLOCK_Y);
        return 2;
    }
    o->gradient_compare = o->all_algorithms;
    o->all_algorithms = 0;
    return 0;
}

static int parse_algorithm(const char *text, tc_options *o, FILE *err)
{
    if (strcmp(text, "all") == 0) {
        o->all_algorithms = 1;
        return 0;
    }
    for (int a = TC_TILED; a <= TC_BILINEAR; a++)
        if (strcmp(text, tc_algorithm_name((tc_algorithm)a)) == 0) {
            o->algorithm = (tc_algorithm)a;
            o->all_algorithms = 0;
            return 0;
        }
    fprintf(err, "tiledconv: -a '%s': unknown algorithm; use tiled, twopass, onepass, bilinear "
                 "or all\n", text);
    return 2;
}

/* --storage buffer|image. */
static int parse_storage(const char *text, tc_options *o, FILE *err)
{
    for (int s = TC_STORAGE_BUFFER; s <= TC_STORAGE_IMAGE; s++)
        if (strcmp(text, tc_storage_name((tc_storage)s)) == 0) {
            o->storage = (tc_storage)s;
            o->storage_given = 1;
            return 0;
        }
    fprintf(err, "tiledconv: --storage '%s': use buffer or image\n", text);
    return 2;
}

int cli_bilinear_refusal(const tc_filter_spec *f, char *why, size_t size)
{
    const float *k[2] = {f->kx, f->ky};
    const int taps[2] = {f->taps_x, f->taps_y};
    if (f->mask_width && !f->mask_separable) {
        snprintf(why, size,
                 "the %d x %d mask is not separable (not rank 1), and the trick pairs the taps "
                 "of two 1-D passes; use tiled or onepass",
                 f->mask_width, f->mask_height);
        return 1;
    }
    for (int axis = 0; axis < 2; axis++) {
        tc_bilinear_axis a;
        int bad = 0;
        if (tc_bilinear_pair(k[axis], taps[axis], &a, &bad) == 0)
            continue;
        snprintf(why, size,
                 "%s[%d] = %g and %s[%d] = %g have opposite signs (as have two taps of the "
                 "other pairing), and one sample reads two neighbouring taps only when their "
                 "weights share a sign (box, gauss, binomial, Sobel do); use another algorithm",
                 axis ? "ky" : "kx", bad, (double)k[axis][bad], axis ? "ky" : "kx", bad + 1,
                 (double)k[axis][bad + 1]);
        return 1;
    }
    return 0;
}

/* The rules between the algorithm, --storage and the filter (all before any work): image
 * storage is for tiled and onepass; bilinear samples an image by definition, and pairs taps
 * whose weights share a sign (bilinear.h). */
static int check_storage(const tc_options *o, FILE *err)
{
    char why[320];
    if (!o->all_algorithms && o->algorithm == TC_TWOPASS && o->storage == TC_STORAGE_IMAGE) {
        fprintf(err, "tiledconv: --storage image: twopass reads buffers only; tiled and onepass "
                     "read an image (-a bilinear always does)\n");
        return 2;
    }
    if (o->all_algorithms || o->algorithm != TC_BILINEAR)
        return 0;
    if (o->storage_given && o->storage == TC_STORAGE_BUFFER) {
        fprintf(err, "tiledconv: --storage buffer: -a bilinear samples an image object by "
                     "definition; leave --storage out\n");
        return 2;
    }
    if (cli_bilinear_refusal(&o->filter, why, sizeof why)) {
        fprintf(err, "tiledconv: -a bilinear: %s\n", why);
        return 2;
    }
    return 0;
}

/* --device cpu|gpu|all, or TYPE:all for every device of that type. */
static int parse_device_type(const char *text, tc_options *o, FILE *err)
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
static int parse_device_list(const char *text, tc_options *o, FILE *err)
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
        if (parse_int("-d", item, 0, 1000, &o->device_list[o->n_device_list++], err))
            return 2;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

/* tc_open's request (tiledconv.h), [TYPE][:P[:D]] or "" for the default device, when the
 * options name one device; cli/devices.c resolves several. */
static void device_request(const tc_options *o, char *out, size_t size)
{
    char platform[16] = "", device[16] = "";
    const char *type = o->device_type && !strchr(o->device_type, ':') ? o->device_type : NULL;
    if (o->platform >= 0)
        snprintf(platform, sizeof platform, "%d", o->platform);
    if (o->n_device_list > 0)
        snprintf(device, sizeof device, ":%d", o->device_list[0]);
    snprintf(out, size, "%s%s%s%s", type ? type : "", type && (platform[0] || device[0]) ? ":" : "",
             platform, device);
}

/* The inputs after the options, and what a bare --raw means. `--raw FILE` (two words) names
 * the float file for one image; with -O, a bare --raw is a flag, and the word after it is an
 * input like any other. raw_word is the word that followed the bare --raw, if any. */
static int resolve_inputs(tc_options *o, int raw_bare, char *raw_word, char **argv, int first,
                          int argc, FILE *err)
{
    o->positional = argv + first;
    o->n_positional = argc - first;
    if (!raw_bare)
        return 0;
    if (o->output_dir) {
        o->raw_flag = 1;
        return 0;
    }
    if (!raw_word) {
        fprintf(err, "tiledconv: --raw needs a file name (or, with -O DIR, writes DIR/BASE.f32)\n");
        return 2;
    }
    /* The word is the raw file, not an input: take it out of the inputs. */
    for (int i = 0; i < o->n_positional; i++)
        if (o->positional[i] == raw_word) {
            memmove(&o->positional[i], &o->positional[i + 1],
                    (size_t)(o->n_positional - i - 1) * sizeof *o->positional);
            o->n_positional--;
            break;
        }
    o->raw_output = raw_word;
    return 0;
}

/* Whether a word has the form of a count: digits, or digits x digits ("4", "4x4", "0x3",
 * "99999999999x1"), whatever their value. An option with an optional count (a bare --pyramid)
 * takes such a word as its value, and judges it there, so that an invalid count is a usage
 * error before any work rather than an input file; any other word stays an input. */
static int count_shape(const char *w)
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
static int parse_pyramid(const char *text, tc_options *o, FILE *err)
{
    text_shown shown;
    char *end;
    long a = -1, b = -1;
    if (count_shape(text) && !strpbrk(text, "xX")) {
        text_shown again;
        fprintf(err, "tiledconv: --pyramid %s: a pyramid is OCTAVESxLEVELS, for example 4x4 (the "
                     "default); an input file of that name is ./%s\n", text_show(text, &shown),
                text_show(text, &again));
        return 2;
    }
    if (count_shape(text)) {
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

static void set_defaults(tc_options *o)
{
    const tc_roi_request roi = TC_ROI_REQUEST_DEFAULT;
    memset(o, 0, sizeof *o);
    o->input = NULL;
    o->output = TC_DEFAULT_OUTPUT;
    o->write_output = 1;
    o->roi = roi;
    tc_filter_binomial(&o->filter, 3);
    o->algorithm = TC_TILED;
    o->iterations = 1;
    o->format = TC_FORMAT_TABLE;
    o->block_x = TC_TILED_BLOCK_X;
    o->block_y = TC_TILED_BLOCK_Y;
    o->named_filter = -1;
    o->platform = -1;
    o->out_scale = 1.0;
    o->out_offset = 0.0;
    o->image_format = IO_FORMAT_BMP;
    o->quality = IO_JPEG_QUALITY;
    o->max_pixels = IO_DEFAULT_MAX_PIXELS;
    o->amount = TC_SHARPEN_DEFAULT_AMOUNT;
    o->pyramid_octaves = TC_PYRAMID_DEFAULT_OCTAVES;
    o->pyramid_levels = TC_PYRAMID_DEFAULT_LEVELS;
}

static int parse_options(int argc, char **argv, tc_options *o, FILE *err)
{
    filter_args fa;
    int rc = 0, c, raw_bare = 0;
    char *raw_word = NULL, *pyramid_word = NULL;
    const long int_max = INT_MAX;

    memset(&fa, 0, sizeof fa);
    fa.c.flag = "-c";
    fa.cx.flag = "--cx";
    fa.cy.flag = "--cy";
    fa.border = TC_BORDER_REPLICATE;

    set_defaults(o);
    optind = 0; /* glibc: 0 resets the scanner completely, so tests can parse many times */
    opterr = 0; /* our own messages, one line each */
    while (rc == 0 && (c = getopt_long_only(argc, argv, short_options, long_options, NULL)) != -1) {
        switch (c) {
        case 's': o->input = optarg; break;
        case 'g': rc = parse_size(optarg, &o->synth_width, &o->synth_height, err); break;
        case 'o': o->output = optarg; o->output_given = 1; break;
        case OPT_NO_OUTPUT: o->write_output = 0; break;
        case OPT_IMAGE_FORMAT: rc = parse_image_format(optarg, o, err); break;
        case OPT_DEPTH: rc = parse_depth(optarg, o, err); break;
        case OPT_QUALITY: rc = parse_int("--quality", optarg, 1, 100, &o->quality, err); break;
        case OPT_SRC_LEFT: rc = parse_long("-sL", optarg, 0, int_max, &o->roi.src_left, err); break;
        case OPT_SRC_TOP: rc = parse_long("-sT", optarg, 0, int_max, &o->roi.src_top, err); break;
        case OPT_DST_LEFT: rc = parse_long("-tL", optarg, 0, int_max, &o->roi.dst_left, err); break;
        case OPT_DST_TOP: rc = parse_long("-tT", optarg, 0, int_max, &o->roi.dst_top, err); break;
        case 'W': rc = parse_long("-W", optarg, 1, int_max, &o->roi.width, err); break;
        case 'H': rc = parse_long("-H", optarg, 1, int_max, &o->roi.height, err); break;
        case 'f': rc = parse_taps(optarg, &fa, err); break;
        case 'c': rc = parse_coefficients(optarg, &fa.c, err); break;
        case OPT_CX: rc = parse_coefficients(optarg, &fa.cx, err); break;
        case OPT_CY: rc = parse_coefficients(optarg, &fa.cy, err); break;
        case OPT_FILTER: rc = parse_filter_name(optarg, o, err); break;
        case OPT_SIGMA: rc = parse_sigma(optarg, o, &fa, err); break;
        case OPT_BORDER: rc = parse_border(optarg, &fa, err); break;
        case OPT_MASK: rc = parse_mask(optarg, &fa, err); break;
        case OPT_AMOUNT: rc = parse_amount(optarg, o, &fa, err); break;
        case OPT_OFFSET: rc = parse_double("--offset", optarg, &o->out_offset, err); break;
        case OPT_SCALE: rc = parse_double("--scale", optarg, &o->out_scale, err); break;
        case OPT_COLOR: o->color = 1; break;
        case OPT_RAW:
            if (optarg) {
                o->raw_output = optarg;
            } else { /* the next word, if it is not an option, is the file or an input */
                raw_bare = 1;
                /* ("-" is a word too, so that --raw - is refused with its reason) */
                raw_word = optind < argc && (argv[optind][0] != '-' || !argv[optind][1])
                               ? argv[optind]
                               : NULL;
            }
            break;
        case OPT_FILES_FROM: o->files_from = optarg; break;
        case 'O': o->output_dir = optarg; break;
        case OPT_NO_SYNC: o->no_sync = 1; break;
        case OPT_CLASS_MAP: o->class_map = optarg; break;
        case OPT_PYRAMID:
            o->pyramid = 1;
            if (optarg)
                rc = parse_pyramid(optarg, o, err);
            else if (optind < argc && count_shape(argv[optind]) &&
                     (rc = parse_pyramid(argv[optind], o, err)) == 0)
                pyramid_word = argv[optind]; /* the value, not an input */
            break;
        case OPT_GRADIENT: rc = parse_gradient(optarg, o, err); break;
        case 'a': rc = parse_algorithm(optarg, o, err); break;
        case OPT_STORAGE: rc = parse_storage(optarg, o, err); break;
        case 'e': o->verify = 1; break;
        case 't': o->timing = 1; break;
        case 'i': rc = parse_int("-i", optarg, 1, 1000000, &o->iterations, err); break;
        case 'p': rc = parse_int("-p", optarg, 0, 1000, &o->platform, err); break;
        case 'd': rc = parse_device_list(optarg, o, err); break;
        case OPT_DEVICE_TYPE: rc = parse_device_type(optarg, o, err); break;
        case 'l': o->list_devices = 1; break;
        case 'v': o->verbose = 1; break;
        case 'q': o->quiet = 1; break;
        case OPT_THREADS: rc = parse_int("--threads", optarg, 1, 1024, &o->threads, err); break;
        case OPT_SAMPLING: rc = parse_sampling(optarg, o, err); break;
        case OPT_NO_FILTER: o->no_filter = 1; break;
        case OPT_CSV: o->format = TC_FORMAT_CSV; break;
        case OPT_JSON: o->format = TC_FORMAT_JSON; break;
        case 'h': o->help = 1; break;
        case OPT_VERSION: o->version = 1; break;
        case OPT_BLOCK: rc = parse_block(optarg, o, err); break;
        case OPT_SCALAR_IO: o->scalar_io = 1; break;
        case OPT_KERNEL: o->kernel = optarg; break; /* checked by the library, before any work */
        case OPT_MAX_PIXELS: rc = parse_max_pixels(optarg, o, err); break;
        case OPT_ALLOW_HIGH_RATIO: o->allow_high_ratio = 1; break;
        case OPT_MAX_MEMORY:
            if ((rc = bytes_parse(optarg, &o->max_memory) ? 2 : 0) != 0)
                fprintf(err, "tiledconv: --max-memory '%s': expected a number of bytes of at "
                             "least 1, with K, M, G or T for binary multiples (1G is 1073741824)\n",
                        optarg);
            break;
        case OPT_FORCE: o->force = 1; break;
        case ':':
            fprintf(err, "tiledconv: %s needs a value (see -h)\n",
                    optopt ? flag_name(optopt) : argv[optind - 1]);
            rc = 2;
            break;
        default: /* '?' */
            if (optopt && strchr(argv[optind - 1], '=')) /* --color=1, --verbose=yes */
                fprintf(err, "tiledconv: %s: this option takes no value (see -h)\n",
                        argv[optind - 1]);
            else if (optopt && optopt < 256)
                fprintf(err, "tiledconv: unknown option -%c (see -h)\n", optopt);
            else
                fprintf(err, "tiledconv: unknown or ambiguous option '%s' (see -h)\n",
                        argv[optind - 1]);
            rc = 2;
            break;
        }
    }
    if (rc)
        return rc;
    if (resolve_inputs(o, raw_bare, raw_word, argv, optind, argc, err))
        return 2;
    /* A bare --pyramid's OxL word is its value: out of the inputs. */
    for (int i = 0; pyramid_word && i < o->n_positional; i++)
        if (o->positional[i] == pyramid_word) {
            memmove(&o->positional[i], &o->positional[i + 1],
                    (size_t)(o->n_positional - i - 1) * sizeof *o->positional);
            o->n_positional--;
            break;
        }
    if ((o->input || o->n_positional || o->files_from) && o->synth_width) {
        fprintf(err, "tiledconv: -g and %s: give input files or a synthetic size, not both\n",
                o->input ? "-s" : o->files_from ? "--files-from" : "an input file");
        return 2;
    }
    /* An empty name would only give ": No such file or directory" later: say what is empty. */
    if (o->input && o->input[0] == '\0') {
        fprintf(err, "tiledconv: -s: the file name is empty\n");
        return 2;
    }
    for (int i = 0; i < o->n_positional; i++)
        if (o->positional[i][0] == '\0') {
            fprintf(err, "tiledconv: input %d after the options: the file name is empty\n",
                    i + 1);
            return 2;
        }
    if ((o->files_from && o->files_from[0] == '\0') ||
        (o->output_dir && o->output_dir[0] == '\0')) {
        fprintf(err, "tiledconv: %s: the %s name is empty\n",
                o->files_from && !o->files_from[0] ? "--files-from" : "-O",
                o->files_from && !o->files_from[0] ? "file" : "folder");
        return 2;
    }
    if (o->pyramid && check_pyramid_filter(o, &fa, err))
        return 2;
    if (build_filter(o, &fa, err) || check_gradient(o, &fa, err) || check_storage(o, err))
        return 2;
    if (o->filter.mask_width && !o->filter.mask_separable && !o->all_algorithms &&
        o->algorithm == TC_TWOPASS) {
        fprintf(err, "tiledconv: -a twopass: the %d x %d mask of %s is not separable (not rank "
                     "1), so it has no two 1-D passes; use -a tiled, onepass or all\n",
                o->filter.mask_width, o->filter.mask_height,
                fa.mask.width ? "--mask" : "--filter");
        return 2;
    }
    if (resolve_image_format(o, err))
        return 2;
    if (o->pyramid && check_pyramid(o, err))
        return 2;
    device_request(o, o->device, sizeof o->device);
    if (!o->input && !o->synth_width && !o->n_positional && !o->files_from)
        o->input = TC_DEFAULT_INPUT;
    return 0;
}

/* The words split_attached made ("-sL=3"), kept until the next parse: argv points at them. */
static char *attached_words;

/* 1 when word is an option that takes its value in the next word ("-o", "--output", "-sL"):
 * the next word is then a value, never an option to rewrite. */
static int takes_next_word(const char *word)
{
    if (word[0] != '-' || word[1] == '\0')
        return 0;
    const char *name = word + (word[1] == '-' ? 2 : 1);
    if (strchr(name, '='))
        return 0;
    for (const struct option *l = long_options; l->name; l++)
        if (l->has_arg == required_argument && strcmp(name, l->name) == 0)
            return 1;
    /* A cluster of short options: the value is the next word when the option that takes one
     * ends the word (-et -i 5 takes "5"; -i5 does not). */
    if (word[1] == '-')
        return 0;
    for (const char *c = word + 1; *c; c++) {
        const char *spec = strchr(short_options + 1, *c);
        if (!spec || *c == ':')
            return 0;
        if (spec[1] == ':')
            return c[1] == '\0';
    }
    return 0;
}

/* The AMD sample's two-letter flags with their value attached mean what their users meant:
 * -sL3 is -sL 3 (getopt would read it as -s L3, a file named "L3"), -tT12 is -tT 12 (-t, then
 * an unknown -T). Such words become "-sL=3", which getopt_long_only reads as the long option
 * with its value. A word that is another option's value (-o -sL3) is left alone. */
static void split_attached(int argc, char **argv)
{
    static const char *const amd[] = {"-sL", "-sT", "-tL", "-tT"};
    size_t room = 0;
    free(attached_words);
    attached_words = NULL;
    for (int i = 1; i < argc; i++)
        room += strlen(argv[i]) + 2;
    char *next = NULL;
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (strcmp(w, "--") == 0)
            break;
        if (takes_next_word(w)) {
            i++;
            continue;
        }
        for (size_t k = 0; k < sizeof amd / sizeof amd[0]; k++) {
            if (strncmp(w, amd[k], 3) != 0 || w[3] == '\0' || w[3] == '=')
                continue;
            if (!attached_words && !(next = attached_words = malloc(room)))
                return; /* out of memory: parse the words as they are */
            char *word = next;
            next += sprintf(word, "%s=%s", amd[k], w + 3) + 1;
            argv[i] = word;
            break;
        }
    }
}

int cli_parse(int argc, char **argv, tc_options *o, FILE *err)
{
    char *text = NULL;
    size_t len = 0;
    split_attached(argc, argv);
    /* The message is made in memory, then printed with its control characters escaped: a value
     * or file name holding a newline must not split the one line an error gets. */
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return parse_options(argc, argv, o, err);
    const int rc = parse_options(argc, argv, o, mem);
    if (fclose(mem) == 0 && text && len > 0) {
        char line[1024];
        if (text[len - 1] == '\n')
            text[len - 1] = '\0';
        fprintf(err, "%s\n", text_escape_line(text, line, sizeof line, 400));
    }
    free(text);
    return rc;
}

void cli_params(const tc_options *o, const tc_roi *roi, tc_params *p)
{
    tc_params_init(p);
    p->taps_x = o->filter.taps_x;
    p->taps_y = o->filter.taps_y;
    p->kx = o->filter.kx;
    p->ky = o->filter.ky;
    if (o->filter.mask_width) { /* the library factors it again, the same way */
        p->mask = o->filter.mask;
        p->mask_width = o->filter.mask_width;
        p->mask_height = o->filter.mask_height;
    }
    p->border = o->filter.border;
    p->border_value = o->filter.border_value;
    p->algorithm = o->algorithm;
    p->src_left = roi->src_left;
    p->src_top = roi->src_top;
    p->dst_left = roi->dst_left;
    p->dst_top = roi->dst_top;
    p->roi_width = roi->width;
    p->roi_height = roi->height;
    p->block_width = o->block_x;
    p->block_height = o->block_y;
    p->vector_io = !o->scalar_io;
    p->storage = o->storage;
    p->kernel = o->kernel;
    p->out_scale = o->out_scale;
    p->out_offset = o->out_offset;
    /* -v reports the classes the tiled kernel took, counted by the kernel itself. */
    p->count_classes = o->verbose && o->format == TC_FORMAT_TABLE;
}

void cli_usage(FILE *out)
{
    fputs(
        "Usage: tiledconv [options] [FILE...]\n"
        "Filters an image (BMP, PNG, JPEG, PGM/PPM) with a separable filter (3 to 63 taps, a\n"
        "length per axis) or a 2-D mask on an OpenCL device, from a source ROI into a target ROI\n"
        "(AMD's Tiled Convolution sample, extended).\n"
        "\n"
        "Input and output:\n"
        "  -s, --source FILE         input image, its format known from its first bytes: BMP,\n"
        "                            PNG, JPEG, PGM/PPM; - reads standard input (default\n"
        "                            " TC_DEFAULT_INPUT ")\n"
        "  -g, --generate WxH        a synthetic image of that size instead of a file\n"
        "  -o, --output FILE         output image (default " TC_DEFAULT_OUTPUT "), its format\n"
        "                            from the extension: .bmp .png .jpg .jpeg .pgm .ppm .pnm\n"
        "                            (none: BMP); gray, or colour with --color; - writes\n"
        "                            standard output, and every report goes to stderr\n"
        "      --format NAME         the output's format whatever the name, for -o - and -O:\n"
        "                            " IO_FORMAT_LIST "\n"
        "      --depth 8|16          bits per sample of a PNG or PGM/PPM output (default 16\n"
        "                            for an input of more than 8 bits, else 8)\n"
        "      --quality Q           JPEG quality 1..100 (default 95)\n"
        "      --sampling 420|422|444  colour JPEG chroma sampling (default 420, as cjpeg and\n"
        "                            OpenCV write; 444 keeps coloured edges whole)\n"
        "      --no-output           write no image (timing sweeps)\n"
        "  FILE...                   more inputs: a batch in one process (-s is taken first)\n"
        "      --files-from LIST     more inputs, one name a line (- for standard input)\n"
        "  -O, --output-dir DIR      a batch's outputs, DIR created if missing: each input's\n"
        "                            name, format and depth kept (gray jobs write the\n"
        "                            format's gray form); with --format DIR/BASE.EXT (EXT the\n"
        "                            format's: bmp, png, jpg, pgm/ppm)\n"
        "      --no-sync             do not sync outputs to disk (scratch work: a crash may\n"
        "                            lose finished files; renames stay atomic)\n"
        "      --color               filter the R, G and B planes (not the intensity) and write\n"
        "                            a colour image; -e checks and -t times all three\n"
        "      --class-map FILE      also draw the tiled kernel's work-groups over the image,\n"
        "                            by the article's four classes, with their counts (the\n"
        "                            format from FILE's extension, as for -o)\n"
        "      --raw FILE            also write the filtered float32 plane(s): width x height\n"
        "                            floats each, little-endian, row-major, row 0 on top, no\n"
        "                            header; with --color R, then G, then B (12 bytes a pixel);\n"
        "                            with -O a bare --raw writes DIR/BASE.f32 for each input\n"
        "      --scale S, --offset V the image gets v * S + V inside the target ROI before the\n"
        "                            8- or 16-bit rounding (default 1 and 0; -e, --raw see v)\n"
        "Regions of interest (default: the largest that fits both):\n"
        "  -sL, --source-left X      left column of the source ROI (default 0)\n"
        "  -sT, --source-top Y       top row of the source ROI (default 0)\n"
        "  -tL, --target-left X      left column of the target ROI (default 0)\n"
        "  -tT, --target-top Y       top row of the target ROI (default 0)\n"
        "  -W, --width W             ROI width, the same for both ROIs\n"
        "  -H, --height H            ROI height\n",
        out);
    /* Three strings: one would pass the 4095 characters ISO C guarantees a literal. */
    fputs(
        "Filter (correlation, no flip; kx runs along rows, ky along columns):\n"
        "  -f, --taps N|WxH          filter length, odd, 3..63 (default 3; gauss 5); WxH: kx W\n"
        "                            taps, ky H, each odd 1..63 (1: that axis unfiltered)\n"
        "  -c, --coefficients a,b,c  kx and ky at once (default binomial); a list sets its\n"
        "                            axis's length, and a -f given must agree\n"
        "      --cx a,b,c            kx only;  --cy a,b,c  ky only (the other stays binomial)\n"
        "      --filter NAME         box, gauss, binomial (3..63 taps), sobel-x, sobel-y (3..31),\n"
        "                            scharr-x, scharr-y (3 taps); -x/-y are positive where the\n"
        "                            intensity grows rightwards/downwards (OpenCV's kernels,\n"
        "                            unnormalised); the 3x3 masks laplacian (0 1 0;1 -4 1;0 1 0),\n"
        "                            laplacian8 (1 1 1;1 -8 1;1 1 1), sharpen (the identity + A x\n"
        "                            (the identity - the 3x3 binomial))\n"
        "      --sigma S             gauss: sigma in pixels (without it OpenCV's kernel:\n"
        "                            getGaussianKernel(N, 0)'s tables for 3..9 taps, sigma\n"
        "                            0.3 (r - 1) + 0.8 beyond; without -f the length is\n"
        "                            round(6 S + 1), odd, <= 63)\n"
        "      --amount A            sharpen: A (default 1)\n"
        "      --mask 'a,b,c;d,e,f;g,h,i'  a non-separable mask, rows split by ';' (or @FILE: a\n"
        "                            row a line, '#' comments); odd sizes up to 15x15; a rank-1\n"
        "                            mask runs as its two factors (-v prints them)\n"
        "      --border MODE         reads outside the source ROI: replicate (default) aaa|abcd,\n"
        "                            constant[=V] VVV|abcd (V 0), reflect101 dcb|abcd,\n"
        "                            reflect cba|abcd, wrap bcd|abcd\n"
        "      --gradient OP         sobel or scharr: gx, gy and sqrt(gx^2 + gy^2) of the\n"
        "                            intensity in one pass of the tiled kernel (one read);\n"
        "                            the image is the magnitude (clamped; --scale maps it),\n"
        "                            --raw writes gx, gy, magnitude; -t and -a all compare\n"
        "                            it with the two filters run apart\n"
        "  -a, --algorithm NAME      tiled (default), twopass, onepass, bilinear, or all to\n"
        "                            compare tiled, twopass and onepass (with --storage image\n"
        "                            also their image reads and bilinear); twopass and\n"
        "                            bilinear take no mask that is not separable; bilinear:\n"
        "                            two passes on an image, one linear sample per two taps\n"
        "                            (an approximation, -e states its tolerance)\n"
        "      --storage buffer|image  tiled, onepass: read the source from a buffer (default)\n"
        "                            or an image2d_t through a nearest sampler\n"
        "      --block WxH           tiled: pixels per work-item, W 4|8, H 1..16 (default 4x4)\n"
        "      --scalar-io           tiled: global loads/stores one float at a time (no float4)\n"
        "      --kernel NAME         tiled: the kernel variant for long filters and masks (a\n"
        "                            study option; README \"Kernel variants\" lists them)\n",
        out);
    fputs(
        "Checking and timing:\n"
        "  -e, --verify              compare every pixel with the CPU reference\n"
        "  -t, --timing              print kernel, transfer and build times\n"
        "  -i, --iterations N        timed iterations after one warm-up (default 1)\n"
        "      --csv, --json         one machine-readable record per run\n"
        "Device:\n"
        "  -l, --list                list OpenCL platforms and devices (--json: one record a\n"
        "                            device, its limits in bytes, the default one marked)\n"
        "  -p, --platform N          platform index\n"
        "  -d, --device-index N|LIST device index within the platform; a list (0,1) spreads a\n"
        "                            batch over devices (0,0: two queues on one)\n"
        "      --device TYPE         cpu, gpu or all (default: a GPU if there is one);\n"
        "                            TYPE:all (gpu:all) takes every device of that type\n"
        "Other:\n"
        "  -v, --verbose             also print the launch geometry and work-group classes\n"
        "  -q, --quiet               print only results and errors\n"
        "  -h, --help                this text;  --version  the version\n",
        out);
    fputs(
        "Gaussian scale space:\n"
        "      --pyramid [OxL]       O octaves (1..16) of L levels (1..8), default 4x4: octave K\n"
        "                            is ceil(W / 2^K) x ceil(H / 2^K), level J has sigma\n"
        "                            sigma0 2^(J/L) in its octave's pixels (sigma0 --sigma,\n"
        "                            default 1.6); octave 0 from the input, each next octave\n"
        "                            from the even pixels of the last one's image at 2 sigma0;\n"
        "                            written to -O DIR as BASE-oK-lJ.EXT (BASE: synthetic for\n"
        "                            -g, stdin for -s -); -e checks every level, -t times one\n"
        "                            launch per octave against one per level; a word after\n"
        "                            a bare --pyramid shaped as a count (5, 0x3, 3x2) is its\n"
        "                            value, checked at once; any other word is an input\n",
        out);
    fputs(
        "Many images in one run (a batch):\n"
        "      --threads N           host workers that read, decode, encode and write\n"
        "                            (default: every core this process may run on); any N\n"
        "                            writes the same bytes\n"
        "      --no-filter           write each image unfiltered, without a device: the\n"
        "                            codec floor (read, decode, encode, write) of a batch\n",
        out);
    fputs(
        "Limits and safety:\n"
        "      --max-pixels N|WxH    refuse larger images (default 268435456, 16384x16384;\n"
        "                            at most 1073741824, 32768x32768); -g and files alike\n"
        "      --allow-high-ratio    decode compressed images beyond the pixels per byte\n"
        "                            their format can honestly reach (BMP RLE: 256, above\n"
        "                            2^20 pixels; PNG, JPEG: 2048, above 2^22), where they are\n"
        "                            refused as likely decompression bombs\n"
        "      --force               replace an output file even when it is read-only\n"
        "      --max-memory BYTES    the memory a run may use (K, M, G, T: binary multiples;\n"
        "                            default: what the host has available); an image that\n"
        "                            does not fit it whole, or the device, is filtered in\n"
        "                            strips of rows, with the same output\n"
        "  The memory a run needs is worked out before anything is allocated: beyond the\n"
        "  device's limits exit 2, beyond the host's available memory exit 1; in strips,\n"
        "  a --max-memory too small for one strip exits 2 with the bytes it needs.\n",
        out);
    fputs(
        "\n"
        "Examples:\n"
        "  tiledconv -e -t -i 10                           blur the default image, check, time\n"
        "  tiledconv -s in.bmp --filter gauss -f 9 -o blurred.bmp   9-tap Gaussian blur\n"
        "  tiledconv -s in.bmp --color --filter box -f 7 -o soft.bmp  blur a colour image\n"
        "  tiledconv -s photo.jpg --color -f 5 -o soft.png       JPEG in, PNG out\n"
        "  tiledconv -s scan16.png -f 5 -o smooth.png            16 bits in, 16 bits out\n"
        "  curl -s URL | tiledconv -s - -o - --format png -f 5 | pngquant - >small.png\n"
        "  tiledconv -O out/ --format png -f 5 photos/*.jpg   a folder in one process\n"
        "  find . -name '*.bmp' | tiledconv --files-from - -O out/ -d 0,1   on two GPUs\n"
        "  tiledconv -s in.bmp --filter sobel-x --offset 128 --scale 0.25 -o edges.bmp\n"
        "                                                  vertical edges, 128 = no change\n"
        "  tiledconv -s in.bmp --cx 1,2,1 --cy -1,0,1 -o dy.bmp  your own kx and ky\n"
        "  tiledconv -s in.bmp --filter gauss --sigma 8 -f 49x1 -o smear.bmp  rows only\n"
        "  tiledconv -s in.png --pyramid 3x5 -O levels/ -e     a scale space, every level checked\n"
        "  tiledconv -s in.bmp --mask '0,1,0;1,-4,1;0,1,0' --offset 128 -o lap.bmp  a 2-D mask\n"
        "  tiledconv -s in.bmp --gradient sobel --scale 0.25 -o edges.bmp -e\n"
        "                                                  edges from one read, checked\n"
        "  tiledconv -e -sL 3 -sT 3 -tL 2 -tT 2 -W 100 -H 80   filter one ROI into another\n"
        "  tiledconv -s in.bmp -f 5 --border reflect101 --raw out.f32 -o out.bmp\n"
        "                                                  OpenCV's default border, float copy\n"
        "  tiledconv -g 8192x8192 -a all -t -i 50 --no-output  compare the three algorithms\n"
        "  tiledconv -g 8192x8192 -f 9 -a all --storage image -t --no-output   buffers, images\n"
        "                                                  and the bilinear-tap trick\n"
        "  for f in 3 5 7 9 11 13 15; do tiledconv -g 4096x4096 -f $f -a all -i 20 --json \\\n"
        "      --no-output; done > sweep.jsonl             a timing sweep, one record a line\n"
        "\n"
        "Exit status: 0 success, 1 verification failed or OpenCL failure, 2 usage or input "
        "error;\n"
        "after SIGINT, SIGTERM or SIGHUP (temporary files removed) 128 + the signal.\n",
        out);
}
