/*
 * inputs.h - the images a run reads and the files it writes for them: -s first, then the
 * inputs after the options, then --files-from's lines; with -O, DIR/NAME for each (the input's
 * own file name, its format kept), or with --format DIR/BASE.EXT; and the rules checked before
 * any work.
 */
#ifndef TILEDCONV_INPUTS_H
#define TILEDCONV_INPUTS_H

#include "tool_visible.h" /* src/io */

#include <stddef.h>

#include "name_list.h"
#include "file_options.h"

typedef struct {
    const char *input;
    char *output; /* the image to write, or NULL (--no-output) */
    char *raw;    /* the float planes to write (--raw), or NULL */
} batch_item;

typedef struct {
    batch_item *items;
    int count;
    name_list names; /* --files-from's, owned */
    int keep_format; /* -O without --format: each output keeps its input's name and format */
} batch_list;

/* Gathers the inputs and names the outputs, and creates -O's folder (with its parents) when it
 * is missing, once every other rule has passed. Returns 0; 2 for a usage error found before
 * any work (with more than one input: -o, neither -O nor --no-output; two inputs whose outputs
 * would be one file; an output that would replace an input; -O naming the inputs' own folder
 * without --format, where every output would replace its input; an -O that is not a folder,
 * or cannot be created, ...); 1 when the list cannot be read or memory runs out. err names
 * the flag, the folder or both files. */
TC_TOOL int inputs_gather(const tc_options *o, batch_list *list, char *err, size_t err_size);

TC_TOOL void inputs_free(batch_list *list);

/* BASE of DIR/BASE.EXT: the input's file name without its folder and its extension
 * ("a/b.x.bmp" gives "b.x"). */
TC_TOOL void inputs_base_name(const char *path, char *out, size_t size);

/* Whether the options ask for a batch: -O, --files-from, or more than one input. */
TC_TOOL int inputs_is_batch(const tc_options *o, const batch_list *list);

#endif
