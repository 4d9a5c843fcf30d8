/*
 * batch_state.h - what the threads of a batch share (batch.h): the pool's queues and memory
 * budget, the lanes, the results and figures, all under the batch's lock; and the clocks the
 * figures are read from.
 */
#ifndef TILEDCONV_BATCH_STATE_H
#define TILEDCONV_BATCH_STATE_H

#include "tool_visible.h" /* src/io */

#include <pthread.h>
#include <stddef.h>

#include "batch.h"
#include "commit.h"
#include "inputs.h"
#include "job.h"
#include "file_options.h"
#include "pinned_pool.h"
#include "tiledconv.h"

/* One context and the thread that drives it. */
typedef struct batch batch;
typedef struct {
    batch *b;
    const char *request;
    tc_context *ctx;
    tc_device_info dev;
    double open_ms;        /* tc_open, from the start of the run */
    int status;            /* 0 open, 1 failed to open */
    int open_status;       /* tc_open's status */
    char err[512];
    pthread_t thread;
    int started;           /* thread runs lane_main (else lane 0 runs on the main thread) */
} lane;

/* A list of jobs, first in first out. */
typedef struct {
    job *head, *tail;
    int count;
} job_list;

struct batch {
    const tc_options *o;
    const batch_reporter *report; /* what the batch says goes there */
    const batch_list *list;
    int chatty, machine, progress;
    double t0;             /* the run's start, wall ms */
    /* The pool's state, under lock. */
    pthread_mutex_t lock;
    pthread_cond_t work;   /* workers: an image to encode, room in the budget, the end */
    pthread_cond_t ready;  /* lanes: a decoded image, or none left to come */
    int next;              /* the next input to read */
    int reading;           /* inputs being read now */
    /* The codecs' cost so far, for the lanes' choice of copy threads (batch_lanes.c). */
    double codec_read_ms, codec_write_ms;
    int codec_reads, codec_writes;
    job_list decoded;      /* read, waiting for a lane */
    job_list finished;     /* filtered, waiting for a worker */
    int left;              /* images the workers are done with (staged or accounted) */
    int lanes_ready;       /* lanes with an open device: start-up is over */
    size_t inflight, budget;
    /* --max-memory: the process's resident bytes before any thread, and what opening the
     * lanes' devices added (batch_given_budget) */
    unsigned long long resident_at_start, platforms_resident;
    size_t budget_unbound; /* the budget without --max-memory: a quarter of the memory */
    size_t credited;       /* idle blocks' bytes promised to images let in, not yet read */
    pinned_pool pool;      /* the pixels' page-locked blocks; its overhead counts in the budget */
    /* Results, under lock. */
    int done, written, refused, failed;
    int checked, verified; /* -e: images checked, and passed */
    double max_difference;
    double read_ms, upload_ms, convert_ms, kernel_ms, download_ms, write_ms, sync_ms;
    double startup_ms;     /* until the first context was ready */
    double platforms_ms;   /* of that: the OpenCL loader's platform list (every ICD loaded) */
    double build_ms;       /* the programs built, summed over the lanes */
    double lane_ms;        /* the lanes' wall time in their library calls, summed */
    int lane_calls;        /* those calls (each filters the images waiting, up to 16) */
    int lane_images;       /* the images those calls took */
    double staged_lane_ms; /* -t: of those, the calls with an image still in ordinary memory */
    int staged_lane_images; /* (a staging copy on the lane): their wall time and images */
    double all_read_ms;    /* -t's timeline, on the batch's clock: when the last input was
                            * read and handed on (0: not yet), */
    int waiting_at_all_read; /* the images then decoded and waiting for a lane, */
    double lanes_end_ms;   /* and when the lanes' last call ended */
    int decoded_early;     /* images decoded before any lane was ready */
    int moves_waiting;     /* images being moved or moved into page-locked memory, not yet
                            * taken by a lane */
    int moved;             /* -t: images an idle worker moved so (batch_pool.c), */
    int lane_locked;       /* -t: images a lane locked in place before its call (batch_lanes.c) */
    double move_ms;        /* and the workers' time it took, summed */
    unsigned long long direct_up, direct_down; /* images whose pixels crossed straight from or
                            * into page-locked memory (no staging copy), summed over the lanes */
    double age_at_start;   /* ms since the process started, when the batch started (-1: not
                            * known) */
    double folder_sync_ms; /* the output folder's sync after the last image */
    double worker_cpu_ms, lane_cpu_ms; /* -t: the CPU time (user + system) of the workers'
                            * threads and of the lanes' (driver calls included), summed */
    double idle_ms[2];     /* -t: the workers' waits for work, summed: while no lane was ready,
                            * and after */
    double budget_wait_ms; /* -t: the workers' waits for room in the memory budget, summed */
    int n_workers, n_lanes, n_waiters;
    lane *lanes;
    commit_queue commits;  /* started when outputs are synced */
    int syncing;
    const tc_device_info *dev; /* the first lane's, for the single-image header */
    int first_width, first_height, first_depth; /* the first image written, for that header */
    io_format first_format;
    tc_roi first_roi;
    int lanes_opened;      /* lanes that have tried to open their device */
    int lanes_working;     /* of those, the ones that opened it */
};

/* Wall ms on the monotonic clock. */
TC_TOOL double batch_now_ms(void);

/* ms since this process started (its exec), to the tick (10 ms); -1 where it cannot be read. */
TC_TOOL double batch_process_age_ms(void);

/* The job last in the list; the first job out of it (NULL when it is empty); the job after
 * prev (NULL: the first) out of it. */
void job_list_push(job_list *l, job *j);
job *job_list_pop(job_list *l);
job *job_list_take_after(job_list *l, job *prev);

/* Which bounds the batch's rate, from the costs so far: 1 the workers' codecs (their time an
 * image over the workers exceeds the lanes' time an image), 0 the lanes, -1 not known yet (no
 * image read or none through a lane). Under the lock. */
int batch_codecs_bound(const batch *b);

/* Under --max-memory, the budget for images in flight (b->budget, under lock): the given
 * bytes less plan.h's margin, what the process held at the start, and what the lanes' devices
 * took when they opened (until every lane has opened, the platform's reserve for each lane's,
 * so that images read ahead while the devices open leave them room); less the platform's
 * reserve at the least, as plan_spent. */
size_t batch_given_budget(const batch *b);

/* The CPU time, user + system, that the calling thread has used so far, ms (-1: unknown). */
double batch_thread_cpu_ms(void);

#endif
