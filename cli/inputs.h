/*
 * inputs.h - the images a run reads and the files it writes for them (SPEC.md, "Many images in
 * one run"): -s first, then the inputs after the options, then --files-from's lines; with -O,
 * DIR/BASE.EXT for each; and the rules checked before any work.
 */
#ifndef TILEDCONV_INPUTS_H
#define TILEDCONV_INPUTS_H

#include <stddef.h>

#include "name_list.h"
#include "options.h"

typedef struct {
    const char *input;
    char *output; /* the image to write, or NULL (--no-output) */
    char *raw;    /* the float planes to write (--raw), or NULL */
} batch_item;

typedef struct {
    batch_item *items;
    int count;
    name_list names; /* --files-from's, owned */
} batch_list;

/* Gathers the inputs and names the outputs. Returns 0; 2 for a usage error found before any
 * work (with more than one input: -o, neither -O nor --no-output, two inputs of one BASE, an
 * output that would replace an input, an -O that is not a folder, ...); 1 when the list
 * cannot be read or memory runs out. err names the flag or both files. */
int inputs_gather(const tc_options *o, batch_list *list, char *err, size_t err_size);

void inputs_free(batch_list *list);

/* BASE of DIR/BASE.EXT: the input's file name without its folder and its extension
 * ("a/b.x.bmp" gives "b.x"). */
void inputs_base_name(const char *path, char *out, size_t size);

/* Whether the options ask for a batch: -O, --files-from, or more than one input. */
int inputs_is_batch(const tc_options *o, const batch_list *list);

#endif
