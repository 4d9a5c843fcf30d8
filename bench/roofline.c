/*
 * bench/roofline.c - the tiled kernels case by case with the planes kept on the device, for
 * bench/roofline.sh: many cases in one process, the device opened once, each image size
 * uploaded once (a 16384 x 16384 colour image is 3 GB: uploading it per case would take longer
 * than every kernel of the sweep). Through the library's launcher (tc_run_resident, the path
 * tc_filter takes once the planes are on the device), so the kernels, their programs and
 * their timing are tc_filter_timed's.
 *
 *   make lib && cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120 \
 *       -Iinclude -Isrc bench/roofline.c build/lib/libtiledconv.a -lOpenCL -lm -lpthread \
 *       -o build/roofline
 *   build/roofline [DEVICE] < cases.txt > records.csv
 *   build/roofline --list      the tiled kernel's variants: NAME separable|mask, one a line
 *   build/roofline --where [DEVICE]   the platform and device indices of the device it opens
 *                              (for clpeak -p P -d D)
 *
 * One case a line, key=value words ('#' lines and blank lines are skipped):
 *   label=NAME     a name for the record (required, no spaces or commas)
 *   g=WxH          image size (default 8192x8192)
 *   planes=1|3     gray, or colour: three planes, three launches a run (as --color), the
 *                  kernel time of a run their sum (default 1)
 *   f=TAPS         filter length along rows and, unless fy= says otherwise, columns (binomial
 *                  coefficients; default 3)
 *   fy=TAPS        the length along columns (1: none)
 *   mask=WxH       a mask that is not rank 1 instead: weights ((3 i + 5 j) mod 7 - 3) / 16
 *   b=BORDER       replicate|constant|reflect101|reflect|wrap (default replicate)
 *   kernel=NAME    the tiled kernel's variant (tc_params.kernel; default: the band's)
 *   roi=sL,sT,tL,tT,W,H   the ROIs (default the whole image)
 *   i=N            timed runs after one warm-up (default 50)
 *   e=1            also compare every pixel of every plane with tc_reference (small images)
 *   tune=NAME=VALUE  a study setting of the library for this case (tc_tuning, e.g.
 *                  dump-program=FILE: the built program, PTX on NVIDIA); repeatable; back to
 *                  the defaults after the case
 *   copy=1         measure the copy of the case's bytes now (otherwise the last copy measured
 *                  for the same bytes is reported, measured at its first case)
 *
 * Output: a CSV header, then one record a case: the case, the variant and kernel function
 * that ran, the median and minimum kernel time of a run (ms), the copy time of the same
 * bytes (clEnqueueCopyBuffer of planes x ROI floats, median of 50 after a warm-up), the
 * multiply-adds a pixel the filter needs (taps_x + taps_y, or a mask's width x height, per
 * plane), the build time of its program, the classes, the verification.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "context.h" /* what a context holds: its device, programs and buffers */
#include "launch.h"
#include "params.h" /* tc_job_from_params */
#include "tiledconv.h"

#define MAX_PLANES 3

/* The planes of the current size on the device (src, dst per plane) and on the host. */
static struct {
    int w, h, planes;
    cl_mem src[MAX_PLANES], dst[MAX_PLANES];
    float *host[MAX_PLANES];
} img;

/* Copy times already measured, by bytes. */
static struct {
    size_t bytes;
    double ms;
} copies[64];
static int n_copies;

static void release_image(void)
{
    for (int p = 0; p < MAX_PLANES; p++) {
        if (img.src[p])
            clReleaseMemObject(img.src[p]);
        if (img.dst[p])
            clReleaseMemObject(img.dst[p]);
        free(img.host[p]);
    }
    memset(&img, 0, sizeof img);
}

/* A deterministic plane with a fractional part everywhere, shifted per plane. */
static void fill_plane(float *px, int w, int h, int pitch, int plane)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < pitch; x++) {
            unsigned v = (unsigned)(y * w + x + plane * 7919) * 2654435761u;
            v ^= v >> 13;
            px[(size_t)y * pitch + x] = x < w ? (float)(v % 25600u) / 100.0f + 0.25f : 0.0f;
        }
}

/* The image of this size and plane count on the device (made once, kept while cases ask for
 * the same). dst starts as src (the pixels outside a tROI keep the source's). */
static int make_image(const tc_device *d, int w, int h, int planes)
{
    if (img.w == w && img.h == h && img.planes >= planes)
        return 0;
    release_image();
    const int pitch = tc_device_pitch(w);
    const size_t bytes = (size_t)pitch * (size_t)h * sizeof(float);
    cl_int err;
    for (int p = 0; p < planes; p++) {
        img.host[p] = malloc(bytes);
        img.src[p] = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (!img.host[p] || err != CL_SUCCESS)
            return -1;
        img.dst[p] = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (err != CL_SUCCESS)
            return -1;
        fill_plane(img.host[p], w, h, pitch, p);
        if (clEnqueueWriteBuffer(d->queue, img.src[p], CL_TRUE, 0, bytes, img.host[p], 0, NULL,
                                 NULL) != CL_SUCCESS ||
            clEnqueueCopyBuffer(d->queue, img.src[p], img.dst[p], 0, 0, bytes, 0, NULL, NULL) !=
                CL_SUCCESS)
            return -1;
    }
    img.w = w;
    img.h = h;
    img.planes = planes;
    return clFinish(d->queue) == CL_SUCCESS ? 0 : -1;
}

static int border_of(const char *s, tc_border *b)
{
    for (int i = 0; i <= TC_BORDER_WRAP; i++)
        if (strcmp(s, tc_border_name((tc_border)i)) == 0) {
            *b = (tc_border)i;
            return 0;
        }
    return -1;
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every pixel of plane p against tc_reference on the host copy (rows unpadded). */
static int verify_plane(const tc_device *d, const tc_params *params, int p, double *worst)
{
    const int w = img.w, h = img.h, pitch = tc_device_pitch(w);
    float *in = malloc((size_t)w * h * sizeof *in), *out = malloc((size_t)w * h * sizeof *out);
    float *expected = malloc((size_t)w * h * sizeof *expected);
    float *padded = malloc((size_t)pitch * h * sizeof *padded);
    char err[256];
    long bad = -1;
    if (in && out && expected && padded &&
        clEnqueueReadBuffer(d->queue, img.dst[p], CL_TRUE, 0, (size_t)pitch * h * sizeof(float),
                            padded, 0, NULL, NULL) == CL_SUCCESS) {
        for (int y = 0; y < h; y++) {
            memcpy(in + (size_t)y * w, img.host[p] + (size_t)y * pitch, (size_t)w * sizeof(float));
            memcpy(out + (size_t)y * w, padded + (size_t)y * pitch, (size_t)w * sizeof(float));
        }
        const double tol = tc_tolerance(in, w, h, params);
        if (tc_reference(in, expected, w, h, params, err, sizeof err) == TC_OK) {
            bad = 0;
            for (size_t i = 0; i < (size_t)w * h; i++) {
                const double diff = fabs((double)out[i] - (double)expected[i]);
                bad += !(diff <= tol);
                if (diff > *worst)
                    *worst = diff;
            }
        }
    }
    free(in);
    free(out);
    free(expected);
    free(padded);
    return bad == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    char err[512] = "", line[2048];
    tc_context *ctx = NULL;
    struct {
        tc_device *device;
        tc_program_cache *programs;
        tc_buffers *buffers;
    } parts;
    tc_device_info info;
    int failures = 0;
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        int count;
        const tc_variant *v = tc_variants(&count);
        for (int i = 0; i < count; i++)
            printf("%s %s\n", v[i].name,
                   v[i].kind == TC_KERNEL_TILED_MASK || v[i].kind == TC_KERNEL_TILED_MASK_ROWS
                       ? "mask"
                       : "separable");
        return 0;
    }
    const char *request = argc > 1 && strcmp(argv[1], "--where") != 0 ? argv[1]
                          : argc > 2                                  ? argv[2]
                                                                      : "gpu";
    if (tc_open(request, &ctx, err, sizeof err) != TC_OK) {
        fprintf(stderr, "roofline: %s\n", err);
        return 1;
    }
    parts.device = &ctx->device;
    parts.programs = &ctx->programs;
    parts.buffers = &ctx->buffers;
    tc_context_device(ctx, &info);
    if (argc > 1 && strcmp(argv[1], "--where") == 0) {
        printf("%d %d\n", info.platform, info.device);
        tc_close(ctx);
        return 0;
    }
    fprintf(stderr, "roofline: %s, library %s\n", info.name, tc_version());
    printf("label,size,planes,border,taps_x,taps_y,mask,variant,kernel,iterations,"
           "kernel_ms_median,kernel_ms_min,copy_ms,fma_per_pixel,build_ms,tile,classes,"
           "verified,max_diff,error\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        char label[128] = "", border[32] = "replicate", kernel[64] = "", mask_text[32] = "";
        int w = 8192, h = 8192, planes = 1, taps = 3, taps_y = 0, iterations = 50, verify = 0;
        int mask_w = 0, mask_h = 0, fresh_copy = 0, roi[6] = {0, 0, 0, 0, 0, 0};
        float mask[TC_MAX_MASK_SIZE * TC_MAX_MASK_SIZE];
        char *save = NULL, tune_err[256];
        tc_tuning tuning;
        memset(&tuning, 0, sizeof tuning);
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
            continue;
        for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            if (strncmp(tok, "tune=", 5) == 0) {
                if (tc_tuning_parse(&tuning, tok + 5, tune_err, sizeof tune_err) != 0) {
                    fprintf(stderr, "roofline: %s\n", tune_err);
                    return 2;
                }
                continue;
            }
            if (sscanf(tok, "label=%127s", label) != 1 && sscanf(tok, "g=%dx%d", &w, &h) != 2 &&
                sscanf(tok, "planes=%d", &planes) != 1 && sscanf(tok, "f=%d", &taps) != 1 &&
                sscanf(tok, "fy=%d", &taps_y) != 1 &&
                sscanf(tok, "mask=%dx%d", &mask_w, &mask_h) != 2 &&
                sscanf(tok, "b=%31s", border) != 1 && sscanf(tok, "kernel=%63s", kernel) != 1 &&
                sscanf(tok, "i=%d", &iterations) != 1 && sscanf(tok, "e=%d", &verify) != 1 &&
                sscanf(tok, "copy=%d", &fresh_copy) != 1 &&
                sscanf(tok, "roi=%d,%d,%d,%d,%d,%d", &roi[0], &roi[1], &roi[2], &roi[3], &roi[4],
                       &roi[5]) != 6) {
                fprintf(stderr, "roofline: unknown word '%s'\n", tok);
                return 2;
            }
        }
        tc_set_tuning(&tuning);
        tc_params p;
        tc_params_init(&p);
        p.taps_x = taps;
        p.taps_y = taps_y ? taps_y : taps;
        if (mask_w) {
            if (mask_w > TC_MAX_MASK_SIZE || mask_h > TC_MAX_MASK_SIZE || mask_w < 1 ||
                mask_h < 1) {
                fprintf(stderr, "roofline: mask %dx%d: sides 1..%d\n", mask_w, mask_h,
                        TC_MAX_MASK_SIZE);
                return 2;
            }
            for (int j = 0; j < mask_h; j++)
                for (int i = 0; i < mask_w; i++)
                    mask[j * mask_w + i] = (float)((3 * i + 5 * j) % 7 - 3) / 16.0f;
            p.mask = mask;
            p.mask_width = mask_w;
            p.mask_height = mask_h;
            snprintf(mask_text, sizeof mask_text, "%dx%d", mask_w, mask_h);
        }
        p.src_left = roi[0];
        p.src_top = roi[1];
        p.dst_left = roi[2];
        p.dst_top = roi[3];
        p.roi_width = roi[4];
        p.roi_height = roi[5];
        p.border_value = 7.5f;
        p.kernel = kernel[0] ? kernel : NULL;
        if (!label[0] || border_of(border, &p.border) || planes < 1 || planes > MAX_PLANES ||
            iterations < 1) {
            fprintf(stderr, "roofline: bad case '%s'\n", label);
            return 2;
        }
        tc_job job;
        tc_msg m = {""};
        tc_run_stats st[MAX_PLANES];
        double *run_ms = calloc((size_t)iterations, sizeof *run_ms);
        double copy_ms = -1.0, build_ms = 0.0, worst = 0.0;
        const char *verdict = "";
        int status = run_ms ? tc_job_from_params(&p, w, h, &job, &m)
                            : tc_fail(&m, TC_ENOMEM, "out of host memory");
        memset(st, 0, sizeof st);
        if (status == TC_OK && make_image(parts.device, w, h, planes) != 0)
            status = tc_fail(&m, TC_ENOMEM, "the %dx%d image: out of memory", w, h);
        for (int q = 0; q < planes && status == TC_OK; q++) {
            if (verify)
                clEnqueueCopyBuffer(parts.device->queue, img.src[q], img.dst[q], 0, 0,
                                    (size_t)tc_device_pitch(w) * h * sizeof(float), 0, NULL,
                                    NULL);
            status = tc_run_resident(parts.device, parts.programs, parts.buffers, &job,
                                     img.src[q], img.dst[q], w, h, 1, iterations, &st[q], &m);
            if (status == TC_OK) {
                build_ms += st[q].build_ms;
                for (int i = 0; i < iterations; i++)
                    run_ms[i] += st[q].kernel_ms[i];
            }
        }
        /* The classes from one more run with the kernel's counters: timed with them, the short
         * filters' groups wait on the counters' atomics (3 and 5 taps at 8192^2 took 0.29 ms
         * on the H100 with them, 0.19 ms without). */
        tc_run_stats counted;
        tc_job counting;
        memset(&counted, 0, sizeof counted);
        if (status == TC_OK) {
            p.count_classes = 1;
            status = tc_job_from_params(&p, w, h, &counting, &m);
            if (status == TC_OK)
                status = tc_run_resident(parts.device, parts.programs, parts.buffers, &counting,
                                         img.src[0], img.dst[0], w, h, 1, 1, &counted, &m);
        }
        if (status == TC_OK) {
            const size_t bytes = (size_t)planes * job.roi.width * job.roi.height * sizeof(float);
            int c = 0;
            while (c < n_copies && copies[c].bytes != bytes)
                c++;
            if (c == n_copies || fresh_copy) {
                if (c == n_copies && n_copies < 64)
                    n_copies++;
                else if (c == n_copies)
                    c = 63;
                copies[c].bytes = bytes;
                if (tc_copy_ms(parts.device, bytes, 50, &copies[c].ms, &m) != TC_OK)
                    copies[c].ms = -1.0;
            }
            copy_ms = copies[c].ms;
            if (verify) {
                verdict = "true";
                for (int q = 0; q < planes; q++)
                    if (verify_plane(parts.device, &p, q, &worst) != 0)
                        verdict = "false";
                failures += verdict[0] == 'f';
            }
        }
        qsort(run_ms, (size_t)iterations, sizeof *run_ms, compare_double);
        const double median = iterations % 2 ? run_ms[iterations / 2]
                                             : 0.5 * (run_ms[iterations / 2 - 1] +
                                                      run_ms[iterations / 2]);
        const tc_variant *v = status == TC_OK && job.algorithm == TC_TILED ? tc_variant_of(&job)
                                                                          : NULL;
        tc_tiled_geometry g;
        memset(&g, 0, sizeof g);
        if (status == TC_OK)
            tc_tiled_geometry_of(&job, info.local_mem_bytes, &g);
        /* Commas would split the message's field: semicolons instead. */
        for (char *c = m.text; *c; c++)
            if (*c == ',' || *c == '"')
                *c = ';';
        printf("%s,%dx%d,%d,%s,%d,%d,%s,%s,%s,%d,%.6f,%.6f,%.6f,%d,%.1f,%dx%d,%ld %ld %ld %ld,%s,"
               "%.3g,%s\n",
               label, w, h, planes, border, p.taps_x, p.taps_y, mask_text, v ? v->name : "",
               status == TC_OK ? tc_kernel_name(tc_kernel_of(&job)) : "", iterations,
               status == TC_OK ? median : -1.0, status == TC_OK ? run_ms[0] : -1.0, copy_ms,
               mask_w ? mask_w * mask_h : p.taps_x + p.taps_y, build_ms, g.tile_w, g.tile_h,
               counted.classes[0], counted.classes[1], counted.classes[2], counted.classes[3], verdict,
               worst, status == TC_OK ? "" : m.text);
        fflush(stdout);
        failures += status != TC_OK;
        for (int q = 0; q < planes; q++)
            tc_run_stats_free(&st[q]);
        tc_run_stats_free(&counted);
        free(run_ms);
    }
    release_image();
    tc_close(ctx);
    return failures ? 1 : 0;
}
