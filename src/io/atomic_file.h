/*
 * atomic_file.h - a file written in full, synced, and only then given its name, so that a reader
 * never sees a partial file and a failure, a signal or a kill leaves none. Used by every output
 * of the tool (bmp.c, outputs.c).
 *
 * Where the file system supports it (ext4, XFS, btrfs, tmpfs), the file is created without a
 * name (O_TMPFILE) in the target's folder and linked into place (linkat) when complete: a new
 * output killed at any moment, even by kill -9, leaves nothing. Replacing an existing file needs
 * a name to rename() over it: the complete file is linked to a temporary name ".NAME.XXXXXX" and
 * renamed at once, so only a kill -9 in the instant between the two can leave that name behind.
 * Elsewhere the file is written under the temporary name from the start. Every temporary name
 * is registered with signals.h, so SIGINT, SIGTERM and SIGHUP remove it. After the rename the
 * folder is synced, so that the new name survives a crash.
 */
#ifndef TILEDCONV_ATOMIC_FILE_H
#define TILEDCONV_ATOMIC_FILE_H

#include "tool_visible.h"

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct {
    const char *path; /* the target */
    char *tmp;        /* the temporary's name while it has one, else NULL */
    FILE *f;          /* open for writing until atomic_file_close */
    int fd;           /* after atomic_file_close, an unnamed file's descriptor (else -1) */
    int unnamed;      /* 1: made with O_TMPFILE */
    int replace;      /* 1: the target existed when the file was opened */
    int slot;         /* the temporary name's registration (signals.h), or -1 */
    int tmp_exists;   /* 1 while a file has the temporary name */
    int sync_folder;  /* 1 (set by open): the commit syncs the folder */
    char *buffer;     /* f's stdio buffer while open (NULL: stdio's own) */
} atomic_file;

/* An atomic_file that holds nothing: atomic_file_discard may be called on it. */
#define ATOMIC_FILE_INIT {NULL, NULL, NULL, -1, 0, 0, -1, 0, 0, NULL}

/* Reads the process's umask once, for every file made after (a program calls it before it
 * starts threads; later calls do nothing). The umask is never changed. */
TC_TOOL void atomic_file_read_umask(void);

/* Creates the file: a new output gets the mode any new file gets (0666 less the umask), a
 * replaced one keeps its mode less the setuid and setgid bits (and, where allowed, its owner and
 * group). Replacing gives the name a new file: the old one's extended attributes (ACLs among
 * them) are not carried over, its other hard links keep the old contents, and a symbolic link
 * at path is itself replaced, the file it pointed to left as it was. Refuses a target that
 * exists and is not a regular file (a folder, /dev/null), which rename() would replace.
 * Returns 0, or -1 with "PATH: reason" in err and nothing left behind. */
int atomic_file_open(atomic_file *af, const char *path, char *err, size_t err_size);

/* Flushes and syncs the file, and closes its stream: its data are on disk, without a name or
 * under the temporary name. Returns 0, or -1 (reported; the caller still calls
 * atomic_file_discard). */
int atomic_file_close(atomic_file *af, char *err, size_t err_size);

/* atomic_file_close, with the syncs left out when sync is 0 (--no-sync: the link or rename
 * stays atomic for readers, but a crash may lose the data): neither the file nor, at the
 * commit, its folder is synced. */
int atomic_file_finish(atomic_file *af, int sync, char *err, size_t err_size);

/* Gives the closed file its name (linked, or renamed into place) and syncs the folder (unless
 * sync_folder was cleared: a batch syncs its folder once, at the end). Returns 0, or -1
 * (reported). */
int atomic_file_commit(atomic_file *af, char *err, size_t err_size);

/* Removes the file if it was not committed and frees what open took; safe to call always,
 * also after a commit. */
void atomic_file_discard(atomic_file *af);

/* 1 when files can be created in folder `dir` (probed by creating one and removing it, so
 * that a read-only mount, /proc or a folder without write permission is found before any
 * work); 0 with errno set otherwise. */
int atomic_file_folder_writable(const char *dir);

#endif
