/* cli.c - option parsing with getopt_long_only, so that the AMD sample's two-letter flags
 * (-sL 3) and readable long forms (--source-left 3) both work. */
#define _GNU_SOURCE /* getopt_long_only */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_SRC_LEFT = 256, OPT_SRC_TOP, OPT_DST_LEFT, OPT_DST_TOP, OPT_DEVICE_TYPE, OPT_NO_OUTPUT,
    OPT_CSV, OPT_JSON, OPT_VERSION
};

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
    {"taps", required_argument, NULL, 'f'},
    {"coefficients", required_argument, NULL, 'c'},
    {"algorithm", required_argument, NULL, 'a'},
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
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static const char short_options[] = ":s:g:o:W:H:f:c:a:eti:p:d:lvqh";

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

/* "a,b,c[,...]": finite numbers separated by commas. */
static int parse_coefficients(const char *text, float k[TC_MAX_TAPS], int *count, FILE *err)
{
    const char *p = text;
    int n = 0;
    for (;;) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v) || fabs(v) > 1e30) {
            fprintf(err, "tiledconv: -c '%s': coefficient %d is not a finite number\n", text,
                    n + 1);
            return 2;
        }
        if (n == TC_MAX_TAPS) {
            fprintf(err, "tiledconv: -c '%s': more than %d coefficients\n", text, TC_MAX_TAPS);
            return 2;
        }
        k[n++] = (float)v;
        if (*end == '\0')
            break;
        if (*end != ',') {
            fprintf(err, "tiledconv: -c '%s': unexpected '%c' after coefficient %d\n", text,
                    *end, n);
            return 2;
        }
        p = end + 1;
    }
    *count = n;
    return 0;
}

static int parse_algorithm(const char *text, tc_options *o, FILE *err)
{
    if (strcmp(text, "all") == 0) {
        o->all_algorithms = 1;
        return 0;
    }
    for (int a = 0; a < TC_ALG_COUNT; a++)
        if (strcmp(text, tc_algorithm_name((tc_algorithm)a)) == 0) {
            o->algorithm = (tc_algorithm)a;
            o->all_algorithms = 0;
            return 0;
        }
    fprintf(err, "tiledconv: -a '%s': unknown algorithm; use tiled, twopass, onepass or all\n",
            text);
    return 2;
}

static int parse_device_type(const char *text, tc_options *o, FILE *err)
{
    if (strcmp(text, "gpu") == 0)
        o->device.type = OCL_TYPE_GPU;
    else if (strcmp(text, "cpu") == 0)
        o->device.type = OCL_TYPE_CPU;
    else if (strcmp(text, "all") == 0)
        o->device.type = OCL_TYPE_ALL;
    else {
        fprintf(err, "tiledconv: --device '%s': use cpu, gpu or all\n", text);
        return 2;
    }
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
    o->algorithm = TC_ALG_TILED;
    o->iterations = 1;
    o->device.platform_index = -1;
    o->device.device_index = -1;
    o->device.type = OCL_TYPE_DEFAULT;
    o->format = TC_FORMAT_TABLE;
}

int cli_parse(int argc, char **argv, tc_options *o, FILE *err)
{
    float coefficients[TC_MAX_TAPS];
    int n_coefficients = 0, taps = 3, rc = 0, c;
    const long int_max = INT_MAX;

    set_defaults(o);
    optind = 0; /* glibc: 0 resets the scanner completely, so tests can parse many times */
    opterr = 0; /* our own messages, one line each */
    while (rc == 0 && (c = getopt_long_only(argc, argv, short_options, long_options, NULL)) != -1) {
        switch (c) {
        case 's': o->input = optarg; break;
        case 'g': rc = parse_size(optarg, &o->synth_width, &o->synth_height, err); break;
        case 'o': o->output = optarg; break;
        case OPT_NO_OUTPUT: o->write_output = 0; break;
        case OPT_SRC_LEFT: rc = parse_long("-sL", optarg, 0, int_max, &o->roi.src_left, err); break;
        case OPT_SRC_TOP: rc = parse_long("-sT", optarg, 0, int_max, &o->roi.src_top, err); break;
        case OPT_DST_LEFT: rc = parse_long("-tL", optarg, 0, int_max, &o->roi.dst_left, err); break;
        case OPT_DST_TOP: rc = parse_long("-tT", optarg, 0, int_max, &o->roi.dst_top, err); break;
        case 'W': rc = parse_long("-W", optarg, 1, int_max, &o->roi.width, err); break;
        case 'H': rc = parse_long("-H", optarg, 1, int_max, &o->roi.height, err); break;
        case 'f':
            rc = parse_int("-f", optarg, 0, int_max, &taps, err);
            if (rc == 0 && taps != 3 && taps != 5) {
                fprintf(err, "tiledconv: -f %s: the filter length must be 3 or 5\n", optarg);
                rc = 2;
            }
            break;
        case 'c':
            rc = parse_coefficients(optarg, coefficients, &n_coefficients, err);
            o->coefficients_given = 1;
            break;
        case 'a': rc = parse_algorithm(optarg, o, err); break;
        case 'e': o->verify = 1; break;
        case 't': o->timing = 1; break;
        case 'i': rc = parse_int("-i", optarg, 1, 1000000, &o->iterations, err); break;
        case 'p': rc = parse_int("-p", optarg, 0, 1000, &o->device.platform_index, err); break;
        case 'd': rc = parse_int("-d", optarg, 0, 1000, &o->device.device_index, err); break;
        case OPT_DEVICE_TYPE: rc = parse_device_type(optarg, o, err); break;
        case 'l': o->list_devices = 1; break;
        case 'v': o->verbose = 1; break;
        case 'q': o->quiet = 1; break;
        case OPT_CSV: o->format = TC_FORMAT_CSV; break;
        case OPT_JSON: o->format = TC_FORMAT_JSON; break;
        case 'h': o->help = 1; break;
        case OPT_VERSION: o->version = 1; break;
        case ':':
            fprintf(err, "tiledconv: %s needs a value (see -h)\n",
                    optopt ? flag_name(optopt) : argv[optind - 1]);
            rc = 2;
            break;
        default: /* '?' */
            if (optopt && optopt < 256)
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
    if (optind < argc) {
        fprintf(err, "tiledconv: unexpected argument '%s' (see -h)\n", argv[optind]);
        return 2;
    }
    if (o->input && o->synth_width) {
        fprintf(err, "tiledconv: -s and -g: give an input file or a synthetic size, not both\n");
        return 2;
    }
    tc_filter_binomial(&o->filter, taps);
    if (o->coefficients_given) {
        if (n_coefficients != taps) {
            fprintf(err, "tiledconv: -c: %d coefficients given, -f %d needs %d%s\n",
                    n_coefficients, taps, taps,
                    n_coefficients == 5 && taps == 3 ? " (add -f 5)" : "");
            return 2;
        }
        for (int i = 0; i < taps; i++)
            o->filter.kx[i] = o->filter.ky[i] = coefficients[i];
    }
    if (!o->input && !o->synth_width)
        o->input = TC_DEFAULT_INPUT;
    return 0;
}

void cli_usage(FILE *out)
{
    fputs(
        "Usage: tiledconv [options]\n"
        "Filters the intensity plane of a BMP image with a separable 3x3 or 5x5 filter on an\n"
        "OpenCL device, from a source ROI into a target ROI (AMD's Tiled Convolution sample).\n"
        "\n"
        "Input and output:\n"
        "  -s, --source FILE         input BMP (default " TC_DEFAULT_INPUT ")\n"
        "  -g, --generate WxH        a synthetic image of that size instead of a file\n"
        "  -o, --output FILE         output 8-bit grayscale BMP (default " TC_DEFAULT_OUTPUT ")\n"
        "      --no-output           write no image (timing sweeps)\n"
        "Regions of interest (default: the largest that fits both):\n"
        "  -sL, --source-left X      left column of the source ROI (default 0)\n"
        "  -sT, --source-top Y       top row of the source ROI (default 0)\n"
        "  -tL, --target-left X      left column of the target ROI (default 0)\n"
        "  -tT, --target-top Y       top row of the target ROI (default 0)\n"
        "  -W, --width W             ROI width, the same for both ROIs\n"
        "  -H, --height H            ROI height\n"
        "Filter:\n"
        "  -f, --taps 3|5            filter length (default 3)\n"
        "  -c, --coefficients a,b,c  1-D coefficients, as many as -f (default binomial)\n"
        "  -a, --algorithm NAME      tiled (default), twopass, onepass, or all to compare them\n"
        "Checking and timing:\n"
        "  -e, --verify              compare every pixel with the CPU reference\n"
        "  -t, --timing              print kernel, transfer and build times\n"
        "  -i, --iterations N        timed iterations after one warm-up (default 1)\n"
        "      --csv, --json         one machine-readable record per run\n"
        "Device:\n"
        "  -l, --list                list OpenCL platforms and devices\n"
        "  -p, --platform N          platform index\n"
        "  -d, --device-index N      device index within the platform\n"
        "      --device cpu|gpu|all  device type (default: a GPU if there is one)\n"
        "Other:\n"
        "  -v, --verbose             also print the launch geometry and work-group classes\n"
        "  -q, --quiet               print only results and errors\n"
        "  -h, --help                this text;  --version  the version\n"
        "\n"
        "Examples:\n"
        "  tiledconv -e -t -i 10                           blur the default image, check, time\n"
        "  tiledconv -s in.bmp -f 5 -o blurred.bmp         5x5 binomial blur of in.bmp\n"
        "  tiledconv -s in.bmp -c -1,0,1 -o edges.bmp      horizontal-and-vertical difference\n"
        "  tiledconv -e -sL 3 -sT 3 -tL 2 -tT 2 -W 100 -H 80   filter one ROI into another\n"
        "  tiledconv -g 8192x8192 -a all -t -i 50 --no-output  compare the three algorithms\n"
        "  tiledconv -g 4096x4096 -t -i 20 --json --no-output  one JSON record for a sweep\n"
        "\n"
        "Exit status: 0 success, 1 verification failed or OpenCL failure, 2 usage or input error.\n",
        out);
}
