/* detach.c - a run whose end does not wait for the GPU driver's teardown (detach.h). */
#define _GNU_SOURCE /* prctl's PR_SET_PDEATHSIG */
#include "detach.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

static pid_t worker = -1;      /* in the waiting process: the process that runs */
static int status_fd = -1;     /* in the process that runs: where its status goes */
static double age_before = 0;  /* in the process that runs: the waiting one's age at the fork */

/* The signals a user ends a run with, handed on to the process that runs, which removes its
 * temporary files and ends by the same signal (src/io/signals.c); the waiter then does too. */
static const int handed_on[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static void hand_on(int sig)
{
    const int saved = errno;
    if (worker > 0)
        kill(worker, sig);
    errno = saved;
}

/* The waiting process: the status the other reports, else (it ended without one: a signal, a
 * crash) the way it ended, taken on as its own. Never returns. */
static void wait_for_worker(int fd)
{
    unsigned char status;
    ssize_t n;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hand_on;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof handed_on / sizeof handed_on[0]; i++)
        sigaction(handed_on[i], &sa, NULL);
    do
        n = read(fd, &status, 1);
    while (n < 0 && errno == EINTR);
    if (n == 1)
        _exit(status); /* every output is in place: the driver's teardown is the other's */
    int how = 0;
    while (waitpid(worker, &how, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(how)) {
        const int sig = WTERMSIG(how);
        signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(how) ? WEXITSTATUS(how) : 1);
}

int detach_start(double age_ms)
{
    int fds[2];
#if defined(__linux__)
    const pid_t waiter = getpid();
#endif
    fflush(NULL);
    if (pipe(fds) != 0)
        return -1;
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid > 0) {
        close(fds[1]);
        worker = pid;
        wait_for_worker(fds[0]);
    }
    close(fds[0]);
    status_fd = fds[1];
    (void)fcntl(status_fd, F_SETFD, FD_CLOEXEC);
    age_before = age_ms;
#if defined(__linux__)
    /* A waiter killed outright (SIGKILL) takes the run with it outright, as one process would
     * end: by SIGKILL, which no disposition can ignore (an inherited SIG_IGN of SIGTERM left
     * the run going on and writing its outputs after the caller had seen 137). */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != waiter)
        _exit(128 + SIGKILL);
#endif
    return 0;
}

double detach_age_before_ms(void)
{
    return age_before;
}

void detach_end(int status, int image_fd)
{
    if (status_fd < 0)
        return;
    fflush(stdout);
    fflush(stderr);
    /* Whoever reads our output sees its end now, not after the teardown. */
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(null);
    }
    if (image_fd >= 0)
        close(image_fd);
    /* No signal from here on (the waiter's end sends one): the status is final. */
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    const unsigned char byte = (unsigned char)status;
    while (write(status_fd, &byte, 1) < 0 && errno == EINTR)
        ;
    _exit(status);
}
