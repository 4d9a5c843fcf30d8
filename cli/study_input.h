/*
 * study_input.h - the input of a one-image run (study.c): its size first, then its planes.
 */
#ifndef TILEDCONV_STUDY_INPUT_H
#define TILEDCONV_STUDY_INPUT_H

#include "option_parse.h"
#include "source.h"
#include "text.h"

/* The planes a run filters: the intensity plane, or with --color the R, G and B planes. */
#define MAX_PLANES 3
typedef struct {
    int count;
    tc_plane p[MAX_PLANES];
} plane_set;

void plane_set_free(plane_set *s);

/* count planes of width x height; 0, or -1 (out of memory, the caller reports). */
int plane_set_alloc(plane_set *s, int count, int width, int height);

/* The image a run reads, known by its size and its samples before its pixels are decoded, so
 * that the memory can be planned first: any format opened on its header (source.h), or -g's
 * size. */
typedef struct {
    int width, height;
    int from_file;
    source_reader reader; /* open while from_file, until study_input_load */
    char what[TEXT_SHOWN_MAX + 16]; /* the image in messages: the file's name, or "-g WxH" */
} input_source;

/* The input's size: -g's (within --max-pixels), or the file's header, read and checked before
 * anything else of the file. Returns 0, or 2 (reported): the input cannot be used. */
int study_input_open(const tc_options *o, input_source *src);

void study_input_close(input_source *src);

/* The input planes from -s or -g, once the plan has passed; the file is closed. Returns 0,
 * 2 (reported): the input cannot be used, or 1 (reported): out of host memory. */
int study_input_load(const tc_options *o, input_source *src, plane_set *in);

#endif
