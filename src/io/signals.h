/*
 * signals.h - temporary files removed when the tool is interrupted. The writers register the
 * name of every temporary file while it exists; on SIGINT, SIGTERM or SIGHUP a handler unlinks
 * the registered names (unlink is async-signal-safe; nothing else is done there) and re-raises
 * the signal with its default action, so the shell still sees 128 + the signal. A signal that
 * was ignored when the tool started (nohup, a background job) stays ignored.
 *
 * A kill -9 cannot be caught: that case is covered by creating new files without a name at all
 * (O_TMPFILE, atomic_file.c), so that only the instant between link and rename of a replaced
 * file can leave a name behind.
 */
#ifndef TILEDCONV_SIGNALS_H
#define TILEDCONV_SIGNALS_H

#include <signal.h>

/* How many temporary names can be registered at once (the tool stages two outputs). */
#define SIGNALS_MAX_NAMES 8

/* Blocks SIGINT, SIGTERM and SIGHUP into *old, so that creating a file and registering its
 * name (or renaming it and forgetting the name) happen as one step for the handler. */
void signals_block(sigset_t *old);
void signals_restore(const sigset_t *old);

/* Registers a temporary file's name (copied; at most PATH_MAX bytes) and installs the handlers
 * on first use. Returns a slot for signals_forget, or -1 when the name is too long or every
 * slot is taken (the file is then not removed by a signal, which is all that is lost). */
int signals_remember(const char *name);

/* The name is no longer a temporary file (renamed into place, or removed). slot -1 is allowed. */
void signals_forget(int slot);

#endif
