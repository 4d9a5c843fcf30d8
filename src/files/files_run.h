/*
 * files_run.h - a run's settings (tc_files, files_api.c) parsed for one image file, for the
 * calls of tiledconv_files.h that read or write one image (image_files.c).
 */
#ifndef TILEDCONV_FILES_RUN_H
#define TILEDCONV_FILES_RUN_H

#include <stddef.h>

#include "tiledconv_files.h"
#include "file_options.h"

typedef struct {
    tc_options o;
    char **argv; /* the command line the options were parsed from (they point into it) */
    char *word;  /* its "--output=PATH", when it has one */
} files_parsed;

/* The run's options as the command line parses them with path as its one input: for a read
 * (output 0) only the input's limits (--max-pixels, --allow-high-ratio), whose rules are all
 * that apply; for a write every setting and path also as the output (-o PATH after them), so
 * that the rules that depend on the output's format (--depth, --quality) are the tool's. The
 * parser
 * and the process-wide settings (the JPEG sampling) are one per process, so on TC_OK the lock
 * of runs is held until files_parsed_end; TC_EINVAL (the parser's line in err) or TC_ENOMEM
 * leave it free. */
int files_parse_locked(const tc_files *run, const char *path, int output, files_parsed *p,
                       char *err, size_t err_size);

/* Frees what files_parse_locked made and lets the next run go. */
void files_parsed_end(files_parsed *p);

#endif
