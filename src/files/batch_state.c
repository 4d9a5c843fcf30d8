/* batch_state.c - the batch's clocks and job lists (batch_state.h). */
#include "batch_state.h"

#include "plan.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

size_t batch_given_budget(const batch *b)
{
    unsigned long long spent = PLAN_RUN_MARGIN + b->resident_at_start;
    spent += b->lanes_opened < b->n_lanes ? (unsigned long long)b->n_lanes * PLAN_PLATFORM_RESERVE
                                          : b->platforms_resident;
    if (spent < PLAN_PLATFORM_RESERVE) /* as plan_spent: the reserve at the least */
        spent = PLAN_PLATFORM_RESERVE;
    return b->o->max_memory > spent ? (size_t)(b->o->max_memory - spent) : 0;
}

int batch_codecs_bound(const batch *b)
{
    if (b->codec_reads == 0 || b->lane_images == 0)
        return -1;
    const double read = b->codec_read_ms / b->codec_reads;
    const double write = b->codec_writes > 0 ? b->codec_write_ms / b->codec_writes : read;
    /* ms an image for the lanes together, against the pool's */
    return b->lane_ms / b->lane_images / b->n_lanes <= (read + write) / b->n_workers;
}

double batch_thread_cpu_ms(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
        return -1.0;
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

double batch_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ms since this process started (its exec), from /proc/self/stat's start time in clock ticks
 * since boot (to the tick: 10 ms), for -t's account of the time outside the batch's clock;
 * -1 where it cannot be read. */
double batch_process_age_ms(void)
{
    char line[1024];
    struct timespec ts;
    unsigned long long start = 0;
    FILE *f = fopen("/proc/self/stat", "r");
    const long tick = sysconf(_SC_CLK_TCK);
    if (!f)
        return -1.0;
    const int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    /* Fields after the command's name, which ends with the last ')': state is field 3, the
     * start time field 22. */
    const char *p = got ? strrchr(line, ')') : NULL;
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p + 1, "%llu", &start) != 1 || tick <= 0 ||
        clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
        return -1.0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6 - (double)start * 1e3 / tick;
}

void job_list_push(job_list *l, job *j)
{
    j->next = NULL;
    if (l->tail)
        l->tail->next = j;
    else
        l->head = j;
    l->tail = j;
    l->count++;
}

job *job_list_pop(job_list *l)
{
    return job_list_take_after(l, NULL);
}

job *job_list_take_after(job_list *l, job *prev)
{
    job *j = prev ? prev->next : l->head;
    if (j) {
        if (prev)
            prev->next = j->next;
        else
            l->head = j->next;
        if (l->tail == j)
            l->tail = prev;
        l->count--;
    }
    return j;
}
