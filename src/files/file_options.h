/*
 * file_options.h - what a run of files is asked to do (tc_options): the filter, the inputs and
 * outputs, the formats, the budget, the devices. cli_parse (option_parse.h) fills it from the
 * command line's words, the tool's and tc_filter_files' alike; the pipeline reads it. And the
 * library's parameters it describes (options_params, options_pyramid_params: options.c).
 */
#ifndef TILEDCONV_FILE_OPTIONS_H
#define TILEDCONV_FILE_OPTIONS_H

#include "tool_visible.h" /* src/io */

#include <stddef.h>
#include <stdio.h>

#include "codec.h"
#include "tiledconv.h"
#include "tiledconv_internal.h"

#define TC_DEFAULT_INPUT "images/TiledConv_Input512x512.bmp"
#define TC_DEFAULT_OUTPUT "TiledConv_Output.bmp"

/* The largest synthetic image: 2^30 pixels (32768 x 32768), so that every index the kernels
 * compute fits in an int; the device's own limits are checked once it is open. */
#define TC_MAX_SYNTH_SIDE 65536
#define TC_MAX_SYNTH_PIXELS (1L << 30)

/* The most devices (or queues) one run spreads a batch over. */
#define TC_MAX_DEVICES 16

typedef enum { TC_FORMAT_TABLE, TC_FORMAT_CSV, TC_FORMAT_JSON } tc_format;

typedef struct {
    const char *input;      /* -s (or the default image when no input is given); NULL with -g
                             * or when only positional inputs are given */
    char **positional;      /* the inputs after the options (argv's own strings), in order */
    int n_positional;
    const char *files_from; /* --files-from LIST: more inputs, one per line ("-": stdin) */
    const char *output_dir; /* -O DIR: DIR/BASE.EXT for each input */
    int no_sync;            /* --no-sync: outputs are not synced to disk */
    const char *class_map;  /* --class-map FILE: the picture of the four classes, or NULL */
    io_format class_map_format; /* its format, from FILE's extension (none: BMP) */
    int gradient;           /* --gradient: 0 none, else 1 + the tc_gradient_operator (sobel 1,
                             * scharr 2) */
    int gradient_compare;   /* --gradient with -a all: the one-read pass and the two filters
                             * apart, in one table */
    int synth_width;        /* -g WxH; 0 when not given */
    int synth_height;
    const char *output;     /* -o ("-": standard output) */
    int output_given;       /* -o was on the command line */
    int write_output;       /* 0 with --no-output */
    io_format image_format; /* the output image's format: --format, else -o's extension, else
                             * BMP */
    int image_format_given; /* --format was on the command line */
    int depth;              /* --depth 8 or 16; 0: 16 for an input of more than 8 bits written
                             * to PNG or PGM/PPM, else 8 (outputs_depth) */
    int quality;            /* --quality 1..100, JPEG's (default IO_JPEG_QUALITY) */
    io_jpeg_sampling sampling; /* --sampling: colour JPEG chroma (default IO_JPEG_420) */
    int threads;            /* --threads N: a batch's host workers; 0: every core */
    int no_filter;          /* --no-filter: write each image unfiltered, no device (the codec
                             * floor of a batch) */
    char default_output[32];/* TiledConv_Output.EXT when --format is given without -o */
    long long max_pixels;   /* --max-pixels: the largest image accepted (io_limits.h) */
    int allow_high_ratio;   /* --allow-high-ratio: no decompression-bomb check */
    int force;              /* --force: replace an output file even when it is read-only */
    unsigned long long max_memory; /* --max-memory BYTES: the run's memory budget, beyond which
                             * an image is filtered in strips (src/files/strips.h); 0: the host's
                             * available memory */
    tc_roi_request roi;
    tc_filter_spec filter;  /* -f, -c, --cx, --cy, --filter, --sigma, --border, --mask,
                             * --amount resolved (a mask factored where it is rank 1) */
    int coefficients_given; /* -c, --cx or --cy */
    int named_filter;       /* --filter: a tc_named, or -1 for coefficients */
    double sigma;           /* --sigma (gauss); 0 when not given */
    double amount;          /* --amount (sharpen); TC_SHARPEN_DEFAULT_AMOUNT when not given */
    double out_scale;       /* --scale S: the image gets v * S + V (default 1) */
    double out_offset;      /* --offset V (default 0) */
    int color;              /* --color: filter the R, G and B planes, write a 24-bit BMP */
    const char *raw_output; /* --raw FILE: the float32 plane(s); NULL when not given */
    int raw_flag;           /* --raw with -O: DIR/BASE.f32 for each input */
    int all_algorithms;     /* -a all (with --storage image, the image paths too) */
    tc_algorithm algorithm;
    tc_storage storage;     /* --storage buffer|image: where tiled and onepass read the source */
    int storage_given;      /* --storage was on the command line */
    int block_x, block_y;   /* --block: the tiled kernel's pixels per work-item */
    int scalar_io;          /* --scalar-io: the tiled kernel without float4 loads/stores */
    const char *kernel;     /* --kernel NAME: a variant of the tiled kernel, or NULL */
    int verify;             /* -e */
    int timing;             /* -t */
    int iterations;         /* -i */
    char device[64];        /* tc_open's request from --device, -p and -d ("" default); for
                             * one device (see src/files/devices.c for several) */
    const char *device_type;/* --device as given: cpu, gpu, all, or TYPE:all */
    int platform;           /* -p; -1 when not given */
    int device_list[TC_MAX_DEVICES]; /* -d N or -d LIST (-d 0,1; -d 0,0 two queues on one) */
    int n_device_list;
    int list_devices;       /* -l */
    int verbose;            /* -v */
    int quiet;              /* -q */
    tc_format format;
    int help, version;
    /* --pyramid OxL, a Gaussian scale space (cli/pyramid_run.c) */
    int pyramid;            /* --pyramid given */
    int pyramid_octaves;    /* O (default TC_PYRAMID_DEFAULT_OCTAVES) */
    int pyramid_levels;     /* L (default TC_PYRAMID_DEFAULT_LEVELS) */
    tc_tuning tuning;       /* --tune NAME=VALUE: the library's study and test settings */
    double age_before_ms;   /* -t: the process's age before this one began (a run in a child
                             * of the process the shell started, cli/detach.h), else 0 */
} tc_options;

/* The defaults of every option, as a run without flags has them. */
void options_defaults(tc_options *o);

/* The library's parameters for these options and a resolved ROI. */
TC_TOOL void options_params(const tc_options *o, const tc_roi *roi, tc_params *p);

/* The scale space's parameters for these options (--pyramid OxL, --sigma, --border). */
TC_TOOL tc_pyramid_params options_pyramid_params(const tc_options *o);

#endif
