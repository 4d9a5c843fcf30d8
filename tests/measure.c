/*
 * measure.c - runs a command and reports how it ended, its peak memory and its time, for the
 * end-to-end tests of limits and signals (tests/e2e-hardening.sh):
 *
 *   measure [-k SIGNAL -d MICROSECONDS] [-r REPORT] -- COMMAND [ARG...]
 *       Runs COMMAND with SIGINT, SIGTERM, SIGHUP and SIGQUIT at their defaults (a shell's
 *       background job would have them ignored); with -k, sends SIGNAL after the delay. Writes
 *       one line to REPORT (default: standard error):
 *           status=N maxrss_kb=K wall_ms=T
 *       N is the exit status, or 128 + the signal that ended it; K the peak resident set of the
 *       command and of every process it started, reaped here too (a child reaper: tiledconv
 *       runs a device's work in a child that outlives the process the shell waits for); T the
 *       wall time until the command itself ended. Exits with N.
 *   measure --tmpfile DIR
 *       Exits 0 when O_TMPFILE works in DIR (a new output there leaves nothing on a kill -9).
 */
#define _GNU_SOURCE /* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int usage(void)
{
    fprintf(stderr, "usage: measure [-k SIGNAL -d MICROSECONDS] [-r REPORT] -- COMMAND...\n"
                    "       measure --tmpfile DIR\n");
    return 2;
}

int main(int argc, char **argv)
{
    int sig = 0, i = 1;
    long delay_us = 0;
    const char *report = NULL;
    if (argc == 3 && strcmp(argv[1], "--tmpfile") == 0) {
        int fd = open(argv[2], O_TMPFILE | O_WRONLY, 0600);
        if (fd < 0)
            return 1;
        close(fd);
        return 0;
    }
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (i + 1 >= argc)
            return usage();
        if (strcmp(argv[i], "-k") == 0)
            sig = atoi(argv[++i]);
        else if (strcmp(argv[i], "-d") == 0)
            delay_us = atol(argv[++i]);
        else if (strcmp(argv[i], "-r") == 0)
            report = argv[++i];
        else
            return usage();
    }
    if (i + 1 >= argc)
        return usage();
    char **command = argv + i + 1;

    /* Orphans of the command come to us, so that their peak memory counts and none outlives
     * the report. */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1);
    const double t0 = now_ms();
    pid_t pid = fork();
    if (pid < 0) {
        perror("measure: fork");
        return 2;
    }
    if (pid == 0) {
        const int defaults[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
        sigset_t none;
        for (size_t k = 0; k < sizeof defaults / sizeof defaults[0]; k++)
            signal(defaults[k], SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvp(command[0], command);
        perror("measure: exec");
        _exit(127);
    }
    if (sig) {
        struct timespec d = {delay_us / 1000000, (delay_us % 1000000) * 1000};
        nanosleep(&d, NULL);
        kill(pid, sig);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ;
    const double wall = now_ms() - t0;
    while (wait(NULL) > 0 || errno == EINTR) /* the orphans, reparented to us */
        ;
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    const int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    FILE *out = report ? fopen(report, "w") : stderr;
    if (!out) {
        perror("measure: report");
        return 2;
    }
    fprintf(out, "status=%d maxrss_kb=%ld wall_ms=%.0f\n", code, ru.ru_maxrss, wall);
    if (out != stderr)
        fclose(out);
    return code;
}
