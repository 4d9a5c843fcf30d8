/* help.h - the text of -h, made from the option table. */
#ifndef TILEDCONV_HELP_H
#define TILEDCONV_HELP_H

#include <stdio.h>

void cli_usage(FILE *out);

#endif
