/*
 * option_table.h - every option of the command line, once: its names, its value, the section
 * it belongs to and its line in -h. The parser (option_parse.c) builds getopt's tables from it, -h
 * (help.c) prints it, and the manual (docs/manual.md, tiledconv.1) is generated from it and
 * cli/manual_source.md by scripts/manual.c, so that the three cannot drift apart.
 */
#ifndef TILEDCONV_OPTION_TABLE_H
#define TILEDCONV_OPTION_TABLE_H

#include "tool_visible.h" /* src/io */

#include <stddef.h>

/* getopt's code of each option without a one-letter name; the others use their letter. */
enum {
    /* Regions of interest: the AMD sample's two-letter flags and their long forms. */
    OPT_SOURCE_LEFT = 256,
    OPT_SOURCE_TOP,
    OPT_TARGET_LEFT,
    OPT_TARGET_TOP,
    /* Input and output. */
    OPT_FORMAT,
    OPT_DEPTH,
    OPT_QUALITY,
    OPT_SAMPLING,
    OPT_NO_OUTPUT,
    OPT_COLOR,
    OPT_CLASS_MAP,
    OPT_RAW,
    OPT_SCALE,
    OPT_OFFSET,
    /* The filter and how it runs. */
    OPT_CX,
    OPT_CY,
    OPT_FILTER,
    OPT_SIGMA,
    OPT_AMOUNT,
    OPT_MASK,
    OPT_BORDER,
    OPT_GRADIENT,
    OPT_STORAGE,
    OPT_BLOCK,
    OPT_SCALAR_IO,
    OPT_KERNEL,
    /* The Gaussian scale space. */
    OPT_PYRAMID,
    /* Many images in one run. */
    OPT_FILES_FROM,
    OPT_NO_SYNC,
    OPT_THREADS,
    OPT_NO_FILTER,
    /* Checking and timing. */
    OPT_CSV,
    OPT_JSON,
    /* The device. */
    OPT_DEVICE,
    /* Limits and safety. */
    OPT_MAX_PIXELS,
    OPT_ALLOW_HIGH_RATIO,
    OPT_FORCE,
    OPT_MAX_MEMORY,
    /* Other. */
    OPT_TUNE,
    OPT_VERSION
};

/* The sections of -h and of the manual, in their order. */
typedef enum {
    CLI_SECTION_IO,
    CLI_SECTION_ROI,
    CLI_SECTION_FILTER,
    CLI_SECTION_PYRAMID,
    CLI_SECTION_BATCH,
    CLI_SECTION_CHECK,
    CLI_SECTION_DEVICE,
    CLI_SECTION_LIMITS,
    CLI_SECTION_OTHER,
    CLI_SECTION_COUNT
} cli_section;

typedef struct {
    const char *id;         /* the manual source's name for it ("io") */
    const char *title;      /* the manual's heading ("Input and output") */
    const char *help_title; /* -h's heading, without the colon */
    const char *help_note;  /* -h's text after the section's options, or NULL */
} cli_section_info;

/* How an option's value is taken (getopt's no_argument, required_argument,
 * optional_argument). */
typedef enum { CLI_NO_VALUE, CLI_VALUE, CLI_OPTIONAL_VALUE } cli_value;

/* How an option is described, beside its own line in -h. */
typedef enum {
    CLI_DOC_OWN,          /* its own entry in the manual */
    CLI_DOC_WITH_PREVIOUS, /* in the previous option's entry (-sT with -sL): one text for both */
    CLI_DOC_ALIAS         /* another name of the previous option (same code): named in its
                           * manual entry, not in -h */
} cli_doc;

typedef struct {
    int code;              /* getopt's value: the letter, an OPT_ code; 0: the operands */
    const char *short_name; /* "s", "sL" (a two-letter flag, read with one dash), or NULL */
    const char *long_name; /* "source", or NULL for the operands */
    cli_value value;
    const char *value_name; /* "FILE", "[OxL]"; NULL without a value */
    cli_section section;
    cli_doc doc;
    /* -h's text, its lines split where -h breaks them; NULL: on the previous option's line
     * (--offset beside --scale). */
    const char *help;
} cli_option;

/* The most rows the table may have (getopt's tables are made in arrays of this size). */
#define CLI_OPTION_CAPACITY 96

TC_TOOL extern const cli_option cli_options[];
TC_TOOL extern const size_t cli_option_count;
TC_TOOL extern const cli_section_info cli_sections[CLI_SECTION_COUNT];

/* The option of this code (the first name of an alias), or NULL. */
const cli_option *cli_option_of(int code);

/* The option as messages name it, written into buf: "-sL", "-s", "--device"; or "option"
 * for a code that is none. Messages use this spelling rather than the word the user typed:
 * after getopt took a value in the same word, argv[optind - 1] would be wrong. */
const char *cli_option_flag(int code, char *buf, size_t size);

/* The label of an option in -h: "-s, --source FILE", "    --format NAME" (room for a short
 * name kept), "FILE..." for the operands. */
TC_TOOL void cli_option_label(const cli_option *opt, char *out, size_t size);

#endif
