/*
 * options.h - the command line's options: tc_options (the library's file_options.h) filled from
 * argv by cli_parse (option_parse.c), with the rules between flags (option_rules.c). Every
 * option is listed once, in option_table.c.
 */
#ifndef TILEDCONV_CLI_OPTIONS_H
#define TILEDCONV_CLI_OPTIONS_H

#include "tool_visible.h" /* src/io */

#include <stddef.h>
#include <stdio.h>

#include "file_options.h"

/* Parses argv into opts. Returns 0; or 2 after printing one line "tiledconv: ..." to err that
 * names the flag and what is wrong (control characters in it escaped, so it stays one line).
 * Reentrant: resets getopt's state first. argv's order may change (getopt moves the inputs
 * after the options); opts points into argv. The AMD sample's two-letter flags also take their
 * value attached (-sL3 is -sL 3): such words in argv are replaced by "-sL=3" before parsing;
 * the replacements live until the next call. */
TC_TOOL int cli_parse(int argc, char **argv, tc_options *opts, FILE *err);

/* Whether -a bilinear cannot run this filter (a mask that is not rank 1, or a pair of
 * neighbouring taps with opposite signs in both pairings, bilinear.h): 1 with the reason,
 * naming the coefficient, in why; else 0. */
TC_TOOL int cli_bilinear_refusal(const tc_filter_spec *f, char *why, size_t size);

#endif
