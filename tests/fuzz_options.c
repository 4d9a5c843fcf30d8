/*
 * fuzz_options.c - libFuzzer harness for the command line's parser, cli_parse (make fuzz).
 *
 *   build/fuzz/fuzz_options -dict=tests/fuzz_options.dict CORPUS
 *
 * The input is a command line: words separated by NUL bytes (at most 64). Besides the
 * sanitizers' checks it asserts what the tool promises of every command line: exit status 0 or
 * 2; with 2, exactly one line on the error stream, starting "tiledconv: ", with no control
 * character in it (names and values are escaped); with 0, nothing printed, and options that are
 * safe to run: a valid filter length, a filter whose sums stay inside float32 on 8-bit input,
 * limits and counts inside their ranges.
 */
#include "option_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "io_limits.h"

#define MAX_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(int rc, const char *text, size_t len)
{
    if (rc == 0) {
        if (len != 0)
            abort();
        return;
    }
    if (rc != 2 || len < 12 || strncmp(text, "tiledconv: ", 11) != 0 || text[len - 1] != '\n')
        abort();
    for (size_t i = 0; i + 1 < len; i++) {
        const unsigned char c = (unsigned char)text[i];
        if (c < 0x20 || c == 0x7f)
            abort();
    }
}

static void check_options(const tc_options *o)
{
    const tc_filter_spec *f = &o->filter;
    if (!tc_axis_taps_valid(f->taps_x) || !tc_axis_taps_valid(f->taps_y) ||
        (f->taps_x == 1 && f->taps_y == 1) ||
        tc_filter_check(f, 255.0, NULL, NULL) != TC_FILTER_OK)
        abort();
    /* A mask is one the library takes, its taps its sizes, factored only where it is rank 1. */
    if (f->mask_width &&
        (!tc_mask_size_valid(f->mask_width, f->mask_height) || f->taps_x != f->mask_width ||
         f->taps_y != f->mask_height))
        abort();
    if (o->iterations < 1 || o->max_pixels < 1 || o->max_pixels > IO_HARD_MAX_PIXELS)
        abort();
    if (o->synth_width &&
        (o->synth_width < 1 || o->synth_height < 1 ||
         (long long)o->synth_width * o->synth_height > (long long)TC_MAX_SYNTH_PIXELS))
        abort();
    /* Exactly one source: files (-s, inputs after the options, --files-from) or -g; no empty
     * name among them. */
    const int files = o->input || o->n_positional || o->files_from;
    if (files == (o->synth_width != 0) || (o->input && o->input[0] == '\0'))
        abort();
    for (int i = 0; i < o->n_positional; i++)
        if (o->positional[i][0] == '\0')
            abort();
    if (o->roi.src_left < 0 || o->roi.src_top < 0 || o->roi.dst_left < 0 || o->roi.dst_top < 0)
        abort();
    if (!isfinite(o->out_scale) || !isfinite(o->out_offset))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    char *argv[MAX_WORDS + 2];
    int argc = 0;
    char *text = NULL;
    size_t len = 0;
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    argv[argc++] = "tiledconv";
    for (size_t start = 0; start <= size && argc <= MAX_WORDS;) {
        argv[argc++] = copy + start;
        start += strlen(copy + start) + 1;
    }
    argv[argc] = NULL;

    FILE *err = open_memstream(&text, &len);
    if (!err)
        abort();
    tc_options o;
    const int rc = cli_parse(argc, argv, &o, err);
    fclose(err);
    check_message(rc, text, len);
    if (rc == 0)
        check_options(&o);
    free(text);
    free(copy);
    return 0;
}
