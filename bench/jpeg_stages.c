/*
 * jpeg_stages.c - what each stage of a JPEG photo costs, on one CPU thread and on the device:
 * the whole decode (TurboJPEG, the CPU path) against the entropy decoding alone (libjpeg's
 * coefficients, what a worker keeps when the device does the rest), the whole encode against
 * the entropy coding alone (from coefficients), and the device's decode (coefficients up,
 * inverse DCT, upsampling, colour conversion, pixels in device memory) and encode (pixels in
 * device memory to coefficients, down). The photos are made here (seeded: smooth shading,
 * texture, edges), COUNT of WxH, written at quality 90 with 4:2:0 chroma, as a camera's, or
 * read from the JPEG files named (bench/make_photos.py's, the batch benchmarks' photos); the
 * outputs at quality 95, 4:2:0, as the batch benchmarks write them. Each line: ms an image,
 * min / median / max over PASSES passes of every photo. A diagnostic of the device JPEG path,
 * not a scenario of bench/run.
 *
 *   make build/jpeg_stages
 *   build/jpeg_stages [DEVICE [COUNT [WxH]]]     DEVICE as --device (default gpu), 20, 1920x1080
 *   build/jpeg_stages DEVICE --files A.jpg ...    colour photos of one size
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <turbojpeg.h>

#include "codec.h"
#include "device.h"
#include "jpeg.h"
#include "jpeg_coefs.h"
#include "jpeg_coefs_write.h"
#include "jpeg_decode.h"
#include "jpeg_encode.h"
#include "programs.h"

#define PASSES 5

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A photo-like picture: shading, a texture of seeded noise, a few hard edges. */
static unsigned char *make_picture(int w, int h, unsigned seed)
{
    unsigned char *px = malloc((size_t)w * (size_t)h * 3);
    unsigned s = seed * 2654435761u + 1;
    if (!px)
        return NULL;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            s = s * 1103515245u + 12345u;
            const int noise = (int)((s >> 16) & 31) - 16;
            const int edge = ((x / 97 + y / 61) & 1) * 60;
            for (int c = 0; c < 3; c++) {
                const int v = (x * (c + 1) * 255 / w + y * (3 - c) * 255 / h) / 3 + edge + noise;
                px[((size_t)y * (size_t)w + (size_t)x) * 3 + (size_t)c] =
                    (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
    return px;
}

typedef struct {
    unsigned char *file;
    unsigned long size;
} photo;

/* The named files, which must be colour JPEGs of one size (*w x *h). */
static int read_photos(photo *p, char **names, int count, int *w, int *h)
{
    for (int i = 0; i < count; i++) {
        io_header head;
        char err[512];
        FILE *f = fopen(names[i], "rb");
        long size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0)
            size = ftell(f);
        if (size <= 0 || fseek(f, 0, SEEK_SET) != 0 || !(p[i].file = malloc((size_t)size)) ||
            fread(p[i].file, 1, (size_t)size, f) != (size_t)size) {
            fprintf(stderr, "jpeg_stages: %s: cannot read it\n", names[i]);
            if (f)
                fclose(f);
            return -1;
        }
        fclose(f);
        p[i].size = (unsigned long)size;
        if (jpeg_probe(p[i].file, p[i].size, 0, 0, &head, err, sizeof err) ||
            head.channels != 3 || (i > 0 && (head.width != *w || head.height != *h))) {
            fprintf(stderr, "jpeg_stages: %s: %s\n", names[i],
                    err[0] ? err : "not a colour JPEG of the first one's size");
            return -1;
        }
        *w = head.width;
        *h = head.height;
    }
    return 0;
}

static int make_photos(photo *p, int count, int w, int h)
{
    tjhandle tj = tjInitCompress();
    int rc = tj ? 0 : -1;
    for (int i = 0; rc == 0 && i < count; i++) {
        unsigned char *px = make_picture(w, h, (unsigned)i + 50u);
        p[i].file = NULL;
        rc = !px || tjCompress2(tj, px, w, 0, h, TJPF_RGB, &p[i].file, &p[i].size, TJSAMP_420,
                                90, TJFLAG_ACCURATEDCT) != 0
                 ? -1
                 : 0;
        free(px);
    }
    if (tj)
        tjDestroy(tj);
    return rc;
}

/* One stage's figures: ms an image per pass, min / median / max. */
static void report(const char *stage, double *pass_ms, int count)
{
    qsort(pass_ms, PASSES, sizeof *pass_ms, compare_doubles);
    printf("%-44s %8.3f %8.3f %8.3f\n", stage, pass_ms[0] / count, pass_ms[PASSES / 2] / count,
           pass_ms[PASSES - 1] / count);
}

/* PASSES passes of count files written into memory by write, each pass's ms into t. 0, or -1
 * with the writer's message printed. */
typedef int (*jpeg_writer_fn)(FILE *f, const void *what, char *err, size_t err_size);

static int time_writes(jpeg_writer_fn write, const void *what, int count, double *t)
{
    char err[512];
    for (int p = 0; p < PASSES; p++) {
        const double t0 = now_ms();
        for (int i = 0; i < count; i++) {
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            const int failed = !f || write(f, what, err, sizeof err);
            if (f)
                fclose(f);
            free(buf);
            if (failed) {
                fprintf(stderr, "jpeg_stages: %s\n", f ? err : "open_memstream failed");
                return -1;
            }
        }
        t[p] = now_ms() - t0;
    }
    return 0;
}

/* The two writers compared: libjpeg from pixels, and from coefficients (quality 95). */
static int write_pixels(FILE *f, const void *img, char *err, size_t err_size)
{
    return jpeg_encode(f, img, 95, "out", err, err_size);
}

static int write_coefs(FILE *f, const void *coefs, char *err, size_t err_size)
{
    return jpeg_coefs_encode(f, coefs, 95, "out", err, err_size);
}

int main(int argc, char **argv)
{
    const char *request = argc > 1 ? argv[1] : "gpu";
    const int files = argc > 2 && strcmp(argv[2], "--files") == 0;
    const int count = files ? argc - 3 : argc > 2 ? atoi(argv[2]) : 20;
    int w = 1920, h = 1080;
    if (!files && argc > 3 && sscanf(argv[3], "%dx%d", &w, &h) != 2)
        return fprintf(stderr, "jpeg_stages: size WxH\n"), 2;
    if (count < 1 || w < 1 || h < 1)
        return fprintf(stderr, "jpeg_stages: a count and a size of at least 1\n"), 2;
    photo *photos = calloc((size_t)count, sizeof *photos);
    jpeg_coefs *in = calloc((size_t)count, sizeof *in), out;
    io_image img;
    tc_device d;
    tc_program_cache programs;
    tc_jpeg_decoder decoder;
    tc_msg m;
    char err[512];
    double t[PASSES];
    int exact = 1, status = 0;
    cl_int cl_err;
    memset(&programs, 0, sizeof programs);
    memset(&decoder, 0, sizeof decoder);
    memset(&out, 0, sizeof out);
    if (!photos || !in ||
        (files ? read_photos(photos, argv + 3, count, &w, &h) : make_photos(photos, count, w, h)))
        return fprintf(stderr, "jpeg_stages: no photos\n"), 1;
    if (tc_device_open(&d, request, &m) != TC_OK)
        return fprintf(stderr, "jpeg_stages: %s\n", m.text), 1;
    io_set_jpeg_sampling(IO_JPEG_420);
    printf("# %s; %d %s photos of %d x %d (q95 4:2:0 out), %d passes\n", d.info.name, count,
           files ? "named" : "made (q90 4:2:0)", w, h, PASSES);
    printf("%-44s %8s %8s %8s\n", "stage (ms an image)", "min", "median", "max");

    for (int p = 0; p < PASSES; p++) {
        const double t0 = now_ms();
        for (int i = 0; i < count; i++) {
            if (jpeg_decode(photos[i].file, photos[i].size, 0, 0, &img, err, sizeof err))
                return fprintf(stderr, "jpeg_stages: %s\n", err), 1;
            io_image_free(&img);
        }
        t[p] = now_ms() - t0;
    }
    report("cpu: decode whole (TurboJPEG, RGB)", t, count);
    for (int p = 0; p < PASSES; p++) {
        const double t0 = now_ms();
        for (int i = 0; i < count; i++) {
            jpeg_coefs_free(&in[i]);
            if (jpeg_coefs_read(photos[i].file, photos[i].size, 0, 0, 0, &in[i], err,
                                sizeof err) != 0)
                return fprintf(stderr, "jpeg_stages: %s\n", err), 1;
        }
        t[p] = now_ms() - t0;
    }
    report("cpu: entropy decoding alone (coefficients)", t, count);

    const size_t bytes = (size_t)w * (size_t)h * 3;
    cl_mem pixels = clCreateBuffer(d.context, CL_MEM_READ_WRITE, bytes, NULL, &cl_err);
    if (cl_err != CL_SUCCESS)
        return fprintf(stderr, "jpeg_stages: clCreateBuffer: %d\n", cl_err), 1;
    tc_jpeg_times times = {0.0, 0.0, 0.0};
    const tc_jpeg_decode_parts parts = {&d, &programs, &decoder, NULL},
                               timed = {&d, &programs, &decoder, &times};
    for (int p = -1; p < PASSES; p++) { /* pass -1 builds the programs */
        const double t0 = now_ms();
        for (int i = 0; i < count && status == TC_OK; i++)
            status = tc_jpeg_decode(&parts, &in[i], 3, pixels, &exact, &m);
        if (p >= 0)
            t[p] = now_ms() - t0;
    }
    if (status != TC_OK || !exact)
        return fprintf(stderr, "jpeg_stages: device decode: %s\n", exact ? m.text : "not exact"),
               1;
    report("device: decode (coefficients up, pixels made)", t, count);
    for (int i = 0; i < count && status == TC_OK; i++) /* one more pass, with events */
        status = tc_jpeg_decode(&timed, &in[i], 3, pixels, &exact, &m);

    unsigned char *rgb = malloc(bytes);
    if (!rgb || clEnqueueReadBuffer(d.queue, pixels, CL_TRUE, 0, bytes, rgb, 0, NULL, NULL))
        return fprintf(stderr, "jpeg_stages: reading the pixels back failed\n"), 1;
    const io_image decoded = {w, h, 3, 8, 255, rgb, NULL};
    if (time_writes(write_pixels, &decoded, count, t))
        return 1;
    report("cpu: encode whole (libjpeg, q95)", t, count);

    if (jpeg_coefs_layout(w, h, 3, 95, &out, "out", err, sizeof err))
        return fprintf(stderr, "jpeg_stages: %s\n", err), 1;
    for (int p = -1; p < PASSES; p++) {
        const double t0 = now_ms();
        for (int i = 0; i < count && status == TC_OK; i++)
            status = tc_jpeg_encode_coefs(&d, &programs, pixels, &out, NULL, &m);
        if (p >= 0)
            t[p] = now_ms() - t0;
    }
    if (status != TC_OK)
        return fprintf(stderr, "jpeg_stages: device encode: %s\n", m.text), 1;
    report("device: encode (pixels to coefficients, down)", t, count);
    for (int i = 0; i < count && status == TC_OK; i++)
        status = tc_jpeg_encode_coefs(&d, &programs, pixels, &out, &times, &m);
    if (status != TC_OK)
        return fprintf(stderr, "jpeg_stages: device encode: %s\n", m.text), 1;
    printf("%-44s %8.3f up %8.3f kernels %8.3f down (one pass)\n",
           "device: their events (ordinary memory)", times.up_ms / count,
           times.blocks_ms / count, times.down_ms / count);

    if (time_writes(write_coefs, &out, count, t))
        return 1;
    report("cpu: entropy coding alone (from coefficients)", t, count);

    free(rgb);
    clReleaseMemObject(pixels);
    jpeg_coefs_free(&out);
    for (int i = 0; i < count; i++) {
        jpeg_coefs_free(&in[i]);
        if (files)
            free(photos[i].file);
        else
            tjFree(photos[i].file);
    }
    free(in);
    free(photos);
    tc_jpeg_decoder_release(&decoder);
    tc_program_cache_release(&programs);
    tc_device_close(&d);
    return 0;
}
