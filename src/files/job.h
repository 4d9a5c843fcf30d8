/*
 * job.h - one image of a batch and the steps it goes through (the batch runs them; job_filter
 * and job_filter_many are job_filter.h's, job_check and job_stage job_output.h's):
 *
 *   job_open     the input opened on its header and checked (format, size, limits); the
 *                host bytes it will hold are known from here, before anything is decoded
 *   job_decode   its pixels: a BMP's as they lie in the file where they can be used so, else
 *                decoded (a gray job decodes a JPEG's luma alone)
 *   job_filter   on a device lane: tc_filter_image (or tc_gradient), the result as the
 *                output's own rows or as float planes
 *   job_copy     instead of job_filter with --no-filter: the unfiltered pixels made on the
 *                host in the output's layout (the codec floor)
 *   job_check    -e: the result against the CPU reference of the same planes
 *   job_stage    the output encoded and written whole under no name (commit.h puts it in
 *                place once it is durable)
 *
 * Each step leaves the job's status and, on a failure, its one line (msg); a failed job skips
 * the rest. The output keeps its input's format (and a gray job writes the format's gray
 * form) where the run names its outputs after its inputs (-O without --format); else it is
 * the run's format.
 */
#ifndef TILEDCONV_JOB_H
#define TILEDCONV_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "bmp.h"
#include "codec.h"
#include "commit.h"
#include "tiledconv_internal.h"
#include "inputs.h"
#include "jpeg_coefs.h"
#include "file_options.h"
#include "source.h"
#include "tiledconv.h"

enum { JOB_OK = 0, JOB_FAILED = 1, JOB_REFUSED = 2, /* the exit statuses they lead to */
       JOB_NO_DEVICE = 3 /* no device opened: one line for the whole run, none per image */ };

typedef struct job job;
struct pinned_pool;
struct job {
    int index;
    const batch_item *item;
    int status;
    char msg[768];
    /* input */
    source_reader reader;  /* open from job_open until job_decode */
    int reader_open;
    uint8_t *file;         /* a BMP's bytes, a JPEG's on the JPEG path, or the float channels
                            * the worker made of planes (freed once the device has them) */
    const io_allocator *file_from; /* where they came from (io_pixels_free; NULL: malloc) */
    int input_ordinary;    /* its input goes to ordinary memory, not the pool's page-locked
                            * blocks (read far ahead of the lanes: batch_pool.c's may_read) */
    size_t movable;        /* the bytes of ordinary memory its input lies in, which an idle
                            * worker may move into page-locked memory (job_movable_bytes) */
    int moving, moved;     /* its input being moved, or moved, into page-locked memory while
                            * it waits for a lane (batch_pool.c) */
    int moving_copy;       /* that move a copy (not a lock in place), holding both for a while */
    size_t file_size;
    bmp_image decoded;     /* RGB, for BMPs whose pixels cannot be used as they are */
    io_image image;        /* PNG, JPEG, PGM/PPM: the decoded samples */
    float *float_src;      /* samples of another scale or depth as float planes */
    tc_image src;
    uint8_t palette[256 * 3];
    struct pinned_pool *pool; /* the batch's page-locked blocks for the pixels that cross the
                               * bus (decoded samples, out_pixels' rows); NULL: malloc */
    /* output */
    io_format out_format;  /* the output image's format */
    int depth;             /* its bits per sample: 8, or 16 */
    int bands;             /* filtered in strips: the target ROI's bands; 0: whole */
    uint8_t *out;          /* the output BMP, headers and rows, ready to write; or (out_pixels)
                            * the packed 8-bit rows of another format, for its encoder */
    size_t out_size;
    int out_pixels;        /* out holds packed rows for the encoder, not a BMP file */
    float *planes;         /* -e, --raw, 16 bits, --gradient: the result as float planes */
    int n_planes;          /* of planes: 1 or 3 (--color; --gradient --raw: gx, gy, magnitude) */
    float *host_planes;    /* -e: the input planes formed on the host, for the reference */
    tc_roi roi;
    size_t bytes;          /* the host bytes it may hold, taken from the batch's budget */
    size_t room;           /* --max-memory: the batch's budget for images when it was opened,
                            * and again when its lane takes it (the room of its bands) */
    size_t pooled;         /* of those, about the most it asks the pinned pool for (its
                            * input's file or pixels, its output's rows) */
    size_t credit;         /* of the pool's idle blocks, the bytes it was let in on (batch_pool.c) */
    /* times, ms */
    double read_ms, upload_ms, convert_ms, kernel_ms, download_ms, write_ms, sync_ms;
    double build_ms;       /* programs built for it (the first image of a lane) */
    /* -e: the largest difference, the tolerance, the digest of the 8-bit pixels */
    int checked;
    double max_error, tolerance;
    char sha256[65];
    /* too large to run whole: read, filtered, checked and written in strips by its lane
     * (strips.h), which leaves nothing to stage */
    source_reader *strips;
    int in_strips;
    /* --tune jpeg-device=1 (job_jpeg_device_path): the worker reads the input's coefficients
     * (keeping the file's bytes in file, in case the lane must decode it on the CPU after
     * all), the lane makes the output's, the worker writes them */
    int jpeg_path;         /* on that path (until the lane's call says otherwise) */
    jpeg_coefs coefs_in, coefs_out;
    int coefs_done;        /* coefs_out made on the device: job_stage writes them */
    int ticket;            /* the library's JPEG filter's number for it while in flight */
    int cpu_encode;        /* the library would not take its pixels through the JPEG filter:
                            * filtered and encoded as any other job's */
    int jpeg_check;        /* -e with --tune jpeg-device=1, a JPEG the CPU decodes: coefs_in
                            * read beside its pixels, which the device's decode of them must
                            * equal (job_filter.c's check_device_decode) */
    const char *jpeg_decode, *jpeg_encode; /* "device" or "cpu" for a JPEG input, output
                            * (--json's records of the images written); NULL for other
                            * formats or not reached */
    /* the staged outputs, on their way into place */
    commit_item commit;
    job *next;             /* the batch's lists */
};

/* The job's failure: its status and "NAME: why" (the input's name shown safely) as its line. */
void job_fail(job *j, int status, const char *why);

/* A failure whose message names the input already ("NAME: why", from source.h). */
void job_fail_named(job *j, int status, const char *msg);

/* Whether the opened input goes to the device as it lies in its file, straight from
 * page-locked memory (a 24-bit BMP into a BMP: job_decode reads it into the batch's pool),
 * so that reading it before the device has opened, into ordinary memory, would cost a staging
 * copy later. */
int job_input_moves_directly(const tc_options *o, const job *j);

/* Whether the result comes back as float planes rather than the output's own 8-bit rows: -e
 * and --raw need the values, a 16-bit output its own rounding, --gradient its magnitude. */
int job_wants_planes(const tc_options *o, const job *j);

/* The float planes that come back: --gradient's magnitude (with --raw gx and gy too), or one
 * plane a channel of the output. */
int job_result_planes(const tc_options *o, const job *j);

/* Opens the input on its header and checks it; sets the output's format and depth
 * (keep_format: the input's own format). On success the reader stays open and j->bytes holds
 * the host bytes the job may need (its budget); on a failure the job is failed and closed. */
void job_open(const tc_options *o, int keep_format, job *j);

/* Whether the opened job takes the device's JPEG path (--tune jpeg-device=1): job.c says
 * where and why. */
int job_jpeg_device_path(const tc_options *o, const job *j);

/* Whether -e also compares the device's decode of the opened JPEG with TurboJPEG's: -e with
 * --tune jpeg-device=1, a JPEG whose samples are the job's channels, whole, not --gradient
 * (whose planes are made otherwise). The job then takes the CPU path, and its lane decodes the
 * coefficients on the device beside it. */
int job_jpeg_check_wanted(const tc_options *o, const job *j);

/* The pixels of the opened input into j->src (the reader is closed); on the JPEG path, its
 * coefficients into j->coefs_in instead (j->src then has the size and layout of the pixels,
 * no data), or, where the coefficients cannot give the CPU path's pixels, the pixels. */
void job_decode(const tc_options *o, job *j);

/* A job of the JPEG path whose pixels the device cannot give as the CPU does after all
 * (tc_filter_jpeg's exact 0): its coefficients dropped, its kept file decoded on the CPU into
 * j->src, as job_decode does for every other job. */
void job_decode_on_cpu(const tc_options *o, job *j);

/* The bytes of ordinary memory the device would read the decoded input from (staged through
 * pinned memory on the lane): decoded while the devices opened, or read far ahead. 0 where
 * they lie in one of the pool's page-locked blocks already, or cannot be moved whole. */
size_t job_movable_bytes(const job *j);

/* Makes those bytes page-locked, so that the device reads them as they lie: locked in place
 * where they are a block of ordinary memory of the pool's (job_lock_input_in_place), else
 * copied into an idle page-locked block. 1 done, 0 not (nothing to move, or no such block
 * idle: none is made for it, as making one costs more than the lane's staging copy it saves,
 * in a driver lock the lanes wait on too). */
int job_move_input(job *j);

/* Whether the input lies in a block of the pool's ordinary memory that may be locked in place
 * now (pinned_pool_lockable). */
int job_input_lockable(const job *j);

/* Locks the input's block of ordinary memory in place (pinned_pool_lock_in_place) for ctx's
 * device, whose page-locked memory the pool's is (the first lane's): 1, or 0 (not such a
 * block, another device's lane, or refused: the input stays where it is, for the staging
 * copies). */
int job_lock_input_in_place(job *j, const tc_context *ctx);

/* --no-filter: the unfiltered pixels in the output's layout, on the host. */
void job_copy(const tc_options *o, job *j);

/* Frees what the job holds of its input (after the device has it, unless -e needs it). */
void job_drop_input(job *j);

/* Frees everything but the job itself and its staged outputs. */
void job_drop_buffers(job *j);

#endif
