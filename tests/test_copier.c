/*
 * test_copier.c - the crew of copier.h: every task of a run runs exactly once, whatever the
 * number of tasks and however quickly runs follow each other (a thread still finishing one run
 * must never take a task of the next); a failed task's status and reason come back while the
 * other tasks still run; the parallel memcpy, and the streaming copy under it, copy every
 * byte at every size and offset; a
 * crew that is released with threads asleep ends; the tuning's copy_threads sets the width, and
 * at 1 the caller runs every task itself without starting a crew; a thread's own limit
 * (tc_copy_threads_here) holds for it alone and never passes the crew's size.
 */
#include "test_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bulk_copy.h"
#include "copier.h"
#include "tiledconv_internal.h"

typedef struct {
    atomic_int *counts; /* per task: how many times it ran */
    int n;
    int run;            /* the run's number, checked by each task */
    atomic_int *seen_run;
    int fail_at;        /* a task that fails, or -1 */
} counting;

static int count_task(void *arg, int i, tc_msg *m)
{
    counting *c = arg;
    if (i < 0 || i >= c->n)
        return tc_fail(m, TC_EINVAL, "task %d of %d", i, c->n);
    atomic_fetch_add(&c->counts[i], 1);
    atomic_store(&c->seen_run[i], c->run);
    if (i == c->fail_at)
        return tc_fail(m, TC_EDEVICE, "task %d failed on purpose", i);
    return TC_OK;
}

/* Thousands of runs of 1 to 40 tasks back to back, each on its own stack frame's state: every
 * task of every run once, and only tasks of that run. */
static void every_task_once(void **state)
{
    tc_copier *crew = NULL;
    (void)state;
    srand(11);
    for (int run = 1; run <= 4000; run++) {
        atomic_int counts[40], seen[40];
        const int n = 1 + rand() % 40;
        for (int i = 0; i < 40; i++) {
            atomic_init(&counts[i], 0);
            atomic_init(&seen[i], 0);
        }
        counting c = {counts, n, run, seen, -1};
        tc_msg m = {""};
        assert_int_equal(tc_copier_run(&crew, n, count_task, &c, &m), TC_OK);
        for (int i = 0; i < 40; i++) {
            assert_int_equal(atomic_load(&counts[i]), i < n ? 1 : 0);
            assert_int_equal(atomic_load(&seen[i]), i < n ? run : 0);
        }
        if (run % 500 == 0) { /* now and then, let the crew fall asleep between runs */
            struct timespec pause = {0, 2 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    if (tc_copier_width() > 1)
        assert_non_null(crew);
    tc_copier_release(crew);
}

static void a_failure_comes_back(void **state)
{
    tc_copier *crew = NULL;
    atomic_int counts[16], seen[16];
    (void)state;
    for (int i = 0; i < 16; i++) {
        atomic_init(&counts[i], 0);
        atomic_init(&seen[i], 0);
    }
    counting c = {counts, 16, 1, seen, 9};
    tc_msg m = {""};
    assert_int_equal(tc_copier_run(&crew, 16, count_task, &c, &m), TC_EDEVICE);
    assert_string_equal(m.text, "task 9 failed on purpose");
    for (int i = 0; i < 16; i++) /* the others ran all the same */
        assert_int_equal(atomic_load(&counts[i]), 1);
    /* The next run is clean again. */
    c.fail_at = -1;
    c.run = 2;
    for (int i = 0; i < 16; i++)
        atomic_store(&counts[i], 0);
    m.text[0] = '\0';
    assert_int_equal(tc_copier_run(&crew, 16, count_task, &c, &m), TC_OK);
    assert_string_equal(m.text, "");
    tc_copier_release(crew);
}

/* No tasks, one task: run here, no crew needed. */
static void small_runs(void **state)
{
    tc_copier *crew = NULL;
    atomic_int counts[1], seen[1];
    (void)state;
    atomic_init(&counts[0], 0);
    atomic_init(&seen[0], 0);
    counting c = {counts, 1, 7, seen, -1};
    assert_int_equal(tc_copier_run(&crew, 0, count_task, &c, NULL), TC_OK);
    assert_int_equal(tc_copier_run(&crew, 1, count_task, &c, NULL), TC_OK);
    assert_int_equal(atomic_load(&counts[0]), 1);
    assert_null(crew); /* nothing was worth a thread */
    tc_copier_release(NULL);
}

/* A source and a destination of cap + 64 bytes, the source filled with a pattern of mul and
 * shift that repeats at no power of two a copy's parts could fall on. */
static void copy_buffers(size_t cap, size_t mul, int shift, unsigned char **src,
                         unsigned char **dst)
{
    *src = malloc(cap + 64);
    *dst = malloc(cap + 64);
    assert_non_null(*src);
    assert_non_null(*dst);
    for (size_t i = 0; i < cap + 64; i++)
        (*src)[i] = (unsigned char)(i * mul + (i >> shift));
}

/* A copy of n bytes from `from` landed at dst + off, and the 0xEE around it is untouched:
 * every byte lands, none beyond. */
static void expect_landed(const unsigned char *dst, size_t off, const unsigned char *from,
                          size_t n)
{
    assert_memory_equal(dst + off, from, n);
    for (size_t i = 0; i < off; i++)
        assert_int_equal(dst[i], 0xEE);
    assert_int_equal(dst[off + n], 0xEE);
}

static void memcpy_every_byte(void **state)
{
    tc_copier *crew = NULL;
    const size_t cap = (size_t)5 << 20;
    unsigned char *src, *dst;
    (void)state;
    copy_buffers(cap, 131, 9, &src, &dst);
    /* Sizes around the part size and odd offsets: every byte lands, none beyond. */
    const size_t sizes[] = {0, 1, 63, 4096, (size_t)128 << 10, ((size_t)128 << 10) + 1,
                            ((size_t)256 << 10) - 7, (size_t)1 << 20, ((size_t)3 << 20) + 5,
                            cap};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (size_t off = 0; off < 3; off++) {
            const size_t n = sizes[k] - (sizes[k] >= off ? off : 0);
            memset(dst, 0xEE, cap + 64);
            tc_copier_memcpy(&crew, dst + off, src + 3 - off, n);
            expect_landed(dst, off, src + 3 - off, n);
        }
    tc_copier_release(crew);
    free(src);
    free(dst);
}

/* tc_bulk_copy alone, streaming stores (the default) and plain memcpy (copy-stream=0): every
 * byte lands at every size around the streaming threshold and every alignment of the
 * destination, none beyond. */
static void bulk_copy_every_byte(void **state)
{
    const size_t cap = ((size_t)1 << 20) + 100;
    unsigned char *src, *dst;
    (void)state;
    copy_buffers(cap, 29, 11, &src, &dst);
    const size_t sizes[] = {0, 1, 64, (size_t)64 << 10, ((size_t)64 << 10) - 1,
                            ((size_t)64 << 10) + 1, ((size_t)64 << 10) + 63, (size_t)1 << 20,
                            cap - 17};
    for (int plain = 0; plain < 2; plain++) {
        test_tune(plain ? "copy-stream=0" : "copy-stream=");
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (size_t off = 0; off < 18; off++) {
                const size_t n = sizes[k];
                memset(dst, 0xEE, cap + 64);
                tc_bulk_copy(dst + off, src + 5, n);
                expect_landed(dst, off, src + 5, n);
            }
    }
    test_tune("copy-stream=");
    free(src);
    free(dst);
}

/* The thread that ran each task. */
typedef struct {
    pthread_t ran[16];
} whose;

static int note_thread(void *arg, int i, tc_msg *m)
{
    (void)m;
    ((whose *)arg)->ran[i] = pthread_self();
    return TC_OK;
}

static void *width_elsewhere(void *arg)
{
    *(int *)arg = tc_copier_width();
    return NULL;
}

/* copy-threads=N is the width; at 1 no crew starts and the caller runs every task; an empty
 * value gives the default back. */
static void the_tuning_sets_the_width(void **state)
{
    char err[256];
    const int width = tc_copier_width();
    (void)state;
    for (int n = 1; n <= 8; n++) {
        char setting[32];
        snprintf(setting, sizeof setting, "copy-threads=%d", n);
        assert_int_equal(tc_tune(setting, err, sizeof err), 0);
        assert_int_equal(tc_copier_width(), n);
    }
    assert_int_not_equal(tc_tune("copy-threads=17", err, sizeof err), 0);
    assert_non_null(strstr(err, "1..16"));
    assert_int_not_equal(tc_tune("copy-threads=0", err, sizeof err), 0);
    assert_int_equal(tc_tune("copy-threads=1", err, sizeof err), 0);
    tc_copier *crew = NULL;
    whose w;
    tc_msg m = {""};
    assert_int_equal(tc_copier_run(&crew, 16, note_thread, &w, &m), TC_OK);
    assert_null(crew);
    for (int i = 0; i < 16; i++)
        assert_true(pthread_equal(w.ran[i], pthread_self()));
    assert_int_equal(tc_tune("copy-threads=", err, sizeof err), 0);
    assert_int_equal(tc_copier_width(), width);
    /* A thread's own limit: at most the crew's size, for that thread alone; at 1 the crew,
     * started by the run before, is not woken. */
    assert_int_equal(tc_copier_run(&crew, 16, note_thread, &w, &m), TC_OK);
    if (width > 1)
        assert_non_null(crew);
    tc_copy_threads_here(1);
    assert_int_equal(tc_copier_width(), 1);
    assert_int_equal(tc_copier_run(&crew, 16, note_thread, &w, &m), TC_OK);
    for (int i = 0; i < 16; i++)
        assert_true(pthread_equal(w.ran[i], pthread_self()));
    pthread_t other;
    int seen = 0;
    assert_int_equal(pthread_create(&other, NULL, width_elsewhere, &seen), 0);
    assert_int_equal(pthread_join(other, NULL), 0);
    assert_int_equal(seen, width);
    tc_copy_threads_here(99);
    assert_int_equal(tc_copier_width(), width);
    tc_copy_threads_here(0);
    assert_int_equal(tc_copier_width(), width);
    tc_copier_release(crew);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_task_once),
        cmocka_unit_test(a_failure_comes_back),
        cmocka_unit_test(small_runs),
        cmocka_unit_test(memcpy_every_byte),
        cmocka_unit_test(bulk_copy_every_byte),
        cmocka_unit_test(the_tuning_sets_the_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
