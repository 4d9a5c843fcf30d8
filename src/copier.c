/*
 * copier.c - the crew of copier.h.
 *
 * A run is published as a generation number; its tasks are handed out through one atomic
 * ticket, (generation << 32) | next task, taken by compare-and-swap, so that a thread still
 * looking at an older run can never take a task of a newer one: its generation no longer
 * matches. When a run is over the caller parks the ticket at (generation, every task taken)
 * before it writes the next run's fields, for the same reason.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "copier.h"
#include "bulk_copy.h"
#include "tuning.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The widest crew a setting may ask for, and the widest the default makes. */
#define MAX_WIDTH 16
#define DEFAULT_MAX_WIDTH 8
/* How long an idle thread, or a caller waiting for the last task, polls before it sleeps: a
 * little more than the gap between the stages of one image (its kernels) and between the
 * calls of a loop from Python. */
#define SPIN_NS 150000LL
/* The smallest part tc_copier_memcpy hands to a thread: below it the hand-over costs more
 * than the copy. */
#define MIN_PART ((size_t)128 << 10)
#define ALL_TAKEN 0xffffffffULL

struct tc_copier {
    pthread_t threads[MAX_WIDTH - 1];
    int started;
    pthread_mutex_t lock;
    pthread_cond_t wake;     /* threads: a new run, or the end */
    pthread_cond_t finished; /* the caller: the last task of its run is done */
    int sleepers;            /* threads waiting on wake (under lock) */
    int caller_waiting;      /* under lock */
    atomic_int stop;
    atomic_uint generation;  /* the current run's number */
    atomic_ullong ticket;    /* (generation << 32) | the next task to take */
    atomic_int done;         /* tasks of the current run finished */
    /* The current run, written before its generation is published (atomics: a thread still
     * looking at the run before may read them while they change, and then takes nothing). */
    _Atomic(tc_copier_task) task;
    _Atomic(void *) arg;
    atomic_int n;
    int status; /* its first failure (under lock) */
    tc_msg msg;
};

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* The cores this process may run on, counted once (a system call each time would cost a
 * call of a loop a microsecond). */
static int count_cores(void)
{
    int cores = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cores = CPU_COUNT(&set);
    if (cores <= 0) {
        const long n = sysconf(_SC_NPROCESSORS_ONLN);
        cores = n > 0 ? (int)n : 1;
    }
    return cores;
}

/* The calling thread's own limit (tc_copier_width_here); 0: none. */
static _Thread_local int width_here;

void tc_copier_width_here(int n)
{
    width_here = n < 0 ? 0 : n > MAX_WIDTH ? MAX_WIDTH : n;
}

TC_INTERNAL void tc_copy_threads_here(int n)
{
    tc_copier_width_here(n);
}

/* The cores this process may run on, counted once (the count is the same whoever counts). */
static int cores_here(void)
{
    static atomic_int counted; /* 0 until counted */
    int cores = atomic_load(&counted);
    if (cores == 0) {
        cores = count_cores();
        atomic_store(&counted, cores);
    }
    return cores;
}

/* The threads that copy by default, the caller included: half the cores, 2 to 8. */
static int crew_width(void)
{
    const int set = tc_tuning_now()->copy_threads, cores = cores_here();
    if (set > 0)
        return set < MAX_WIDTH ? set : MAX_WIDTH;
    if (cores == 1)
        return 1;
    const int width = cores / 2;
    return width < 2 ? 2 : width > DEFAULT_MAX_WIDTH ? DEFAULT_MAX_WIDTH : width;
}

int tc_copier_width(void)
{
    const int crew = crew_width();
    return width_here > 0 && width_here < crew ? width_here : crew;
}

/* Takes and runs tasks of run g until none is left (or the run is no longer g). */
static void take_tasks(tc_copier *c, unsigned g)
{
    const tc_copier_task task = atomic_load(&c->task);
    void *const arg = atomic_load(&c->arg);
    const int n = atomic_load(&c->n);
    unsigned long long t = atomic_load(&c->ticket);
    for (;;) {
        if ((unsigned)(t >> 32) != g || (t & ALL_TAKEN) >= (unsigned long long)n)
            return;
        if (!atomic_compare_exchange_weak(&c->ticket, &t, t + 1))
            continue; /* t now holds the ticket's value: look again */
        tc_msg m;
        m.text[0] = '\0';
        const int status = task(arg, (int)(t & ALL_TAKEN), &m);
        if (status != TC_OK) {
            pthread_mutex_lock(&c->lock);
            if (c->status == TC_OK) {
                c->status = status;
                c->msg = m;
            }
            pthread_mutex_unlock(&c->lock);
        }
        if (atomic_fetch_add(&c->done, 1) + 1 == n) {
            pthread_mutex_lock(&c->lock);
            if (c->caller_waiting)
                pthread_cond_signal(&c->finished);
            pthread_mutex_unlock(&c->lock);
        }
        t = atomic_load(&c->ticket);
    }
}

static void *crew_main(void *p)
{
    tc_copier *c = p;
    unsigned seen = atomic_load(&c->generation);
    for (;;) {
        unsigned g = atomic_load(&c->generation);
        const long long until = now_ns() + SPIN_NS;
        for (int k = 0; g == seen && !atomic_load(&c->stop); k++) {
            if ((k & 63) == 63 && now_ns() > until)
                break;
            cpu_relax();
            g = atomic_load(&c->generation);
        }
        if (g == seen) {
            pthread_mutex_lock(&c->lock);
            c->sleepers++;
            while ((g = atomic_load(&c->generation)) == seen && !atomic_load(&c->stop))
                pthread_cond_wait(&c->wake, &c->lock);
            c->sleepers--;
            pthread_mutex_unlock(&c->lock);
        }
        if (atomic_load(&c->stop))
            return NULL;
        seen = g;
        take_tasks(c, g);
    }
}

/* The crew's threads, started with every signal blocked: signals are the caller's to take. */
static tc_copier *start_crew(void)
{
    tc_copier *c = calloc(1, sizeof *c);
    sigset_t all, old;
    if (!c)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    pthread_cond_init(&c->finished, NULL);
    atomic_init(&c->stop, 0);
    atomic_init(&c->generation, 0);
    atomic_init(&c->ticket, ALL_TAKEN);
    atomic_init(&c->done, 0);
    atomic_init(&c->task, NULL);
    atomic_init(&c->arg, NULL);
    atomic_init(&c->n, 0);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (int i = 0; i < crew_width() - 1; i++)
        if (pthread_create(&c->threads[c->started], NULL, crew_main, c) == 0)
            c->started++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return c;
}

/* Runs task(arg, i) for i in 0 .. n - 1 on this thread, in order: the first failure's
 * status, its reason in *m. */
static int run_here(int n, tc_copier_task task, void *arg, tc_msg *m)
{
    int status = TC_OK;
    for (int i = 0; i < n; i++) {
        tc_msg one;
        const int s = task(arg, i, &one);
        if (s != TC_OK && status == TC_OK) {
            status = s;
            if (m)
                *m = one;
        }
    }
    return status;
}

int tc_copier_post(tc_copier **crew, int n, tc_copier_task task, void *arg,
                   tc_copier_posted *posted)
{
    posted->crew = NULL;
    posted->n = n;
    posted->status = TC_OK;
    if (n >= 2 && !*crew && tc_copier_width() > 1)
        *crew = start_crew();
    tc_copier *c = *crew;
    if (n < 2 || !c || c->started == 0 || tc_copier_width() == 1) { /* in order, here, now */
        posted->status = run_here(n, task, arg, &posted->msg);
        return 0;
    }
    pthread_mutex_lock(&c->lock);
    const unsigned g = atomic_load(&c->generation) + 1;
    atomic_store(&c->task, task);
    atomic_store(&c->arg, arg);
    atomic_store(&c->n, n);
    c->status = TC_OK;
    atomic_store(&c->done, 0);
    atomic_store(&c->ticket, (unsigned long long)g << 32);
    atomic_store(&c->generation, g);
    /* As many sleepers woken as there are tasks (those still spinning take tasks too): the
     * rest of a wide crew sleeps on, off the cores. */
    for (int k = 0; k < c->sleepers && k < n; k++)
        pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->lock);
    posted->crew = c;
    posted->generation = g;
    return 1;
}

int tc_copier_join(tc_copier_posted *posted, tc_msg *m)
{
    tc_copier *c = posted->crew;
    const int n = posted->n;
    if (!c) { /* it ran when it was posted */
        if (posted->status != TC_OK && m)
            *m = posted->msg;
        return posted->status;
    }
    const unsigned g = posted->generation;
    posted->crew = NULL;
    take_tasks(c, g);
    /* The last tasks are on other threads: poll a while, then sleep until the last is done. */
    const long long until = now_ns() + SPIN_NS;
    for (int k = 0; atomic_load(&c->done) < n; k++) {
        if ((k & 63) == 63 && now_ns() > until) {
            pthread_mutex_lock(&c->lock);
            c->caller_waiting = 1;
            while (atomic_load(&c->done) < n)
                pthread_cond_wait(&c->finished, &c->lock);
            c->caller_waiting = 0;
            pthread_mutex_unlock(&c->lock);
            break;
        }
        cpu_relax();
    }
    atomic_store(&c->ticket, ((unsigned long long)g << 32) | ALL_TAKEN);
    pthread_mutex_lock(&c->lock);
    const int status = c->status;
    if (status != TC_OK && m)
        *m = c->msg;
    pthread_mutex_unlock(&c->lock);
    return status;
}

int tc_copier_run(tc_copier **crew, int n, tc_copier_task task, void *arg, tc_msg *m)
{
    tc_copier_posted posted;
    (void)tc_copier_post(crew, n, task, arg, &posted);
    return tc_copier_join(&posted, m);
}

typedef struct {
    unsigned char *dst;
    const unsigned char *src;
    size_t n, part;
} memcpy_run;

static int copy_part(void *arg, int i, tc_msg *m)
{
    const memcpy_run *r = arg;
    const size_t at = (size_t)i * r->part, len = r->n - at < r->part ? r->n - at : r->part;
    (void)m;
    tc_bulk_copy(r->dst + at, r->src + at, len);
    return TC_OK;
}

void tc_copier_memcpy(tc_copier **crew, void *dst, const void *src, size_t n)
{
    const size_t width = (size_t)tc_copier_width();
    size_t parts = n / MIN_PART < width ? n / MIN_PART : width;
    if (parts < 2) {
        tc_bulk_copy(dst, src, n);
        return;
    }
    /* Parts of whole cache lines, so that no two threads write one line. */
    memcpy_run r = {dst, src, n, ((n + parts - 1) / parts + 63) / 64 * 64};
    parts = (n + r.part - 1) / r.part;
    (void)tc_copier_run(crew, (int)parts, copy_part, &r, NULL);
}

void tc_copier_release(tc_copier *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    atomic_store(&c->stop, 1);
    pthread_cond_broadcast(&c->wake);
    pthread_mutex_unlock(&c->lock);
    for (int i = 0; i < c->started; i++)
        pthread_join(c->threads[i], NULL);
    pthread_cond_destroy(&c->wake);
    pthread_cond_destroy(&c->finished);
    pthread_mutex_destroy(&c->lock);
    free(c);
}
