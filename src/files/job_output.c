/* job_output.c - one image checked (-e) and its outputs encoded and staged (job_output.h). */
#include "job_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jpeg_coefs_write.h"
#include "outputs.h"
#include "sha256.h"
#include "text.h"
#include "compare.h"

/* ---- -e ------------------------------------------------------------------------------------- */

/* The SHA-256 of the 8-bit pixels the image gets (as one run's record has it). */
static void digest_job(const tc_options *o, job *j, const tc_plane *planes, int count)
{
    const size_t n = (size_t)j->src.width * (size_t)j->src.height * (size_t)count;
    uint8_t *bytes = malloc(n);
    if (!bytes)
        return; /* the record says null; the image is still checked and written */
    tc_planes_to_samples(planes, count, 8, &j->roi, o->out_scale, o->out_offset, bytes);
    sha256_hex(bytes, n, j->sha256);
    free(bytes);
}

/* One plane against its reference: the largest difference and the tolerance kept, and a
 * mismatch failing the job with a line that names the plane (name NULL: the only one). */
static void compare_plane(job *j, const tc_plane *want, const tc_plane *got, double tol,
                          const char *name)
{
    const tc_verify_result v = verify_compare(want, got, &j->roi, tol, NULL, 0);
    j->max_error = v.max_error > j->max_error ? v.max_error : j->max_error;
    j->tolerance = tol > j->tolerance ? tol : j->tolerance;
    if (v.mismatches && j->status == JOB_OK) {
        char why[256];
        snprintf(why, sizeof why, "verification FAILED: %ld mismatches%s%s (largest "
                                  "difference %.3g, tolerance %.3g)",
                 v.mismatches, name ? " in plane " : "", name ? name : "", v.max_error, tol);
        job_fail(j, JOB_FAILED, why);
    }
}

/* -e for --gradient: the magnitude (and with --raw gx and gy) against the reference. */
static void check_gradient(const tc_options *o, job *j, const tc_params *p)
{
    const int w = j->src.width, h = j->src.height, raw = j->n_planes == 3;
    const size_t n = (size_t)w * (size_t)h;
    const tc_gradient_operator op = (tc_gradient_operator)(o->gradient - 1);
    char err[512];
    float *want = malloc(n * (size_t)j->n_planes * sizeof(float));
    if (!want) {
        job_fail(j, JOB_FAILED, "out of host memory for the reference");
        return;
    }
    float *want_m = want + (raw ? 2 * n : 0);
    if (tc_gradient_reference(j->host_planes, raw ? want : NULL, raw ? want + n : NULL, want_m,
                              w, h, op, p, err, sizeof err) != TC_OK) {
        job_fail(j, JOB_FAILED, err);
        free(want);
        return;
    }
    double tol_g = 0.0;
    const double tol_m = tc_gradient_tolerance(j->host_planes, w, h, op, p, &tol_g);
    static const char *const names[3] = {"gx", "gy", "magnitude"};
    for (int c = 0; c < j->n_planes; c++) {
        const tc_plane e = {w, h, want + (size_t)c * n}, a = {w, h, j->planes + (size_t)c * n};
        const int is_m = c == j->n_planes - 1;
        compare_plane(j, &e, &a, is_m ? tol_m : tol_g, raw ? names[c] : NULL);
    }
    free(want);
}

void job_check(const tc_options *o, job *j)
{
    const int w = j->src.width, h = j->src.height;
    const size_t n = (size_t)w * (size_t)h;
    tc_params p;
    char err[512];
    if (j->status != JOB_OK || !j->planes || !j->host_planes)
        return;
    options_params(o, &j->roi, &p);
    j->checked = 1;
    if (o->gradient) {
        check_gradient(o, j, &p);
        const tc_plane m = {w, h, j->planes + (j->n_planes == 3 ? 2 * n : 0)};
        if (j->status == JOB_OK)
            digest_job(o, j, &m, 1);
        return;
    }
    float *expected = malloc(n * sizeof *expected);
    if (!expected) {
        job_fail(j, JOB_FAILED, "out of host memory for the reference");
        return;
    }
    static const char *const names[3] = {"R", "G", "B"};
    for (int c = 0; c < j->n_planes && j->status == JOB_OK; c++) {
        const tc_plane in = {w, h, j->host_planes + c * n}, got = {w, h, j->planes + c * n};
        const tc_plane want = {w, h, expected};
        if (tc_reference(in.px, expected, w, h, &p, err, sizeof err) != TC_OK) {
            job_fail(j, JOB_FAILED, err);
            break;
        }
        compare_plane(j, &want, &got, tc_tolerance(in.px, w, h, &p),
                      j->n_planes > 1 ? names[c] : NULL);
    }
    free(expected);
    if (j->status == JOB_OK) {
        tc_plane planes[3];
        for (int c = 0; c < j->n_planes; c++)
            planes[c] = (tc_plane){w, h, j->planes + c * n};
        digest_job(o, j, planes, j->n_planes);
    }
}

/* ---- Writing -------------------------------------------------------------------------------- */

/* The image file's bytes into f: the BMP the lane made as it is, packed rows through the
 * format's encoder, or float planes through the 8- or 16-bit mapping and then the encoder.
 * 0, or -1 with "PATH: reason" in err. */
static int write_image(const tc_options *o, const job *j, FILE *f, char *err, size_t err_size)
{
    const int w = j->src.width, h = j->src.height;
    const size_t n = (size_t)w * (size_t)h;
    const char *path = j->item->output;
    text_shown shown;
    if (j->coefs_done) /* the JPEG path: the entropy coding of the device's coefficients */
        return jpeg_coefs_encode(f, &j->coefs_out, o->quality, text_show(path, &shown), err,
                                 err_size);
    if (j->planes) {
        /* --gradient: the image is the magnitude, the last plane. */
        const int count = o->gradient ? 1 : j->n_planes;
        const float *first = j->planes + (o->gradient && j->n_planes == 3 ? 2 * n : 0);
        tc_plane planes[3];
        io_image img;
        for (int c = 0; c < count; c++)
            planes[c] = (tc_plane){w, h, (float *)first + (size_t)c * n};
        if (outputs_image_from_planes(o, planes, count, &j->roi, j->depth, &img)) {
            snprintf(err, err_size, "%s: out of host memory", text_show(path, &shown));
            return -1;
        }
        const int rc = io_encode(f, j->out_format, &img, o->quality, text_show(path, &shown),
                                 err, err_size);
        io_image_free(&img);
        return rc;
    }
    if (j->out_pixels) {
        const io_image img = {w, h, o->color ? 3 : 1, j->depth, j->depth == 16 ? 65535 : 255,
                              j->out, NULL};
        return io_encode(f, j->out_format, &img, o->quality, text_show(path, &shown), err,
                         err_size);
    }
    if (fwrite(j->out, 1, j->out_size, f) != j->out_size) {
        snprintf(err, err_size, "%s: write error: %s", text_show(path, &shown), strerror(errno));
        return -1;
    }
    return 0;
}

/* A staged file opened in the output's folder, without a name where the file system allows.
 * 0, or -1 with the reason in err. */
static int stage_file(atomic_file *af, const char *path, char *err, size_t err_size)
{
    if (atomic_file_open(af, path, err, err_size))
        return -1;
    af->sync_folder = 0; /* the batch syncs its folder once, at the end */
    return 0;
}

/* Flushed to the kernel, so that the waiter's fsync has only the disk to wait for. */
static int flush_file(atomic_file *af, char *err, size_t err_size)
{
    if (fflush(af->f) == 0)
        return 0;
    text_shown shown;
    snprintf(err, err_size, "%s: write error: %s", text_show(af->path, &shown), strerror(errno));
    return -1;
}

/* Standard output (a run of one image, -o -): written whole at once. */
static void write_stdout(const tc_options *o, job *j)
{
    char err[768];
    int rc;
    if (j->out && !j->out_pixels) {
        rc = outputs_put_bytes(j->item->output, j->out, j->out_size, OUTPUTS_SYNC_NONE, err,
                               sizeof err);
    } else {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        rc = !f || write_image(o, j, f, err, sizeof err) ? -1 : 0;
        if (f && fclose(f) != 0 && rc == 0) {
            snprintf(err, sizeof err, "-o -: out of host memory for the encoded image");
            rc = -1;
        }
        if (!f)
            snprintf(err, sizeof err, "-o -: out of host memory for the encoded image");
        if (rc == 0)
            rc = outputs_put_bytes(j->item->output, (const uint8_t *)buf, len,
                                   OUTPUTS_SYNC_NONE, err, sizeof err);
        free(buf);
    }
    if (rc)
        job_fail_named(j, JOB_FAILED, err);
}

/* --raw's file staged: the float planes as they came back (--gradient: gx, gy, magnitude).
 * 0, or -1 with "--raw PATH: reason" in err. */
static int stage_raw(const job *j, atomic_file *af, char *err, size_t err_size)
{
    const size_t n = (size_t)j->src.width * (size_t)j->src.height;
    tc_plane planes[3];
    char why[700] = "";
    for (int c = 0; c < j->n_planes; c++)
        planes[c] = (tc_plane){j->src.width, j->src.height, j->planes + (size_t)c * n};
    if (stage_file(af, j->item->raw, why, sizeof why) == 0 &&
        outputs_raw_stream(af->f, planes, j->n_planes) == 0 &&
        flush_file(af, why, sizeof why) == 0)
        return 0;
    if (!why[0]) {
        text_shown shown;
        snprintf(why, sizeof why, "%s: write error: %s", text_show(j->item->raw, &shown),
                 strerror(errno));
    }
    snprintf(err, err_size, "--raw %s", why);
    return -1;
}

void job_stage(const tc_options *o, job *j)
{
    commit_item *c = &j->commit;
    char err[768] = "";
    c->files[0] = (atomic_file)ATOMIC_FILE_INIT;
    c->files[1] = (atomic_file)ATOMIC_FILE_INIT;
    c->flags[0] = "";
    c->flags[1] = "--raw ";
    if (j->status != JOB_OK || j->in_strips) /* strips wrote their files themselves */
        return;
    if (j->item->output && j->out_format == IO_FORMAT_JPEG)
        j->jpeg_encode = j->coefs_done ? "device" : "cpu";
    if (j->item->output && outputs_is_stdout(j->item->output)) {
        write_stdout(o, j);
        return;
    }
    if (j->item->output &&
        (stage_file(&c->files[0], j->item->output, err, sizeof err) ||
         write_image(o, j, c->files[0].f, err, sizeof err) ||
         flush_file(&c->files[0], err, sizeof err)))
        goto fail;
    if (j->item->raw && j->planes && stage_raw(j, &c->files[1], err, sizeof err))
        goto fail;
    return;
fail:
    atomic_file_discard(&c->files[0]);
    atomic_file_discard(&c->files[1]);
    c->files[0] = (atomic_file)ATOMIC_FILE_INIT;
    c->files[1] = (atomic_file)ATOMIC_FILE_INIT;
    job_fail_named(j, JOB_FAILED, err);
}
