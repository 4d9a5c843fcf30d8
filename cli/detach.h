/*
 * detach.h - a run whose end does not wait for the GPU driver's teardown.
 *
 * A process that has held a GPU context takes 0.1-0.2 s to end after its last output is in
 * place: the driver tears the context down and unlocks its pinned memory, and the kernel frees
 * the rest, all before the process is reaped (docs/benchmarks.md measures it). The user waits
 * for none of it when the run happens in a child: the process the shell started waits for the
 * child's status, which the child sends once every output is written, renamed and synced and
 * its standard output and error are closed, and ends with it; the child's teardown goes on
 * alone. Signals given to the waiting process are handed on, a child that ends without a
 * status (a signal, a crash) is ended the same way by the waiter, and a waiter killed outright
 * takes the child with it (SIGTERM: temporary files removed).
 */
#ifndef TILEDCONV_DETACH_H
#define TILEDCONV_DETACH_H

/* Forks, before any thread or device: returns 0 in the child, which runs; the parent waits
 * and never returns. age_ms: the process's age now (the child's own clock starts at the
 * fork). -1 where there is no child (no fork): the run goes on in this process. */
int detach_start(double age_ms);

/* The age detach_start was given (0 when it was not called): what the child adds to its own. */
double detach_age_before_ms(void);

/* In the child: status to the waiter, standard output and error (and image_fd, the claimed
 * image output, when >= 0) closed, then the end. Returns at once when there is no waiter. */
void detach_end(int status, int image_fd);

#endif
