/* plan.c - the memory plan of a run (plan.h). */
#include "plan.h"

#include <stdio.h>
#include <string.h>

#include "tiledconv_internal.h"
#include "outputs.h"

static unsigned long long max2(unsigned long long a, unsigned long long b)
{
    return a > b ? a : b;
}

int plan_in_place(int channels, int depth, int maxval)
{
    return channels == 3 && depth == 8 && maxval == 255;
}

unsigned long long plan_load(const source_reader *in, unsigned long long plane_set)
{
    const io_header *h = &in->head;
    const unsigned long long samples = (unsigned long long)h->width *
                                       (unsigned long long)h->height *
                                       (unsigned long long)h->channels *
                                       (unsigned long long)(h->depth / 8);
    /* Decoding holds the input's bytes (source_reader's held) and the samples; the input is
     * released before the planes are made. */
    const unsigned long long decoding = (unsigned long long)in->held + samples;
    return max2(decoding, plan_in_place(h->channels, h->depth, h->maxval) ? plane_set
                                                                          : samples + plane_set);
}

void plan_make(const tc_options *o, int width, int height, const tc_roi *roi,
               const source_reader *in, int depth, const tc_device_info *dev, run_plan *p)
{
    const unsigned long long n = (unsigned long long)width * (unsigned long long)height;
    const unsigned long long planes = o->color ? 3 : 1;
    const unsigned long long plane_set = planes * n * sizeof(float);
    const unsigned long long roi_bytes =
        (unsigned long long)roi->width * (unsigned long long)roi->height * sizeof(float);
    const int timed = o->timing || o->format != TC_FORMAT_TABLE;
    const int two_pass = o->all_algorithms || o->algorithm == TC_TWOPASS;

    p->plane = (unsigned long long)tc_device_pitch(width) * (unsigned long long)height *
               sizeof(float);
    /* Image objects (storage.h): the source plane's image for --storage image and bilinear,
     * and bilinear's temporary image of the ROI's size; -a all --storage image runs both. */
    const int image = o->storage == TC_STORAGE_IMAGE || o->algorithm == TC_BILINEAR;
    const int bilinear = o->algorithm == TC_BILINEAR || (o->all_algorithms && image);
    /* The device: the input and output planes (and the two-pass temporary) while filtering;
     * before that, for the timings, the copy floor's two buffers of the ROI's bytes. */
    /* The tiled kernel's split variant keeps a plane of the ROI's height between its passes,
     * in the buffer twopass's temporary uses (the larger of the two with -a all). */
    tc_kernel_about k;
    tc_kernel_describe(&o->filter, TC_TILED, o->kernel, &k);
    const int split = (o->all_algorithms || o->algorithm == TC_TILED) && k.variant &&
                      strcmp(k.variant, "split") == 0;
    const unsigned long long split_bytes =
        split ? (unsigned long long)tc_device_pitch(width) * (unsigned long long)roi->height *
                    sizeof(float)
              : 0;
    p->device = max2(timed ? 2 * roi_bytes : 0,
                     2 * p->plane + max2(two_pass ? roi_bytes : 0, split_bytes) +
                         (image ? p->plane : 0) + (bilinear ? roi_bytes : 0));

    /* Reading (plan_load): the file's bytes and its decoded samples while decoding; then the
     * planes, made in the samples' memory for 8-bit RGB (with --color the G and B planes are
     * made beside it first), else beside the samples. -g makes its planes directly. */
    const unsigned long long load = in ? plan_load(in, plane_set) : plane_set;
    /* Filtering: one algorithm filters its input planes in place; -a all keeps the input,
     * an output and the first algorithm's output for the files. -e adds the reference. */
    unsigned long long run = plane_set * (o->all_algorithms ? 3 : 1) + (o->verify ? plane_set : 0);
    /* The library's host copy of a plane with padded rows, kept by its context. */
    if (tc_device_pitch(width) != width)
        run += p->plane;
    /* Writing: the image (8 or 16 bits a sample) is made whole before it is written; a BMP
     * file is written from it as it is, while the other encoders (and -o -, which writes only
     * a whole image) may hold as much again. */
    if (o->write_output) {
        const unsigned long long image = n * (o->color ? 3 : 1) * (unsigned long long)(depth / 8);
        const int encoded_apart =
            o->image_format != IO_FORMAT_BMP || outputs_is_stdout(o->output);
        run += image * (encoded_apart ? 2 : 1);
    }
    if (o->gradient) {
        /* --gradient (cli/gradient_run.c): the device holds the input, the magnitude and, for
         * --raw or the two filters apart, gx and gy. The host the input plane (which takes
         * the magnitude when one method runs), gx and gy for --raw, a second method's
         * outputs and the magnitude apart from the input when both run, the reference's
         * outputs and its own gx and gy for -e. */
        const int compare = o->gradient_compare || timed, raw = o->raw_output != NULL;
        const unsigned long long plane = n * sizeof(float);
        p->device = max2(timed ? 2 * roi_bytes : 0, (raw || compare ? 4 : 2) * p->plane);
        run = plane * (1 + (raw ? 2 : 0) + (compare ? (raw ? 4 : 2) : 0) + (o->verify ? 3 : 0));
        if (tc_device_pitch(width) != width)
            run += p->plane;
        if (o->write_output)
            run += n * (unsigned long long)(depth / 8) *
                   (o->image_format != IO_FORMAT_BMP || outputs_is_stdout(o->output) ? 2 : 1);
    }
    p->host_device = dev->is_cpu ? p->device : 0;
    p->host_own = max2(load, run);
    p->max_memory = o->max_memory;
}

int plan_check(const run_plan *p, const tc_device_info *dev, const char *what, char *err,
               size_t err_size)
{
    /* The device's fixed limits, each message with what, the need and the limit in MB and
     * the device's name. */
    const struct {
        unsigned long long need, limit;
        const char *format;
    } device_limits[] = {
        {p->plane, dev->max_alloc_bytes,
         "%s: one plane needs %.1f MB on the device, more than the %.1f MB %s allows in one "
         "buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE)"},
        {p->device, dev->global_mem_bytes,
         "%s: the run needs %.1f MB of device memory, more than the %.1f MB %s has "
         "(CL_DEVICE_GLOBAL_MEM_SIZE)"},
    };
    for (size_t i = 0; i < sizeof device_limits / sizeof device_limits[0]; i++)
        if (device_limits[i].need > device_limits[i].limit) {
            snprintf(err, err_size, device_limits[i].format, what, tc_mb(device_limits[i].need),
                     tc_mb(device_limits[i].limit), dev->name);
            return 2;
        }
    tc_host_room room;
    tc_host_room_now(&room);
    const int budget = p->max_memory && p->max_memory < room.bytes;
    if (budget) { /* the user's budget: a request this run cannot meet, as a fixed limit */
        room.bytes = p->max_memory;
        room.limit = "--max-memory";
    }
    const unsigned long long need = p->host_own + p->host_device;
    const unsigned long long spent = budget ? plan_spent() : PLAN_PLATFORM_RESERVE;
    if (need + spent > room.bytes) {
        char device_part[96] = "";
        if (p->host_device)
            snprintf(device_part, sizeof device_part, " (%.1f MB of it the CPU device's buffers)",
                     tc_mb(p->host_device));
        snprintf(err, err_size,
                 "%s: the run needs %.1f MB of host memory%s and %.1f MB for the OpenCL "
                 "platform%s, but %.1f MB is available (%s)",
                 what, tc_mb(need), device_part, tc_mb(spent),
                 budget ? " and what the process holds" : "", tc_mb(room.bytes), room.limit);
        return budget ? 2 : 1;
    }
    return 0;
}

void plan_io_limits(const tc_options *o, io_limits *lim)
{
    io_limits_default(lim);
    lim->max_pixels = o->max_pixels;
    lim->allow_high_ratio = o->allow_high_ratio;
    lim->pixels_hint = "--max-pixels";
    lim->ratio_hint = "--allow-high-ratio";
}

unsigned long long plan_spent(void)
{
    const unsigned long long held = PLAN_RUN_MARGIN + tc_host_resident();
    return held > PLAN_PLATFORM_RESERVE ? held : PLAN_PLATFORM_RESERVE;
}

size_t plan_room_now(const tc_options *o, size_t room)
{
    const unsigned long long spent = plan_spent();
    const unsigned long long left = o->max_memory > spent ? o->max_memory - spent : 0;
    return left < room ? (size_t)left : room;
}

int plan_check_budget(const tc_options *o, char *err, size_t err_size)
{
    const unsigned long long least = PLAN_RUN_MARGIN + tc_host_resident();
    if (!o->max_memory || o->no_filter || o->max_memory > least)
        return 0;
    snprintf(err, err_size,
             "--max-memory %llu bytes (%.1f MB): less than the %.1f MB any run takes before "
             "its first image (%.1f MB the process holds, %.1f MB kept for the OpenCL "
             "platform's growth; the platform's own bytes come on top); give at least %lluM",
             o->max_memory, tc_mb(o->max_memory), tc_mb(least), tc_mb(least - PLAN_RUN_MARGIN),
             tc_mb(PLAN_RUN_MARGIN), (least + (1ULL << 20) - 1) / (1ULL << 20) + 1);
    return 2;
}

int plan_check_host(const char *what, unsigned long long bytes, char *err, size_t err_size)
{
    tc_host_room room;
    tc_host_room_now(&room);
    if (bytes + PLAN_PLATFORM_RESERVE <= room.bytes)
        return 0;
    snprintf(err, err_size,
             "%s: the image needs %.1f MB of host memory and %.1f MB for the OpenCL platform, "
             "but %.1f MB is available (%s)",
             what, tc_mb(bytes), tc_mb(PLAN_PLATFORM_RESERVE), tc_mb(room.bytes), room.limit);
    return 1;
}
