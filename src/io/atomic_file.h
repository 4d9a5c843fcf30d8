/*
 * atomic_file.h - a file written under a temporary name in its target's folder and renamed
 * into place only when everything is written, so that a reader never sees a partial file and
 * a failure leaves none. Used by every output of the tool (bmp.c, outfile.c).
 */
#ifndef TILEDCONV_ATOMIC_FILE_H
#define TILEDCONV_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    const char *path; /* the target */
    char *tmp;        /* the temporary's name, NULL once renamed or removed */
    FILE *f;          /* open for writing until atomic_file_close */
} atomic_file;

/* Creates the temporary (mode 0666 less the umask, as any new file). Refuses a target that
 * exists and is not a regular file (a folder, /dev/null), which rename() would replace.
 * Returns 0, or -1 with "PATH: reason" in err and nothing left behind. */
int atomic_file_open(atomic_file *af, const char *path, char *err, size_t err_size);

/* Flushes, syncs and closes the temporary: its data are on disk, under the temporary name.
 * Returns 0, or -1 (reported; the caller still calls atomic_file_discard). */
int atomic_file_close(atomic_file *af, char *err, size_t err_size);

/* atomic_file_close, with the sync left out when sync is 0 (--no-sync: the rename stays atomic
 * for readers, but a crash may lose the data). */
int atomic_file_finish(atomic_file *af, int sync, char *err, size_t err_size);

/* Renames the closed temporary into place. Returns 0, or -1 (reported). */
int atomic_file_commit(atomic_file *af, char *err, size_t err_size);

/* Removes the temporary if it is still there and frees what open took; safe to call always,
 * also after a commit. */
void atomic_file_discard(atomic_file *af);

#endif
