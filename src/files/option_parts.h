/*
 * option_parts.h - what the parser's parts share (private to option_parse.c, option_values.c and
 * option_rules.c): what the filter flags said before they are resolved, the readers of each
 * option's value, and the rules between options once every flag is read.
 */
#ifndef TILEDCONV_OPTION_PARTS_H
#define TILEDCONV_OPTION_PARTS_H

#include <stdio.h>

#include "option_parse.h"

/* One list of coefficients from -c, --cx or --cy; count 0 when the flag was not given. */
typedef struct {
    const char *flag;
    float k[TC_MAX_TAPS];
    int count;
} coefficient_list;

/* A mask from --mask: the weights, row by row, as opt_parse_mask read them. */
typedef struct {
    float w[TC_MAX_MASK_TAPS];
    int width, height; /* 0 x 0 when --mask was not given */
} mask_arg;

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

/* ---- Each option's value (option_values.c): 0, or 2 after one line on err ------------- */

/* Numbers: a whole number in [lo, hi] (flag names it in messages), a finite number. */
int opt_parse_long(const char *flag, const char *text, long lo, long hi, long *out, FILE *err);
int opt_parse_int(const char *flag, const char *text, long lo, long hi, int *out, FILE *err);
int opt_parse_double(const char *flag, const char *text, double *out, FILE *err);

/* Input and output: -g WxH, --format, --depth, --sampling, --max-pixels, --max-memory. */
int opt_parse_size(const char *text, int *w, int *h, FILE *err);
int opt_parse_image_format(const char *text, tc_options *o, FILE *err);
int opt_parse_depth(const char *text, tc_options *o, FILE *err);
int opt_parse_sampling(const char *text, tc_options *o, FILE *err);
int opt_parse_max_pixels(const char *text, tc_options *o, FILE *err);
int opt_parse_max_memory(const char *text, tc_options *o, FILE *err);

/* The filter: -f, -c/--cx/--cy, --mask, --filter, --sigma, --amount, --border, --gradient. */
int opt_parse_taps(const char *text, filter_args *a, FILE *err);
int opt_parse_coefficients(const char *text, coefficient_list *list, FILE *err);
int opt_parse_mask(const char *text, filter_args *a, FILE *err);
int opt_parse_filter_name(const char *text, tc_options *o, FILE *err);
int opt_parse_sigma(const char *text, tc_options *o, filter_args *a, FILE *err);
int opt_parse_amount(const char *text, tc_options *o, filter_args *a, FILE *err);
int opt_parse_border(const char *text, filter_args *a, FILE *err);
int opt_parse_gradient(const char *text, tc_options *o, FILE *err);

/* How it runs: -a, --storage, --block, --device, -d. */
int opt_parse_algorithm(const char *text, tc_options *o, FILE *err);
int opt_parse_storage(const char *text, tc_options *o, FILE *err);
int opt_parse_block(const char *text, tc_options *o, FILE *err);
int opt_parse_device_type(const char *text, tc_options *o, FILE *err);
int opt_parse_device_list(const char *text, tc_options *o, FILE *err);

/* --tune NAME=VALUE into o->tuning (the library's parser, its message). */
int opt_parse_tune(const char *text, tc_options *o, FILE *err);

/* --pyramid OxL; and whether a word has the form of a count (digits, or digits x digits),
 * which a bare --pyramid takes as its value. */
int opt_parse_pyramid(const char *text, tc_options *o, FILE *err);
int opt_count_shape(const char *w);

/* ---- The rules between options (option_rules.c) ---------------------------------------- */

/* Once every flag and the inputs are read: the inputs against -g, empty names, the filter
 * resolved into o->filter (fa: what the filter flags said) and checked against the
 * algorithm, --storage, --gradient and --pyramid, the output's format, the device request, the
 * default input. 0, or 2 after one line on err. */
int opt_check_options(tc_options *o, const filter_args *fa, FILE *err);

#endif
