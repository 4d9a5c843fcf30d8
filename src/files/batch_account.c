/* batch_account.c - each image's outcome counted and passed on (batch_account.h). */
#include "batch_account.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

void batch_account(batch *b, job *j)
{
    pthread_mutex_lock(&b->lock);
    b->done++;
    if (j->checked) {
        b->checked++;
        b->verified += j->status == JOB_OK;
        if (j->max_error > b->max_difference)
            b->max_difference = j->max_error;
    }
    if (j->status == JOB_OK) {
        if (b->written++ == 0) {
            b->first_width = j->src.width;
            b->first_height = j->src.height;
            b->first_roi = j->roi;
            b->first_depth = j->depth;
            b->first_format = j->out_format;
        }
        b->read_ms += j->read_ms;
        b->upload_ms += j->upload_ms;
        b->convert_ms += j->convert_ms;
        b->kernel_ms += j->kernel_ms;
        b->download_ms += j->download_ms;
        b->write_ms += j->write_ms;
        b->sync_ms += j->sync_ms;
    } else if (j->status == JOB_REFUSED) {
        b->refused++;
    } else if (j->status == JOB_FAILED) {
        b->failed++;
    }
    if (b->report->image)
        b->report->image(b, j, b->report->arg);
    pthread_mutex_unlock(&b->lock);
    free(j);
}

void batch_committed(commit_item *c, void *arg)
{
    job *j = (job *)((char *)c - offsetof(job, commit));
    if (c->failed) {
        j->status = JOB_FAILED;
        snprintf(j->msg, sizeof j->msg, "%s", c->err);
    }
    j->sync_ms = c->sync_ms;
    batch_account(arg, j);
}
