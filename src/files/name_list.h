/*
 * name_list.h - the names of a --files-from list: one a line, read whole before any work (the
 * checks that need every name, two inputs of one BASE or an output that would replace an input,
 * come first), within stated caps, so that no list (`yes x`, /dev/zero, a file of gigabytes)
 * can cost more than they allow, and a list that breaks them is refused at the line that does.
 */
#ifndef TILEDCONV_NAME_LIST_H
#define TILEDCONV_NAME_LIST_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/* The most names a list may hold: ten million, far beyond any batch worth one command line,
 * and the reader's memory stays below the byte cap however short the names are. */
#define NAME_LIST_MAX_NAMES 10000000L
/* The most bytes a list may have, empty lines and line ends included: 1 GiB, ten million
 * names of 100 bytes. */
#define NAME_LIST_MAX_BYTES ((size_t)1 << 30)

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
/* The longest name, in bytes: a path the system can open is shorter than PATH_MAX. */
#define NAME_LIST_MAX_NAME (PATH_MAX - 1)

typedef struct {
    long max_names;   /* NAME_LIST_MAX_NAMES for the tool; smaller in tests */
    size_t max_bytes; /* NAME_LIST_MAX_BYTES likewise */
} name_list_caps;

typedef struct {
    char *text;  /* the names one after another, each ended by a NUL byte; NULL when none */
    size_t size; /* the bytes of text in use */
    long count;  /* the names */
} name_list;

/* Reads f to its end: one name a line; empty lines are skipped and trailing carriage returns
 * dropped (lists written on Windows). Lines are counted from 1, empty ones included, so that a
 * message points at the line an editor shows. caps NULL: the tool's own.
 * Returns 0 with the names in *out (name_list_free them); 2 for a list that is refused, with
 * "line N: reason" in err: a NUL byte in a line (a list is text), a line longer than
 * NAME_LIST_MAX_NAME bytes, more than max_names names or more than max_bytes bytes, found as
 * soon as the reader reaches them, with nothing kept beyond them; 1 for a read error or memory
 * running out ("read error: ...", "out of host memory ..."). *out holds nothing after a
 * failure. */
int name_list_read(FILE *f, const name_list_caps *caps, name_list *out, char *err,
                   size_t err_size);

/* The name after `name` in l (NULL: the first); NULL after the last. */
const char *name_list_next(const name_list *l, const char *name);

/* Frees the names; safe on a list that was never filled. */
void name_list_free(name_list *l);

#endif
