/* test_cli.h - the command line's parser as the suites call it: what it refused, and why, in one
 * line (included after test_util.h). */
#ifndef TILEDCONV_TEST_CLI_H
#define TILEDCONV_TEST_CLI_H

#include <stdio.h>

#include "option_parse.h"

/* cli_parse on argv (argv[0] the program's name, argv[argc] NULL); the first line of what it
 * wrote to stderr into msg ("" when nothing). */
static inline int test_cli_parse(int argc, char **argv, tc_options *o, char *msg, size_t size)
{
    FILE *err = tmpfile();
    assert_non_null(err);
    const int rc = cli_parse(argc, argv, o, err);
    rewind(err);
    if (!fgets(msg, (int)size, err))
        msg[0] = '\0';
    fclose(err);
    return rc;
}

#endif
