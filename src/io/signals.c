/* signals.c - removing registered temporary files on SIGINT, SIGTERM and SIGHUP (signals.h). */
#include "signals.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* The names, each with a flag the handler reads: set only once the name is complete, cleared
 * before it is changed, so the handler never sees half a name. */
static char names[SIGNALS_MAX_NAMES][PATH_MAX];
static volatile sig_atomic_t used[SIGNALS_MAX_NAMES];
static int installed;

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
#define N_CAUGHT (sizeof caught / sizeof caught[0])

static void on_signal(int sig)
{
    struct sigaction dfl;
    for (int i = 0; i < SIGNALS_MAX_NAMES; i++)
        if (used[i])
            unlink(names[i]);
    /* The default action back (sigaction and raise are async-signal-safe); the signal is
     * blocked while this handler runs, so it is delivered, and ends the process as it would
     * have, once we return. */
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

static void install(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_CAUGHT; i++)
        sigaddset(&sa.sa_mask, caught[i]); /* one cleanup at a time */
    for (size_t i = 0; i < N_CAUGHT; i++)
        if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(caught[i], &sa, NULL);
    installed = 1;
}

void signals_block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < N_CAUGHT; i++)
        sigaddset(&set, caught[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

void signals_restore(const sigset_t *old)
{
    sigprocmask(SIG_SETMASK, old, NULL);
}

int signals_remember(const char *name)
{
    const size_t len = strlen(name);
    if (!installed)
        install();
    if (len >= PATH_MAX)
        return -1;
    for (int i = 0; i < SIGNALS_MAX_NAMES; i++) {
        if (used[i])
            continue;
        memcpy(names[i], name, len + 1);
        used[i] = 1;
        return i;
    }
    return -1;
}

void signals_forget(int slot)
{
    if (slot >= 0 && slot < SIGNALS_MAX_NAMES)
        used[slot] = 0;
}
