/*
 * option_parse.c - the command line parsed with getopt_long_only, so that the AMD sample's
 * two-letter flags (-sL 3) and readable long forms (--source-left 3) both work: getopt's tables
 * come from the option table (option_table.c), each value is read by option_values.c, and the
 * rules between options are checked by option_rules.c once every flag is read.
 */
#define _GNU_SOURCE /* getopt_long_only */
#include "option_parse.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "io_limits.h"
#include "option_parts.h"
#include "option_table.h"
#include "text.h"


/* Takes word (one of argv's, or NULL) out of the inputs after the options: it is an option's
 * value that getopt left among them. */
static void drop_input(tc_options *o, const char *word)
{
    for (int i = 0; word && i < o->n_positional; i++)
        if (o->positional[i] == word) {
            memmove(&o->positional[i], &o->positional[i + 1],
                    (size_t)(o->n_positional - i - 1) * sizeof *o->positional);
            o->n_positional--;
            return;
        }
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
    drop_input(o, raw_word); /* the word is the raw file, not an input */
    o->raw_output = raw_word;
    return 0;
}

/* getopt's tables, made from the option table: every long name (and the two-letter flags,
 * which getopt_long_only reads as long names with one dash), and the one-letter names. */
typedef struct {
    struct option longs[2 * CLI_OPTION_CAPACITY + 1];
    char shorts[3 * CLI_OPTION_CAPACITY + 2];
} getopt_tables;

static void make_tables(getopt_tables *t)
{
    static const int has_arg[] = {[CLI_NO_VALUE] = no_argument,
                                  [CLI_VALUE] = required_argument,
                                  [CLI_OPTIONAL_VALUE] = optional_argument};
    size_t n = 0, s = 0;
    t->shorts[s++] = ':'; /* a missing value is ':', not '?' */
    for (size_t i = 0; i < cli_option_count && i < CLI_OPTION_CAPACITY; i++) {
        const cli_option *opt = &cli_options[i];
        if (!opt->long_name)
            continue;
        t->longs[n++] = (struct option){opt->long_name, has_arg[opt->value], NULL, opt->code};
        if (opt->short_name && opt->short_name[1])
            t->longs[n++] = (struct option){opt->short_name, has_arg[opt->value], NULL, opt->code};
        else if (opt->short_name) {
            t->shorts[s++] = opt->short_name[0];
            if (opt->value == CLI_VALUE)
                t->shorts[s++] = ':';
        }
    }
    t->longs[n] = (struct option){NULL, 0, NULL, 0};
    t->shorts[s] = '\0';
}

static int parse_options(int argc, char **argv, const getopt_tables *t, tc_options *o, FILE *err)
{
    filter_args fa;
    int rc = 0, c, raw_bare = 0;
    char *raw_word = NULL, *pyramid_word = NULL, flag[32];
    const long int_max = INT_MAX;
    long *roi = NULL;

    memset(&fa, 0, sizeof fa);
    fa.c.flag = "-c";
    fa.cx.flag = "--cx";
    fa.cy.flag = "--cy";
    fa.border = TC_BORDER_REPLICATE;

    options_defaults(o);
    optind = 0; /* glibc: 0 resets the scanner completely, so tests can parse many times */
    opterr = 0; /* our own messages, one line each */
    while (rc == 0 && (c = getopt_long_only(argc, argv, t->shorts, t->longs, NULL)) != -1) {
        switch (c) {
        /* Input and output */
        case 's': o->input = optarg; break;
        case 'g': rc = opt_parse_size(optarg, &o->synth_width, &o->synth_height, err); break;
        case 'o': o->output = optarg; o->output_given = 1; break;
        case OPT_FORMAT: rc = opt_parse_image_format(optarg, o, err); break;
        case OPT_DEPTH: rc = opt_parse_depth(optarg, o, err); break;
        case OPT_QUALITY: rc = opt_parse_int("--quality", optarg, 1, 100, &o->quality, err); break;
        case OPT_SAMPLING: rc = opt_parse_sampling(optarg, o, err); break;
        case OPT_NO_OUTPUT: o->write_output = 0; break;
        case OPT_COLOR: o->color = 1; break;
        case OPT_CLASS_MAP: o->class_map = optarg; break;
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
        case OPT_SCALE: rc = opt_parse_double("--scale", optarg, &o->out_scale, err); break;
        case OPT_OFFSET: rc = opt_parse_double("--offset", optarg, &o->out_offset, err); break;
        /* Regions of interest: offsets 0..INT_MAX, sizes 1..INT_MAX */
        case OPT_SOURCE_LEFT: roi = &o->roi.src_left; break;
        case OPT_SOURCE_TOP: roi = &o->roi.src_top; break;
        case OPT_TARGET_LEFT: roi = &o->roi.dst_left; break;
        case OPT_TARGET_TOP: roi = &o->roi.dst_top; break;
        case 'W': roi = &o->roi.width; break;
        case 'H': roi = &o->roi.height; break;
        /* Filter */
        case 'f': rc = opt_parse_taps(optarg, &fa, err); break;
        case 'c': rc = opt_parse_coefficients(optarg, &fa.c, err); break;
        case OPT_CX: rc = opt_parse_coefficients(optarg, &fa.cx, err); break;
        case OPT_CY: rc = opt_parse_coefficients(optarg, &fa.cy, err); break;
        case OPT_FILTER: rc = opt_parse_filter_name(optarg, o, err); break;
        case OPT_SIGMA: rc = opt_parse_sigma(optarg, o, &fa, err); break;
        case OPT_AMOUNT: rc = opt_parse_amount(optarg, o, &fa, err); break;
        case OPT_MASK: rc = opt_parse_mask(optarg, &fa, err); break;
        case OPT_BORDER: rc = opt_parse_border(optarg, &fa, err); break;
        case OPT_GRADIENT: rc = opt_parse_gradient(optarg, o, err); break;
        case 'a': rc = opt_parse_algorithm(optarg, o, err); break;
        case OPT_STORAGE: rc = opt_parse_storage(optarg, o, err); break;
        case OPT_BLOCK: rc = opt_parse_block(optarg, o, err); break;
        case OPT_SCALAR_IO: o->scalar_io = 1; break;
        case OPT_KERNEL: o->kernel = optarg; break; /* checked by the library, before any work */
        /* Gaussian scale space */
        case OPT_PYRAMID:
            o->pyramid = 1;
            if (optarg)
                rc = opt_parse_pyramid(optarg, o, err);
            else if (optind < argc && opt_count_shape(argv[optind]) &&
                     (rc = opt_parse_pyramid(argv[optind], o, err)) == 0)
                pyramid_word = argv[optind]; /* the value, not an input */
            break;
        /* Many images in one run */
        case OPT_FILES_FROM: o->files_from = optarg; break;
        case 'O': o->output_dir = optarg; break;
        case OPT_NO_SYNC: o->no_sync = 1; break;
        case OPT_THREADS: rc = opt_parse_int("--threads", optarg, 1, 1024, &o->threads, err); break;
        case OPT_NO_FILTER: o->no_filter = 1; break;
        /* Checking and timing */
        case 'e': o->verify = 1; break;
        case 't': o->timing = 1; break;
        case 'i': rc = opt_parse_int("-i", optarg, 1, 1000000, &o->iterations, err); break;
        case OPT_CSV: o->format = TC_FORMAT_CSV; break;
        case OPT_JSON: o->format = TC_FORMAT_JSON; break;
        /* Device */
        case 'l': o->list_devices = 1; break;
        case 'p': rc = opt_parse_int("-p", optarg, 0, 1000, &o->platform, err); break;
        case 'd': rc = opt_parse_device_list(optarg, o, err); break;
        case OPT_DEVICE: rc = opt_parse_device_type(optarg, o, err); break;
        /* Limits and safety */
        case OPT_MAX_PIXELS: rc = opt_parse_max_pixels(optarg, o, err); break;
        case OPT_ALLOW_HIGH_RATIO: o->allow_high_ratio = 1; break;
        case OPT_FORCE: o->force = 1; break;
        case OPT_MAX_MEMORY: rc = opt_parse_max_memory(optarg, o, err); break;
        /* Other */
        case 'v': o->verbose = 1; break;
        case 'q': o->quiet = 1; break;
        case 'h': o->help = 1; break;
        case OPT_VERSION: o->version = 1; break;
        case OPT_TUNE: rc = opt_parse_tune(optarg, o, err); break;
        case ':':
            fprintf(err, "tiledconv: %s needs a value (see -h)\n",
                    optopt ? cli_option_flag(optopt, flag, sizeof flag) : argv[optind - 1]);
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
        if (roi) {
            rc = opt_parse_long(cli_option_flag(c, flag, sizeof flag), optarg,
                                c == 'W' || c == 'H' ? 1 : 0, int_max, roi, err);
            roi = NULL;
        }
    }
    if (rc)
        return rc;
    if (resolve_inputs(o, raw_bare, raw_word, argv, optind, argc, err))
        return 2;
    drop_input(o, pyramid_word); /* a bare --pyramid's OxL word is its value */
    return opt_check_options(o, &fa, err);
}

/* The words split_attached made ("-sL=3"), kept until the next parse: argv points at them. */
static char *attached_words;

/* 1 when word is an option that takes its value in the next word ("-o", "--output", "-sL"):
 * the next word is then a value, never an option to rewrite. */
static int takes_next_word(const char *word, const char *short_options)
{
    if (word[0] != '-' || word[1] == '\0')
        return 0;
    const char *name = word + (word[1] == '-' ? 2 : 1);
    if (strchr(name, '='))
        return 0;
    for (size_t i = 0; i < cli_option_count; i++) {
        const cli_option *opt = &cli_options[i];
        if (opt->value == CLI_VALUE &&
            ((opt->long_name && strcmp(name, opt->long_name) == 0) ||
             (opt->short_name && opt->short_name[1] && strcmp(name, opt->short_name) == 0)))
            return 1;
    }
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
static void split_attached(int argc, char **argv, const char *short_options)
{
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
        if (takes_next_word(w, short_options)) {
            i++;
            continue;
        }
        for (size_t k = 0; k < cli_option_count; k++) {
            const char *amd = cli_options[k].short_name; /* the two-letter flags: sL, ... */
            if (!amd || strlen(amd) != 2 || w[0] != '-' || strncmp(w + 1, amd, 2) != 0 ||
                w[3] == '\0' || w[3] == '=')
                continue;
            if (!attached_words && !(next = attached_words = malloc(room)))
                return; /* out of memory: parse the words as they are */
            char *word = next;
            next += sprintf(word, "-%s=%s", amd, w + 3) + 1;
            argv[i] = word;
            break;
        }
    }
}

int cli_parse(int argc, char **argv, tc_options *o, FILE *err)
{
    getopt_tables t;
    char *text = NULL;
    size_t len = 0;
    make_tables(&t);
    split_attached(argc, argv, t.shorts);
    /* The message is made in memory, then printed with its control characters escaped: a value
     * or file name holding a newline must not split the one line an error gets. */
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return parse_options(argc, argv, &t, o, err);
    const int rc = parse_options(argc, argv, &t, o, mem);
    if (fclose(mem) == 0 && text && len > 0) {
        char line[1024];
        if (text[len - 1] == '\n')
            text[len - 1] = '\0';
        fprintf(err, "%s\n", text_escape_line(text, line, sizeof line, 400));
    }
    free(text);
    return rc;
}
