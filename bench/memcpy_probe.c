/*
 * memcpy_probe.c - the host's own copy rate: 600 MB copied by 1, 2, 4, 8 and 16 threads, each
 * its share, the best of 5 rounds, in GB/s of bytes copied (each byte is read once and written
 * once). The ceiling of what a batch's staging copies can take from the host's memory.
 *
 *     cc -O2 -pthread -o build/memcpy_probe bench/memcpy_probe.c && build/memcpy_probe
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES ((size_t)600 << 20)

static char *from, *to;
static int threads;

static void *copy_share(void *arg)
{
    const size_t i = (size_t)arg, share = BYTES / (size_t)threads;
    memcpy(to + i * share, from + i * share, share);
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    static const int counts[] = {1, 2, 4, 8, 16};
    from = malloc(BYTES);
    to = malloc(BYTES);
    if (!from || !to) {
        fprintf(stderr, "memcpy_probe: no memory for 2 x 600 MB\n");
        return 1;
    }
    memset(from, 1, BYTES); /* every page touched before any is timed */
    memset(to, 2, BYTES);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        pthread_t th[16];
        double best = 1e9;
        threads = counts[k];
        for (int round = 0; round < 5; round++) {
            const double t0 = now();
            for (int i = 0; i < threads; i++)
                if (pthread_create(&th[i], NULL, copy_share, (void *)(size_t)i) != 0) {
                    fprintf(stderr, "memcpy_probe: pthread_create failed\n");
                    return 1;
                }
            for (int i = 0; i < threads; i++)
                pthread_join(th[i], NULL);
            const double took = now() - t0;
            best = took < best ? took : best;
        }
        printf("memcpy, %2d threads: %.1f GB/s copied\n", threads, (double)BYTES / best / 1e9);
    }
    free(from);
    free(to);
    return 0;
}
