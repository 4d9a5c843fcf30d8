/*
 * program_cache.h - built programs kept on disk between processes, so that a new process loads
 * a kernel's binary instead of building it from source (PoCL: 9 ms against 52 ms from its own
 * cache for the filter program; NVIDIA keeps its own cache, which this one only spares the
 * front end).
 *
 * One file per program, named by a hash of its key: the device's name and version, the driver's
 * version, the platform's name and version, a hash of the program's source and its build
 * options. The file holds the whole key again, the binary and a checksum; a load checks all
 * three and the driver's own acceptance of the binary, and anything that fails (a file cut
 * short or changed, another driver, a hash collision) is ignored: the program is built from
 * source, and the file written anew. Files are written under a temporary name in the same
 * folder and renamed into place, so that processes writing at once each leave a whole file.
 *
 * Where: $TILEDCONV_PROGRAM_CACHE when set (empty, "0" or "off": no cache), else
 * $XDG_CACHE_HOME/tiledconv, else $HOME/.cache/tiledconv; made with mode 0700, and used only
 * when it is a folder of this user's that nobody else may write. Removing the folder clears it.
 */
#ifndef TILEDCONV_PROGRAM_CACHE_H
#define TILEDCONV_PROGRAM_CACHE_H

#include <stddef.h>

#include "device.h"

/* A program's place in the cache. */
typedef struct {
    char path[4096]; /* the cache file */
    char *key;       /* the whole key (malloc'd), which the file must hold */
} tc_cached_program;

/* The cache entry for a program of d built from `lines` with `options`. 0; or -1 when there
 * is no cache (disabled, no usable folder, out of memory): then build, and store nothing. */
int tc_program_cache_find(const tc_device *d, const char *const *lines, unsigned count,
                          const char *options, tc_cached_program *entry);

/* The program loaded from the entry's file and built from its binary: 0 with *program set;
 * -1 when there is no such file or it cannot be trusted (nothing is left to release). */
int tc_program_cache_load(const tc_device *d, const tc_cached_program *entry,
                          const char *options, cl_program *program);

/* The built program's binary written to the entry's file (best effort: a failure changes
 * nothing but the next process's start). */
void tc_program_cache_store(const tc_device *d, const tc_cached_program *entry,
                            cl_program program);

void tc_program_cache_entry_free(tc_cached_program *entry);

#endif
