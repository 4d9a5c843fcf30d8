/*
 * main.c - tiledconv's command line, a thin layer on the library (include/tiledconv.h): parse
 * the options, read the input, open a context, filter with the chosen algorithm(s), check
 * against the CPU reference, report, write the output. Nothing here computes pixels.
 */
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "atomic_file.h"
#include "batch.h"
#include "batch_report.h"
#include "batch_state.h"
#include "detach.h"
#include "devices.h"
#include "help.h"
#include "inputs.h"
#include "option_parse.h"
#include "outputs.h"
#include "plan.h"
#include "pyramid_run.h"
#include "report.h"
#include "study.h"
#include "test_hooks.h"
#include "tiledconv.h"

/* -l: every platform and its devices, with the flags that select each. With --json, one record
 * a device with its limits in bytes, for scripts (the tests size their oversized images from
 * max_alloc_bytes and global_mem_bytes); "default" marks the device a run opens without -p, -d
 * or --device: the first GPU, else the first device. */
static int list_devices(const tc_options *o)
{
    tc_device_info *list = NULL;
    char err[512] = "";
    int count = 0, status = tc_list_devices(NULL, 0, &count, err, sizeof err);
    if (status == TC_OK && count > 0 && !(list = calloc((size_t)count, sizeof *list)))
        status = TC_ENOMEM;
    if (status == TC_OK && count > 0)
        status = tc_list_devices(list, count, &count, err, sizeof err);
    if (status != TC_OK) {
        fprintf(stderr, "tiledconv: %s\n", err[0] ? err : "out of host memory");
        free(list);
        return 1;
    }
    int chosen = 0;
    while (chosen < count && !list[chosen].is_gpu)
        chosen++;
    if (chosen == count)
        chosen = 0;
    if (count == 0 && o->format != TC_FORMAT_JSON)
        printf("no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)\n");
    for (int i = 0; i < count; i++) {
        const tc_device_info *d = &list[i];
        if (o->format == TC_FORMAT_JSON) {
            report_device_json(stdout, d, i == chosen);
            continue;
        }
        if (i == 0 || d->platform != list[i - 1].platform)
            printf("platform %d: %s (%s)\n", d->platform, d->platform_name, d->platform_version);
        printf("  device %d: %s [%s, %u compute units, %.1f GiB]  (-p %d -d %d)\n", d->device,
               d->name, d->is_gpu ? "GPU" : d->is_cpu ? "CPU" : "other", d->compute_units,
               (double)d->global_mem_bytes / (1024.0 * 1024.0 * 1024.0), d->platform,
               d->device);
    }
    free(list);
    return 0;
}

/* Whether the process may end without closing its contexts: not in the sanitizer builds,
 * whose leak check runs at exit, nor in a test build with TILEDCONV_CLEAN_EXIT set (to
 * measure the difference, docs/benchmarks.md; test_hooks.h). */
static int fast_exit(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return 0;
#else
    return !test_hook_clean_exit();
#endif
}

/* With fast: every output is written and renamed (and synced unless --no-sync), so the
 * process ends now, without the driver's teardown of the contexts (a CUDA context takes tens
 * of ms to destroy), the exit handlers, or freeing what the process's end frees anyway; a run
 * in a child (detach.h) tells the waiting process first, which ends at once. Returns status
 * otherwise. */
static int end_now(int status, int fast)
{
    if (fast) {
        detach_end(status, outputs_stdout_fd());
        fflush(stdout);
        fflush(stderr);
        _exit(status);
    }
    return status;
}

/* A run that opens a device and ends fast goes on in a child, so that the shell has its
 * status without waiting for the driver's teardown (detach.h); --tune detach=0 keeps one
 * process. Where the fork fails, the run goes on here. */
static void detach_device_run(const tc_options *o, int fast)
{
    if (fast && !o->no_filter && !o->tuning.no_detach)
        (void)detach_start(batch_process_age_ms());
}

/* Whether one image is studied (every figure, the check, the comparison) rather than run
 * through the batch pipeline that a plain file-to-file run takes. */
static int wants_study(const tc_options *o)
{
    return o->synth_width || o->timing || o->iterations > 1 || o->all_algorithms ||
           o->verify || o->verbose || o->raw_output || o->format != TC_FORMAT_TABLE ||
           o->class_map || o->gradient;
}

int main(int argc, char **argv)
{
    tc_options o;
    batch_list list;
    char requests[TC_MAX_DEVICES][64], err[1024];
    int status, n_requests = 0;

    /* A file-size limit (ulimit -f) then fails the write with EFBIG, which is reported in one
     * line with nothing left behind, instead of killing the tool mid-write. */
    signal(SIGXFSZ, SIG_IGN);
    /* A reader of stdout or stderr that goes away (`2>&1 | head -0`) makes the writes fail with
     * EPIPE rather than end the run: a batch goes on with its images, and its exit status
     * says what the lost lines would have said. */
    signal(SIGPIPE, SIG_IGN);
    /* The umask is read once, before any thread, and never changed (atomic_file.h). */
    atomic_file_read_umask();
    test_hooks_install();
    if ((status = cli_parse(argc, argv, &o, stderr)) != 0)
        return status;
    if (o.help) {
        cli_usage(stdout);
        return 0;
    }
    if (o.version) {
        printf("tiledconv %s%s\n", tc_version(), test_hooks_note());
        return 0;
    }
    if (o.list_devices)
        return list_devices(&o);
    io_set_jpeg_sampling(o.sampling); /* before any thread encodes */
    tc_set_tuning(&o.tuning);         /* before any context runs */
    /* A budget the platform alone would pass is refused before the platform opens. */
    if ((status = plan_check_budget(&o, err, sizeof err)) != 0) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return status;
    }
    /* Under a budget, freed images go back to the system: glibc's threshold for mapping a
     * block grows to the largest freed (up to 32 MB), and below it what is freed stays
     * resident in the heaps, counted against the budget by the next plan. */
#ifdef M_MMAP_THRESHOLD
    if (o.max_memory)
        (void)mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    /* -o -: standard output is the image's alone from here on; every report goes to stderr. */
    if (o.write_output && outputs_is_stdout(o.output) && outputs_claim_stdout(err, sizeof err)) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 1;
    }
    /* Before the first OpenCL call (resolving -d lists the platforms): an OpenCL platform
     * whose threads have started does not survive a fork. */
    const int fast = fast_exit();
    if (!o.pyramid)
        detach_device_run(&o, fast);
    o.age_before_ms = detach_age_before_ms();
    if ((status = devices_resolve(&o, requests, &n_requests, err, sizeof err)) != 0) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return status;
    }
    if (o.pyramid && n_requests > 1) {
        fprintf(stderr, "tiledconv: --pyramid runs on one device; -d and --device name %d\n",
                n_requests);
        return 2;
    }
    if (o.pyramid) /* a scale space of each input (cli/pyramid_run.c) */
        return pyramid_run(&o, requests[0]);
    if (o.synth_width)
        return end_now(study(&o, NULL, requests[0], fast), fast);
    if ((status = inputs_gather(&o, &list, err, sizeof err)) != 0) {
        fprintf(stderr, "tiledconv: %s\n", err);
        inputs_free(&list);
        return status;
    }
    if (o.class_map && inputs_is_batch(&o, &list)) {
        fprintf(stderr, "tiledconv: --class-map draws one image's work-groups; give one input, "
                        "not a batch\n");
        inputs_free(&list);
        return 2;
    }
    const batch_reporter r = batch_reporter_cli(&o);
    if (!inputs_is_batch(&o, &list) && wants_study(&o) && !o.no_filter)
        status = study(&o, list.items[0].input, requests[0], fast);
    else
        status = batch_run(&o, &list, requests, n_requests,
                           fast ? BATCH_END_KEEP : BATCH_END_CLOSE, &r);
    if (fast)
        return end_now(status, fast);
    inputs_free(&list);
    return status;
}
