/* option_table.c - the command line's options, one row each (option_table.h). */
#include "option_table.h"

#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "option_parse.h"

const cli_section_info cli_sections[CLI_SECTION_COUNT] = {
    [CLI_SECTION_IO] = {"io", "Input and output", "Input and output", NULL},
    [CLI_SECTION_ROI] = {"roi", "Regions of interest",
                         "Regions of interest (default: the largest that fits both)", NULL},
    [CLI_SECTION_FILTER] = {"filter", "Filter",
                            "Filter (correlation, no flip; kx runs along rows, ky along columns)",
                            NULL},
    [CLI_SECTION_PYRAMID] = {"pyramid", "Gaussian scale space", "Gaussian scale space", NULL},
    [CLI_SECTION_BATCH] = {"batch", "Many images in one run", "Many images in one run (a batch)",
                           NULL},
    [CLI_SECTION_CHECK] = {"check", "Checking and timing", "Checking and timing", NULL},
    [CLI_SECTION_DEVICE] = {"device", "Device", "Device", NULL},
    [CLI_SECTION_LIMITS] = {"limits", "Limits and safety", "Limits and safety",
                            "The memory a run needs is worked out before anything is allocated: "
                            "beyond the\ndevice's limits exit 2, beyond the host's available "
                            "memory exit 1; in strips,\na --max-memory too small for one strip "
                            "exits 2 with the bytes it needs."},
    [CLI_SECTION_OTHER] = {"other", "Other", "Other", NULL},
};

#define S_IO CLI_SECTION_IO
#define S_ROI CLI_SECTION_ROI
#define S_FILTER CLI_SECTION_FILTER
#define S_PYRAMID CLI_SECTION_PYRAMID
#define S_BATCH CLI_SECTION_BATCH
#define S_CHECK CLI_SECTION_CHECK
#define S_DEVICE CLI_SECTION_DEVICE
#define S_LIMITS CLI_SECTION_LIMITS
#define S_OTHER CLI_SECTION_OTHER
#define OWN CLI_DOC_OWN
#define WITH CLI_DOC_WITH_PREVIOUS
#define ALIAS CLI_DOC_ALIAS
#define NONE CLI_NO_VALUE
#define VALUE CLI_VALUE
#define OPTIONAL CLI_OPTIONAL_VALUE

/* In the order of -h and of the manual. */
const cli_option cli_options[] = {
    /* ---- Input and output ---- */
    {'s', "s", "source", VALUE, "FILE", S_IO, OWN,
     "input image, its format known from its first bytes: BMP,\n"
     "PNG, JPEG, PGM/PPM; - reads standard input (default\n" TC_DEFAULT_INPUT ")"},
    {'g', "g", "generate", VALUE, "WxH", S_IO, OWN,
     "a synthetic image of that size instead of a file"},
    {'o', "o", "output", VALUE, "FILE", S_IO, OWN,
     "output image (default " TC_DEFAULT_OUTPUT "), its format\n"
     "from the extension: .bmp .png .jpg .jpeg .pgm .ppm .pnm\n"
     "(none: BMP); gray, or colour with --color; - writes\n"
     "standard output, and every report goes to stderr"},
    {OPT_FORMAT, NULL, "format", VALUE, "NAME", S_IO, OWN,
     "the output's format whatever the name, for -o - and -O:\n"
     "bmp, png, jpeg (jpg), pnm (pgm, ppm)"},
    {OPT_DEPTH, NULL, "depth", VALUE, "8|16", S_IO, OWN,
     "bits per sample of a PNG or PGM/PPM output (default 16\n"
     "for an input of more than 8 bits, else 8)"},
    {OPT_QUALITY, NULL, "quality", VALUE, "Q", S_IO, OWN, "JPEG quality 1..100 (default 95)"},
    {OPT_SAMPLING, NULL, "sampling", VALUE, "420|422|444", S_IO, OWN,
     "colour JPEG chroma sampling (default 420, as cjpeg and\n"
     "OpenCV write; 444 keeps coloured edges whole)"},
    {OPT_NO_OUTPUT, NULL, "no-output", NONE, NULL, S_IO, OWN, "write no image (timing sweeps)"},
    {OPT_COLOR, NULL, "color", NONE, NULL, S_IO, OWN,
     "filter the R, G and B planes (not the intensity) and write\n"
     "a colour image; -e checks and -t times all three"},
    {OPT_COLOR, NULL, "colour", NONE, NULL, S_IO, ALIAS, NULL},
    {OPT_CLASS_MAP, NULL, "class-map", VALUE, "FILE", S_IO, OWN,
     "also draw the tiled kernel's work-groups over the image,\n"
     "by the article's four classes, with their counts (the\n"
     "format from FILE's extension, as for -o)"},
    /* Optional: `--raw FILE` names the file for one image, a bare `--raw` with -O writes
     * DIR/BASE.f32 per input (option_parse.c). */
    {OPT_RAW, NULL, "raw", OPTIONAL, "FILE", S_IO, OWN,
     "also write the filtered float32 plane(s): width x height\n"
     "floats each, little-endian, row-major, row 0 on top, no\n"
     "header; with --color R, then G, then B (12 bytes a pixel);\n"
     "with -O a bare --raw writes DIR/BASE.f32 for each input"},
    {OPT_SCALE, NULL, "scale", VALUE, "S", S_IO, OWN,
     "the image gets v * S + V inside the target ROI before the\n"
     "8- or 16-bit rounding (default 1 and 0; -e, --raw see v)"},
    {OPT_OFFSET, NULL, "offset", VALUE, "V", S_IO, WITH, NULL},

    /* ---- Regions of interest ---- */
    {OPT_SOURCE_LEFT, "sL", "source-left", VALUE, "X", S_ROI, OWN,
     "left column of the source ROI (default 0)"},
    {OPT_SOURCE_TOP, "sT", "source-top", VALUE, "Y", S_ROI, WITH,
     "top row of the source ROI (default 0)"},
    {OPT_TARGET_LEFT, "tL", "target-left", VALUE, "X", S_ROI, OWN,
     "left column of the target ROI (default 0)"},
    {OPT_TARGET_TOP, "tT", "target-top", VALUE, "Y", S_ROI, WITH,
     "top row of the target ROI (default 0)"},
    {'W', "W", "width", VALUE, "W", S_ROI, OWN, "ROI width, the same for both ROIs"},
    {'H', "H", "height", VALUE, "H", S_ROI, WITH, "ROI height"},

    /* ---- Filter ---- */
    {'f', "f", "taps", VALUE, "N|WxH", S_FILTER, OWN,
     "filter length, odd, 3..63 (default 3; gauss 5); WxH: kx W\n"
     "taps, ky H, each odd 1..63 (1: that axis unfiltered)"},
    {'c', "c", "coefficients", VALUE, "a,b,c", S_FILTER, OWN,
     "kx and ky at once (default binomial); a list sets its\n"
     "axis's length, and a -f given must agree"},
    {OPT_CX, NULL, "cx", VALUE, "a,b,c", S_FILTER, OWN, "kx only (ky stays binomial unless --cy)"},
    {OPT_CY, NULL, "cy", VALUE, "a,b,c", S_FILTER, WITH, "ky only (kx stays binomial unless --cx)"},
    {OPT_FILTER, NULL, "filter", VALUE, "NAME", S_FILTER, OWN,
     "box, gauss, binomial (3..63 taps), sobel-x, sobel-y (3..31),\n"
     "scharr-x, scharr-y (3 taps); -x/-y are positive where the\n"
     "intensity grows rightwards/downwards (OpenCV's kernels,\n"
     "unnormalised); the 3x3 masks laplacian (0 1 0;1 -4 1;0 1 0),\n"
     "laplacian8 (1 1 1;1 -8 1;1 1 1), sharpen (the identity + A x\n"
     "(the identity - the 3x3 binomial))"},
    {OPT_SIGMA, NULL, "sigma", VALUE, "S", S_FILTER, OWN,
     "gauss: sigma in pixels (without it OpenCV's kernel:\n"
     "getGaussianKernel(N, 0)'s tables for 3..9 taps, sigma\n"
     "0.3 (r - 1) + 0.8 beyond; without -f the length is\n"
     "round(6 S + 1), odd, <= 63)"},
    {OPT_AMOUNT, NULL, "amount", VALUE, "A", S_FILTER, OWN, "sharpen: A (default 1)"},
    {OPT_MASK, NULL, "mask", VALUE, "'a,b,c;d,e,f;g,h,i'", S_FILTER, OWN,
     "a non-separable mask, rows split by ';' (or @FILE: a\n"
     "row a line, '#' comments); odd sizes up to 15x15; a rank-1\n"
     "mask runs as its two factors (-v prints them)"},
    {OPT_BORDER, NULL, "border", VALUE, "MODE", S_FILTER, OWN,
     "reads outside the source ROI: replicate (default) aaa|abcd,\n"
     "constant[=V] VVV|abcd (V 0), reflect101 dcb|abcd,\n"
     "reflect cba|abcd, wrap bcd|abcd"},
    {OPT_GRADIENT, NULL, "gradient", VALUE, "OP", S_FILTER, OWN,
     "sobel or scharr: gx, gy and sqrt(gx^2 + gy^2) of the\n"
     "intensity in one pass of the tiled kernel (one read);\n"
     "the image is the magnitude (clamped; --scale maps it),\n"
     "--raw writes gx, gy, magnitude; -t and -a all compare\n"
     "it with the two filters run apart"},
    {'a', "a", "algorithm", VALUE, "NAME", S_FILTER, OWN,
     "tiled (default), twopass, onepass, bilinear, or all to\n"
     "compare tiled, twopass and onepass (with --storage image\n"
     "also their image reads and bilinear); twopass and\n"
     "bilinear take no mask that is not separable; bilinear:\n"
     "two passes on an image, one linear sample per two taps\n"
     "(an approximation, -e states its tolerance)"},
    {OPT_STORAGE, NULL, "storage", VALUE, "buffer|image", S_FILTER, OWN,
     "tiled, onepass: read the source from a buffer (default)\n"
     "or an image2d_t through a nearest sampler"},
    {OPT_BLOCK, NULL, "block", VALUE, "WxH", S_FILTER, OWN,
     "tiled: pixels per work-item, W 4|8, H 1..16 (default 4x4)"},
    {OPT_SCALAR_IO, NULL, "scalar-io", NONE, NULL, S_FILTER, OWN,
     "tiled: global loads/stores one float at a time (no float4)"},
    {OPT_KERNEL, NULL, "kernel", VALUE, "NAME", S_FILTER, OWN,
     "tiled: the kernel variant for long filters and masks (a\n"
     "study option; docs/kernels.md lists them)"},

    /* ---- Gaussian scale space ---- */
    /* Optional: `--pyramid OxL`, or a bare `--pyramid` (4x4; option_parse.c). */
    {OPT_PYRAMID, NULL, "pyramid", OPTIONAL, "[OxL]", S_PYRAMID, OWN,
     "O octaves (1..16) of L levels (1..8), default 4x4: octave K\n"
     "is ceil(W / 2^K) x ceil(H / 2^K), level J has sigma\n"
     "sigma0 2^(J/L) in its octave's pixels (sigma0 --sigma,\n"
     "default 1.6); octave 0 from the input, each next octave\n"
     "from the even pixels of the last one's image at 2 sigma0;\n"
     "written to -O DIR as BASE-oK-lJ.EXT (BASE: synthetic for\n"
     "-g, stdin for -s -); -e checks every level, -t times one\n"
     "launch per octave against one per level; a word after\n"
     "a bare --pyramid shaped as a count (5, 0x3, 3x2) is its\n"
     "value, checked at once; any other word is an input"},

    /* ---- Many images in one run ---- */
    {0, NULL, NULL, NONE, "FILE...", S_BATCH, OWN,
     "more inputs: a batch in one process (-s is taken first)"},
    {OPT_FILES_FROM, NULL, "files-from", VALUE, "LIST", S_BATCH, OWN,
     "more inputs, one name a line (- for standard input)"},
    {'O', "O", "output-dir", VALUE, "DIR", S_BATCH, OWN,
     "a batch's outputs, DIR created if missing: each input's\n"
     "name, format and depth kept (gray jobs write the\n"
     "format's gray form); with --format DIR/BASE.EXT (EXT the\n"
     "format's: bmp, png, jpg, pgm/ppm)"},
    {OPT_NO_SYNC, NULL, "no-sync", NONE, NULL, S_BATCH, OWN,
     "do not sync outputs to disk (scratch work: a crash may\n"
     "lose finished files; renames stay atomic)"},
    {OPT_THREADS, NULL, "threads", VALUE, "N", S_BATCH, OWN,
     "host workers that read, decode, encode and write\n"
     "(default: every core this process may run on, less a core\n"
     "a device from 8 cores); any N\n"
     "writes the same bytes"},
    {OPT_NO_FILTER, NULL, "no-filter", NONE, NULL, S_BATCH, OWN,
     "write each image unfiltered, without a device: the\n"
     "codec floor (read, decode, encode, write) of a batch"},

    /* ---- Checking and timing ---- */
    {'e', "e", "verify", NONE, NULL, S_CHECK, OWN,
     "compare every pixel with the CPU reference"},
    {'t', "t", "timing", NONE, NULL, S_CHECK, OWN,
     "print kernel, transfer and build times"},
    {'i', "i", "iterations", VALUE, "N", S_CHECK, OWN,
     "timed iterations after one warm-up (default 1)"},
    {OPT_CSV, NULL, "csv", NONE, NULL, S_CHECK, OWN, "one machine-readable record per run"},
    {OPT_JSON, NULL, "json", NONE, NULL, S_CHECK, WITH, NULL},

    /* ---- Device ---- */
    {'l', "l", "list", NONE, NULL, S_DEVICE, OWN,
     "list OpenCL platforms and devices (--json: one record a\n"
     "device, its limits in bytes, the default one marked)"},
    {'p', "p", "platform", VALUE, "N", S_DEVICE, OWN, "platform index"},
    {'d', "d", "device-index", VALUE, "N|LIST", S_DEVICE, WITH,
     "device index within the platform; a list (0,1) spreads a\n"
     "batch over devices (0,0: two queues on one)"},
    {OPT_DEVICE, NULL, "device", VALUE, "TYPE", S_DEVICE, OWN,
     "cpu, gpu or all (default: a GPU if there is one);\n"
     "TYPE:all (gpu:all) takes every device of that type"},

    /* ---- Limits and safety ---- */
    {OPT_MAX_PIXELS, NULL, "max-pixels", VALUE, "N|WxH", S_LIMITS, OWN,
     "refuse larger images (default 268435456, 16384x16384;\n"
     "at most 1073741824, 32768x32768); -g and files alike"},
    {OPT_ALLOW_HIGH_RATIO, NULL, "allow-high-ratio", NONE, NULL, S_LIMITS, OWN,
     "decode compressed images beyond the pixels per byte\n"
     "their format can honestly reach (BMP RLE: 256, above\n"
     "2^20 pixels; PNG, JPEG: 2048, above 2^22), where they are\n"
     "refused as likely decompression bombs"},
    {OPT_FORCE, NULL, "force", NONE, NULL, S_LIMITS, OWN,
     "replace an output file even when it is read-only"},
    {OPT_MAX_MEMORY, NULL, "max-memory", VALUE, "BYTES", S_LIMITS, OWN,
     "the peak memory of the run, platform included (K, M,\n"
     "G, T: binary multiples; default: what the host has\n"
     "available); an image that does not fit it whole, or the\n"
     "device, is filtered in strips of rows, same output"},

    /* ---- Other ---- */
    {'v', "v", "verbose", NONE, NULL, S_OTHER, OWN,
     "also print the launch geometry and work-group classes"},
    {'q', "q", "quiet", NONE, NULL, S_OTHER, OWN, "print only results and errors"},
    {OPT_TUNE, NULL, "tune", VALUE, "NAME=VALUE", S_OTHER, OWN,
     "a setting of the library for kernel studies and tests\n"
     "(repeatable; the manual lists them)"},
    {'h', "h", "help", NONE, NULL, S_OTHER, OWN, "this text"},
    {OPT_VERSION, NULL, "version", NONE, NULL, S_OTHER, OWN, "the version"},
};

const size_t cli_option_count = sizeof cli_options / sizeof cli_options[0];

const cli_option *cli_option_of(int code)
{
    for (size_t i = 0; code != 0 && i < cli_option_count; i++)
        if (cli_options[i].code == code)
            return &cli_options[i];
    return NULL;
}

const char *cli_option_flag(int code, char *buf, size_t size)
{
    const cli_option *opt = cli_option_of(code);
    if (!opt || !opt->long_name)
        return "option";
    snprintf(buf, size, "%s%s", opt->short_name ? "-" : "--",
             opt->short_name ? opt->short_name : opt->long_name);
    return buf;
}

void cli_option_label(const cli_option *opt, char *out, size_t size)
{
    const char *value = opt->value_name ? opt->value_name : "";
    const char *space = opt->value_name ? " " : "";
    if (!opt->long_name)
        snprintf(out, size, "%s", value);
    else if (opt->short_name)
        snprintf(out, size, "-%s, --%s%s%s", opt->short_name, opt->long_name, space, value);
    else
        snprintf(out, size, "    --%s%s%s", opt->long_name, space, value);
}
