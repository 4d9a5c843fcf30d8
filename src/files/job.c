/* job.c - one image of a batch (job.h): its failures, its input opened and decoded, --no-filter's
 * copy, its buffers dropped. The filter is job_filter.c's, the check and the output
 * job_output.c's. */
#include "job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pinned_pool.h"
#include "plan.h"
#include "strips.h"
#include "text.h"

void job_fail(job *j, int status, const char *why)
{
    text_shown shown;
    j->status = status;
    snprintf(j->msg, sizeof j->msg, "%s: %s", text_show(source_name(j->item->input), &shown),
             why);
}

void job_fail_named(job *j, int status, const char *msg)
{
    j->status = status;
    snprintf(j->msg, sizeof j->msg, "%s", msg);
}

void job_drop_input(job *j)
{
    if (j->reader_open)
        source_reader_close(&j->reader);
    j->reader_open = 0;
    io_pixels_free(j->file, j->file_from);
    j->file = NULL;
    j->file_from = NULL;
    bmp_free(&j->decoded);
    io_image_free(&j->image);
    free(j->float_src);
    j->float_src = NULL;
    jpeg_coefs_free(&j->coefs_in);
    strips_release(&j->strips);
}

void job_drop_buffers(job *j)
{
    job_drop_input(j);
    if (j->pool)
        pinned_pool_put(j->pool, j->out); /* malloc's memory is freed there too */
    else
        free(j->out);
    j->out = NULL;
    free(j->planes);
    j->planes = NULL;
    free(j->host_planes);
    j->host_planes = NULL;
    jpeg_coefs_free(&j->coefs_out);
}

/* ---- Reading ----------------------------------------------------------------------------- */

static int pack_pixels(const tc_image *src, int channels, int bgr, uint8_t *out);
static unsigned long long repack_bytes(const tc_options *o, const job *j,
                                       const source_reader *r);
static int streams_samples(const tc_options *o, const job *j);

int job_wants_planes(const tc_options *o, const job *j)
{
    return o->verify || j->item->raw || j->depth == 16 || o->gradient;
}

int job_result_planes(const tc_options *o, const job *j)
{
    if (o->gradient)
        return j->item->raw ? 3 : 1;
    return o->color ? 3 : 1;
}

/* The host bytes the image may hold, from its header (the plan of plan.h, per image): its
 * file's bytes and its decoded samples (none for a BMP whose rows are used as they lie in the
 * file), the float planes made from samples of another scale or depth, the output's bytes (a
 * BMP's file with its row padding; another format's rows and the encoder's copy of them), and
 * the float planes that come back (-e also the host's own and its reference). */
static unsigned long long job_bytes(const tc_options *o, const job *j, const source_reader *r)
{
    const io_header *h = &r->head;
    const unsigned long long n = (unsigned long long)h->width * (unsigned long long)h->height;
    const unsigned long long planes = o->color ? 3 : 1, plane = n * sizeof(float);
    const int bmp = r->format == IO_FORMAT_BMP;
    const unsigned bpp = bmp ? r->bmp.plain_bpp : 0;
    const int as_lies = bmp && (bpp == 8 || bpp == 24 || bpp == 32);
    const int float_src = !bmp && !(h->depth == 8 && h->maxval == 255);
    const unsigned long long out = planes * n * (unsigned long long)(j->depth / 8);
    unsigned long long bytes =
        (unsigned long long)r->held +
        (as_lies ? 0 : n * (unsigned long long)(h->channels * (h->depth / 8))) +
        (float_src ? planes * plane : 0) +
        (j->out_format == IO_FORMAT_BMP ? out + 4ULL * (unsigned long long)h->height + 2048
                                        : 2 * out);
    if (job_wants_planes(o, j))
        bytes += (unsigned long long)job_result_planes(o, j) * plane;
    if (o->verify)
        bytes += (planes + 1) * plane;
    return bytes + repack_bytes(o, j, r);
}

/*
 * Whether the job takes the device's JPEG path (--tune jpeg-device=1): the worker does the
 * entropy decoding alone (the input's coefficients), the lane decodes, filters and encodes on
 * the device from coefficients to coefficients (tc_filter_jpeg), the worker does the entropy
 * coding alone; output files byte for byte the CPU path's. Only where the lane's call is the
 * whole of what the CPU path does between the file's bytes and the output's:
 *   - --tune jpeg-device=1 (0, the default, is the CPU path everywhere);
 *   - a JPEG input written to a JPEG output (-o, -O, standard output; not --no-output, which
 *     encodes nothing), 8 bits (all a JPEG holds);
 *   - whole: not in strips, whose rows are read and written by the CPU's scanline calls;
 *   - filtered by the library's one filter: not --no-filter (no device), not --gradient
 *     (its own call, on planes made on the host);
 *   - the result as the output's 8-bit samples: not -e (float planes, checked against the
 *     CPU reference of the host's planes) and not --raw (float planes written);
 *   - the file's samples are the output's channels: any JPEG for a gray job (its luma), a
 *     colour (three-component) one for a colour job; a gray file in a colour job is decoded
 *     on the CPU and becomes RGB on the worker (repack_colour).
 * The worker may still find the file's pixels to be the CPU's alone (jpeg_coefs_read's 1: a
 * colour space other than YCbCr, coefficients past TurboJPEG's SIMD bounds, a progressive file
 * not fully refined, ...), and the lane may find the device's decode not TurboJPEG's, or the
 * image one tc_filter_image would run in bands or convert on the host: that job then takes
 * the CPU path from there. Called by job_open, the reader open on the header.
 */
int job_jpeg_check_wanted(const tc_options *o, const job *j)
{
    return o->verify && o->tuning.jpeg_device && !o->gradient && !j->in_strips &&
           j->reader.format == IO_FORMAT_JPEG && j->reader.head.channels == (o->color ? 3 : 1);
}

int job_jpeg_device_path(const tc_options *o, const job *j)
{
    return o->tuning.jpeg_device && !o->no_filter && !o->gradient && !job_wants_planes(o, j) &&
           !j->in_strips && j->item->output && j->reader.format == IO_FORMAT_JPEG &&
           j->out_format == IO_FORMAT_JPEG && j->depth == 8 &&
           j->reader.head.channels == (o->color ? 3 : 1);
}

/* The host bytes of a job of the JPEG path's coefficients: each component's blocks, at most
 * the image's size rounded up to the largest MCU (32 pixels: 4:1:1) in 16-bit values, for
 * the input's components and the output's. */
static unsigned long long coef_bytes(const tc_options *o, const io_header *h)
{
    const unsigned long long n = ((unsigned long long)h->width + 31) *
                                 ((unsigned long long)h->height + 31) * sizeof(int16_t);
    return 2ULL * (o->color ? 3 : 1) * n;
}

/* The output's bits per sample: --depth, else 16 for a deep input written where 16 bits fit
 * (PNG, PGM/PPM), else 8. 0, or -1 (the job refused: --depth 16 to a format of 8 bits, which
 * a batch that keeps each input's format can only find per image). */
static int output_depth(const tc_options *o, job *j, int deep)
{
    const int holds16 = io_format_holds_16_bits(j->out_format);
    if (o->depth == 16 && !holds16) {
        char why[160];
        snprintf(why, sizeof why, "--depth 16: %s holds 8-bit samples only (--format png or "
                                  "pnm writes 16 bits)",
                 io_format_name(j->out_format));
        job_fail(j, JOB_REFUSED, why);
        return -1;
    }
    j->depth = o->depth ? o->depth : deep && holds16 ? 16 : 8;
    return 0;
}

/* Whether the device takes this BMP's pixels as they lie in its file: uncompressed 8, 24 or
 * 32-bit rows, padding and all, bottom-up or not (tc_filter_image reads them in place, as
 * views of the same bytes or through its pixel conversions, from page-locked memory with no
 * staging copy); other BMPs are decoded to RGB on the host. */
static int bmp_moves_directly(const job *j)
{
    const unsigned bpp = j->reader.bmp.plain_bpp;
    return bpp == 8 || bpp == 24 || bpp == 32;
}

void job_open(const tc_options *o, int keep_format, job *j)
{
    char why[768];
    io_limits lim;
    plan_io_limits(o, &lim);
    if (source_reader_open(j->item->input, &lim, &j->reader, why, sizeof why)) {
        job_fail_named(j, JOB_REFUSED, why);
        return;
    }
    j->reader_open = 1;
    if (!o->color) /* a gray job: a JPEG's intensity is its own luma, decoded alone */
        source_reader_want_luma(&j->reader);
    j->out_format = keep_format ? j->reader.format : o->image_format;
    if (output_depth(o, j, j->reader.head.maxval > 255)) {
        job_drop_input(j);
        return;
    }
    text_shown shown;
    unsigned long long bytes = job_bytes(o, j, &j->reader);
    if (strips_wanted(o, &j->reader, bytes, j->room)) {
        /* Its lane reads, filters and writes it a band of rows at a time; it may take the
         * whole budget, for which the images in flight make room. */
        int given;
        const char *limit;
        if (o->no_filter) {
            job_fail(j, JOB_REFUSED, "too large to run whole within the memory budget, and "
                                     "--no-filter runs images whole");
            job_drop_input(j);
            return;
        }
        /* Strips decode and encode a JPEG's rows on the CPU (--json's records say so). */
        j->jpeg_decode = j->reader.format == IO_FORMAT_JPEG ? "cpu" : NULL;
        j->jpeg_encode = j->out_format == IO_FORMAT_JPEG && j->item->output ? "cpu" : NULL;
        if ((j->strips = strips_take(&j->reader)) == NULL) {
            job_fail(j, JOB_FAILED, "out of host memory");
            job_drop_input(j);
            return;
        }
        j->reader_open = 0;
        j->in_strips = 1;
        j->bytes = (size_t)strips_budget(o, &given, &limit);
        return;
    }
    /* The JPEG path holds the coefficients both ways besides what the CPU path would hold
     * (its file's bytes are kept until the lane is done, and the CPU path's pixels and
     * output may still be needed there). */
    if ((j->jpeg_path = job_jpeg_device_path(o, j)) != 0 || job_jpeg_check_wanted(o, j))
        bytes += coef_bytes(o, &j->reader.head);
    if (plan_check_host(text_show(source_name(j->item->input), &shown), bytes, why,
                        sizeof why)) {
        job_fail_named(j, JOB_FAILED, why);
        job_drop_input(j);
        return;
    }
    /* Under --max-memory the device's planes count too, as a CPU device holds them in host
     * memory (the batch does not know its devices when it reads). */
    j->bytes = (size_t)(bytes + (o->max_memory ? strips_device_bytes(o, &j->reader) : 0));
    const io_header *hd = &j->reader.head;
    const unsigned long long n = (unsigned long long)hd->width * (unsigned long long)hd->height;
    if (j->jpeg_path) /* its coefficients both ways (and the pixels' blocks, should the lane
                       * decode it on the CPU after all) */
        j->pooled = (size_t)coef_bytes(o, hd);
    else if (j->reader.format != IO_FORMAT_BMP)
        j->pooled = (size_t)(n * (unsigned long long)(hd->channels * (hd->depth / 8)) +
                             n * (o->color ? 3u : 1u));
    else /* the file and the output, or neither */
        j->pooled = (size_t)((bmp_moves_directly(j) ? (unsigned long long)j->reader.held : 0) +
                             n * (o->color ? 3u : 1u));
    if (!j->jpeg_path)
        j->pooled += (size_t)repack_bytes(o, j, &j->reader);
}

/* bytes for what the worker makes of the input, where the decoders put its pixels: the pool's
 * page-locked blocks (or its ordinary memory, read far ahead of the lanes), else malloc's;
 * *from says which, for io_pixels_free. */
static void *worker_alloc(const job *j, size_t bytes, const io_allocator **from)
{
    io_pixels_use(j->pool ? (j->input_ordinary ? &j->pool->io_ordinary : &j->pool->io) : NULL);
    void *p = io_pixels_alloc(bytes, from);
    io_pixels_use(NULL);
    return p;
}

/* Whether a decoded input of another scale or depth goes to the pipeline as channel-last
 * samples (U16 as they lie, or the float planes' values interleaved by the worker) rather than
 * as float planes, which the library converts on the lane's thread, one image at a time: where
 * the result is 8-bit rows in R, G, B order (not float planes, not a BMP's BGR rows) and there
 * is a filter to run. */
static int streams_samples(const tc_options *o, const job *j)
{
    return !o->no_filter && !job_wants_planes(o, j) &&
           !(o->color && j->out_format == IO_FORMAT_BMP);
}

/* The float planes of j->src (FLOAT32) as one channel-last F32 image, interleaved here on the
 * worker into page-locked memory where the batch has it (held where a BMP's bytes would be,
 * j->file); the planes are released. Without the memory the planes stay. */
static void planes_to_channels(job *j)
{
    const int w = j->src.width, h = j->src.height, planes = j->src.planes;
    const size_t n = (size_t)w * (size_t)h;
    const io_allocator *from;
    float *v = worker_alloc(j, n * (size_t)planes * sizeof(float), &from);
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < planes; c++)
            v[i * (size_t)planes + (size_t)c] = j->float_src[(size_t)c * n + i];
    free(j->float_src);
    j->float_src = NULL;
    j->file = (uint8_t *)v;
    j->file_from = from;
    j->file_size = n * (size_t)planes * sizeof(float);
    j->src = (tc_image){TC_PIXELS_F32, w, h, planes, v, (long)w * planes * (long)sizeof(float),
                        NULL, 0};
}

/* A PNG, JPEG or PGM/PPM: its samples decoded (and the input released); 8-bit gray or RGB of
 * full scale go to the device as pixels, any other scale or depth becomes float planes here
 * (each sample v * 255 / maxval, unrounded), in the count the output needs (the intensity, or
 * R, G, B). */
static void decode_coded(const tc_options *o, job *j)
{
    char why[768];
    if (j->pool) /* straight into page-locked memory, which the device reads as it lies */
        source_reader_use_allocator(&j->reader, j->input_ordinary ? &j->pool->io_ordinary
                                                                  : &j->pool->io);
    /* -e on the JPEG path's terms: the coefficients too, for the lane to decode on the device
     * and compare (a file whose pixels are the CPU's alone is not compared). */
    j->jpeg_check = job_jpeg_check_wanted(o, j) &&
                    source_reader_coefs(&j->reader, &j->coefs_in, why, sizeof why) == 0;
    const int rc = source_reader_decode(&j->reader, &j->image, why, sizeof why);
    source_reader_close(&j->reader); /* the file's bytes are not needed beside the samples */
    j->reader_open = 0;
    if (rc) {
        job_fail_named(j, JOB_REFUSED, why);
        return;
    }
    if (j->reader.format == IO_FORMAT_JPEG)
        j->jpeg_decode = "cpu";
    const io_image *im = &j->image;
    const int w = im->width, h = im->height;
    const size_t n = (size_t)w * (size_t)h;
    if (im->depth == 8 && im->maxval == 255) {
        j->src = (tc_image){im->channels == 1 ? TC_PIXELS_GRAY8 : TC_PIXELS_RGB24, w, h, 0,
                            im->pixels, (long)w * im->channels, NULL, 0};
        return;
    }
    const int planes = o->color ? 3 : 1;
    const int stream = streams_samples(o, j);
    /* 16-bit samples of full scale in the count the output needs: the pipeline reads them as
     * they lie (U16, each v * 255 / 65535 as the planes below would hold it), no planes made. */
    if (stream && im->depth == 16 && im->maxval == 65535 && im->channels == planes) {
        j->src = (tc_image){TC_PIXELS_U16, w, h, planes, im->pixels,
                            (long)w * planes * (long)sizeof(uint16_t), NULL, 0};
        return;
    }
    if (!(j->float_src = malloc(n * (size_t)planes * sizeof(float)))) {
        job_fail(j, JOB_FAILED, "out of host memory for the input planes");
        io_image_free(&j->image);
        return;
    }
    for (int c = 0; c < planes; c++) {
        tc_plane p = {w, h, j->float_src + (size_t)c * n};
        tc_plane_from_samples(&p, im->pixels, im->channels, im->depth, (unsigned)im->maxval,
                              o->color ? c : -1);
    }
    io_image_free(&j->image);
    j->src = (tc_image){TC_PIXELS_FLOAT32, w, h, planes, j->float_src,
                        (long)w * (long)sizeof(float), NULL, 0};
    if (stream)
        planes_to_channels(j);
}

int job_input_moves_directly(const tc_options *o, const job *j)
{
    (void)o;
    return j->reader_open && j->reader.format == IO_FORMAT_BMP && bmp_moves_directly(j);
}

/* A BMP: only the bytes its header makes meaningful are read (and the input released), into
 * page-locked memory where the batch has it; its pixels as they lie in the file where they can
 * be used so (bottom-up rows through a negative stride, padding and all: the device reads them
 * from there as they lie), else decoded to RGB. */
static void decode_bmp(job *j)
{
    char why[512];
    bmp_view v;
    if (j->pool && bmp_moves_directly(j))
        source_reader_use_allocator(&j->reader, j->input_ordinary ? &j->pool->io_ordinary
                                                                  : &j->pool->io);
    const int got = source_reader_bmp_bytes(&j->reader, &j->file, &j->file_size, &j->file_from,
                                            why, sizeof why);
    const io_limits lim = j->reader.lim;
    source_reader_close(&j->reader);
    j->reader_open = 0;
    if (got) {
        job_fail_named(j, JOB_REFUSED, why);
        return;
    }
    const int rc = bmp_view_pixels(j->file, j->file_size, &lim, &v, why, sizeof why);
    if (rc < 0) {
        job_fail(j, JOB_REFUSED, why);
        job_drop_input(j);
        return;
    }
    if (rc == 1) {
        static const tc_pixel_format formats[5] = {TC_PIXELS_GRAY8, TC_PIXELS_INDEXED8, 0,
                                                   TC_PIXELS_BGR24, TC_PIXELS_BGRX32};
        memcpy(j->palette, v.palette, sizeof j->palette);
        j->src = (tc_image){formats[v.bytes_per_pixel], v.width, v.height, 0,
                            (void *)v.top_row, v.stride, j->palette, v.palette_size};
        return;
    }
    /* 1-, 2-, 4- and 16-bit, RLE, bitfields: decoded to RGB on the host. */
    if (bmp_decode_with(j->file, j->file_size, &lim, &j->decoded, why, sizeof why)) {
        job_fail(j, JOB_REFUSED, why);
        job_drop_input(j);
        return;
    }
    io_pixels_free(j->file, j->file_from);
    j->file = NULL;
    j->file_from = NULL;
    j->src = (tc_image){TC_PIXELS_RGB24, j->decoded.width, j->decoded.height, 0, j->decoded.rgb,
                        3L * j->decoded.width, NULL, 0};
}

/* A JPEG of the JPEG path: its coefficients (the entropy decoding alone) and the file's bytes
 * kept (job_decode_on_cpu), or, where jpeg_coefs_read says the pixels are the CPU's alone or
 * refuses the file, the CPU path from here (whose decoder then says in its own words why it
 * refuses the file). */
static void read_coefs(const tc_options *o, job *j)
{
    char why[512];
    if (j->pool) /* page-locked: they cross the bus at its rate, with no staging copy */
        source_reader_use_allocator(&j->reader, j->input_ordinary ? &j->pool->io_ordinary
                                                                  : &j->pool->io);
    if (source_reader_coefs(&j->reader, &j->coefs_in, why, sizeof why) != 0) {
        j->jpeg_path = 0;
        decode_coded(o, j);
        return;
    }
    const int w = j->coefs_in.width, h = j->coefs_in.height, channels = o->color ? 3 : 1;
    j->file = j->reader.whole.data;
    j->file_size = j->reader.whole.size;
    j->file_from = NULL; /* malloc's */
    j->reader.whole.data = NULL;
    j->reader.whole.size = 0;
    source_reader_close(&j->reader);
    j->reader_open = 0;
    /* The pixels' size and layout, for the lane's parameters and the records; no data. */
    j->src = (tc_image){channels == 1 ? TC_PIXELS_GRAY8 : TC_PIXELS_RGB24, w, h, 0, NULL,
                        (long)w * channels, NULL, 0};
}

/* The layout a colour job's 8-bit pixels are repacked into by the worker (repack_colour), for
 * src as decoded: the output's own order (RGB, or BGR for a BMP), so that the lane gives them
 * to the pipeline with the others and the device's encoder can take them; 0: none (they go
 * as they lie, or the output is float planes, which the host makes anyway). */
static tc_pixel_format repack_target(const tc_options *o, const job *j, tc_pixel_format src)
{
    const tc_pixel_format want =
        j->out_format == IO_FORMAT_BMP ? TC_PIXELS_BGR24 : TC_PIXELS_RGB24;
    if (!o->color || o->no_filter || job_wants_planes(o, j) || src == want)
        return 0;
    return src == TC_PIXELS_GRAY8 || src == TC_PIXELS_INDEXED8 || src == TC_PIXELS_BGRX32 ||
                   src == TC_PIXELS_BGR24 || src == TC_PIXELS_RGB24
               ? want
               : 0;
}

/* What repack_target or streams_samples will say once the file is decoded, from its header:
 * the bytes of the worker's conversion the job may hold beside its input. */
static unsigned long long repack_bytes(const tc_options *o, const job *j, const source_reader *r)
{
    const io_header *h = &r->head;
    const unsigned long long n = (unsigned long long)h->width * (unsigned long long)h->height;
    tc_pixel_format src = 0;
    if (r->format == IO_FORMAT_BMP) {
        const unsigned bpp = r->bmp.plain_bpp;
        src = bpp == 8 ? TC_PIXELS_INDEXED8 : bpp == 24 ? TC_PIXELS_BGR24
                                          : bpp == 32 ? TC_PIXELS_BGRX32
                                                      : TC_PIXELS_RGB24;
    } else if (h->depth == 8 && h->maxval == 255)
        src = h->channels == 1 ? TC_PIXELS_GRAY8 : TC_PIXELS_RGB24;
    if (r->format != IO_FORMAT_BMP && !(h->depth == 8 && h->maxval == 255) &&
        streams_samples(o, j)) /* planes_to_channels' copy beside the planes */
        return sizeof(float) * n * (o->color ? 3u : 1u);
    return src && repack_target(o, j, src) ? 3 * n : 0;
}

/* A colour job's 8-bit pixels in the layout of repack_target, made here on the worker's core
 * rather than by the lane's conversions on the device (which take the pipeline's flow from
 * the lane: one image at a time), in page-locked memory where the batch has it; the input's
 * own buffer is released. The same samples the device's conversions read (a copy, a
 * palette's colours, a gray sample thrice): the bytes out are the same. Where there is no
 * memory, or a palette index lies past the palette, the pixels stay as they are and the
 * library takes them (and refuses the bad index in its own words). */
static void repack_colour(const tc_options *o, job *j)
{
    const tc_pixel_format to = repack_target(o, j, j->src.format);
    if (!to || j->status != JOB_OK || !j->src.data)
        return;
    const int w = j->src.width, h = j->src.height;
    const io_allocator *from;
    uint8_t *px = worker_alloc(j, (size_t)w * (size_t)h * 3, &from);
    if (!px)
        return;
    if (pack_pixels(&j->src, 3, to == TC_PIXELS_BGR24, px) != 0) {
        io_pixels_free(px, from);
        return;
    }
    io_pixels_free(j->file, j->file_from);
    j->file = NULL;
    j->file_from = NULL;
    j->file_size = 0;
    bmp_free(&j->decoded);
    io_image_free(&j->image);
    j->image = (io_image){w, h, 3, 8, 255, px, from};
    j->src = (tc_image){to, w, h, 0, px, 3L * w, NULL, 0};
}

void job_decode(const tc_options *o, job *j)
{
    if (j->in_strips) /* its lane reads it, a band at a time */
        return;
    if (j->reader.format == IO_FORMAT_BMP)
        decode_bmp(j);
    else if (j->jpeg_path)
        read_coefs(o, j);
    else
        decode_coded(o, j);
    if (!j->jpeg_path)
        repack_colour(o, j);
}

void job_decode_on_cpu(const tc_options *o, job *j)
{
    jpeg_coefs_free(&j->coefs_in);
    jpeg_coefs_free(&j->coefs_out);
    j->jpeg_path = 0;
    /* The kept file back in the (closed) reader, which decode_coded decodes and frees. */
    j->reader.whole.data = j->file;
    j->reader.whole.size = j->file_size;
    j->file = NULL;
    j->file_size = 0;
    j->reader_open = 1;
    decode_coded(o, j);
}

/* Where the device reads the input's pixels from, when they lie whole in one buffer of the
 * host: a decoder's 8-bit samples, a BMP's file whose rows go up as they lie, or the JPEG
 * path's coefficients. Its start (*base) and bytes; 0 for any other input. */
static size_t input_buffer(const job *j, const void **base)
{
    if (!j->pool || j->status != JOB_OK)
        return 0;
    if (j->jpeg_path && j->coefs_in.block) {
        *base = j->coefs_in.block;
        return jpeg_coefs_bytes(&j->coefs_in);
    }
    if (j->image.pixels && j->src.data == j->image.pixels) {
        *base = j->image.pixels;
        return (size_t)j->image.width * (size_t)j->image.height * (size_t)j->image.channels *
               (size_t)(j->image.depth / 8);
    }
    if (j->file && (const uint8_t *)j->src.data >= j->file &&
        (const uint8_t *)j->src.data < j->file + j->file_size) {
        *base = j->file;
        return j->file_size;
    }
    return 0;
}

size_t job_movable_bytes(const job *j)
{
    const void *base;
    const size_t n = input_buffer(j, &base);
    return n && !pinned_pool_holds(j->pool, base) ? n : 0;
}

int job_input_lockable(const job *j)
{
    const void *base;
    return input_buffer(j, &base) && pinned_pool_lockable(j->pool, base);
}

int job_lock_input_in_place(job *j, const tc_context *ctx)
{
    const void *base;
    if (!input_buffer(j, &base) || !pinned_pool_lock_in_place(j->pool, (void *)base, ctx))
        return 0;
    j->input_ordinary = 0;
    j->movable = 0;
    return 1;
}

int job_move_input(job *j)
{
    const void *base;
    const size_t n = input_buffer(j, &base);
    if (!n || pinned_pool_holds(j->pool, base))
        return 0;
    if (pinned_pool_lock_in_place(j->pool, (void *)base, NULL)) {
        j->input_ordinary = 0;
        return 1;
    }
    void *block = pinned_pool_take_idle(j->pool, n);
    if (!block)
        return 0;
    memcpy(block, base, n);
    if (base == j->coefs_in.block) {
        for (int i = 0; i < j->coefs_in.components; i++)
            j->coefs_in.comp[i].coef =
                (int16_t *)block + (j->coefs_in.comp[i].coef - (const int16_t *)base);
        io_pixels_free(j->coefs_in.block, j->coefs_in.allocator);
        j->coefs_in.block = block;
        j->coefs_in.allocator = &j->pool->io;
        j->input_ordinary = 0;
        return 1;
    }
    j->src.data = (uint8_t *)block + ((const uint8_t *)j->src.data - (const uint8_t *)base);
    if (base == j->image.pixels) {
        io_image_free(&j->image);
        j->image.pixels = block;
        j->image.allocator = &j->pool->io;
    } else {
        io_pixels_free(j->file, j->file_from);
        j->file = block;
        j->file_from = &j->pool->io;
    }
    j->input_ordinary = 0;
    return 1;
}

/* ---- --no-filter: the codec floor ---------------------------------------------------------- */

/* src's pixels as packed rows of `channels` 8-bit samples, in the order R, G, B (B, G, R with
 * bgr), where its layout allows a plain copy (gray to gray or to three equal samples, RGB, BGR
 * or BGRX to three, a palette's colours): 0, or -1 when it needs the planes (the intensity of
 * colours, other scales) or a palette index lies past the palette (the library's to refuse). */
static int pack_pixels(const tc_image *src, int channels, int bgr, uint8_t *out)
{
    const int w = src->width, h = src->height;
    const size_t row = (size_t)w * (size_t)channels;
    const int same = (channels == 1 && src->format == TC_PIXELS_GRAY8) ||
                     (channels == 3 && src->format == (bgr ? TC_PIXELS_BGR24 : TC_PIXELS_RGB24));
    const int step = src->format == TC_PIXELS_BGR24    ? 3
                     : src->format == TC_PIXELS_BGRX32 ? 4
                     : src->format == TC_PIXELS_RGB24  ? 3
                                                       : 1;
    /* The source's red sample and blue sample in a pixel of step bytes. */
    const int red = src->format == TC_PIXELS_RGB24 ? 0 : 2, r = bgr ? 2 : 0;
    const int bytes = src->format == TC_PIXELS_GRAY8 || src->format == TC_PIXELS_RGB24 ||
                      src->format == TC_PIXELS_BGR24 || src->format == TC_PIXELS_BGRX32 ||
                      src->format == TC_PIXELS_INDEXED8;
    if (!same && (channels != 3 || !bytes))
        return -1;
    if (src->format == TC_PIXELS_INDEXED8)
        for (int y = 0; y < h; y++) {
            const uint8_t *in = (const uint8_t *)src->data + (long)y * src->stride;
            for (int x = 0; x < w; x++)
                if (in[x] >= src->palette_size)
                    return -1;
        }
    for (int y = 0; y < h; y++) {
        const uint8_t *in = (const uint8_t *)src->data + (long)y * src->stride;
        uint8_t *o = out + (size_t)y * row;
        if (same) {
            memcpy(o, in, row);
            continue;
        }
        if (src->format == TC_PIXELS_GRAY8)
            for (int x = 0; x < w; x++, o += 3)
                o[0] = o[1] = o[2] = in[x];
        else if (src->format == TC_PIXELS_INDEXED8)
            for (int x = 0; x < w; x++, o += 3) {
                const uint8_t *c = src->palette + 3 * in[x];
                o[r] = c[0];
                o[1] = c[1];
                o[2 - r] = c[2];
            }
        else
            for (int x = 0; x < w; x++, in += step, o += 3) {
                o[r] = in[red];
                o[1] = in[1];
                o[2 - r] = in[2 - red];
            }
    }
    return 0;
}

void job_copy(const tc_options *o, job *j)
{
    const int w = j->src.width, h = j->src.height, channels = o->color ? 3 : 1;
    const size_t n = (size_t)w * (size_t)h;
    char err[512];
    j->out_size = n * (size_t)channels * (size_t)(j->depth / 8);
    if (!(j->out = malloc(j->out_size))) {
        job_fail(j, JOB_FAILED, "out of host memory for the output");
        return;
    }
    j->out_pixels = 1;
    if (j->depth == 8 && pack_pixels(&j->src, channels, 0, j->out) == 0)
        return;
    /* Any other layout: the planes a filter would read, then the output's samples. */
    float *planes = malloc(n * (size_t)channels * sizeof(float));
    tc_plane p[3];
    if (!planes) {
        job_fail(j, JOB_FAILED, "out of host memory for the planes");
        return;
    }
    if (tc_image_to_planes(&j->src, channels, planes, err, sizeof err) != TC_OK) {
        free(planes);
        job_fail(j, JOB_REFUSED, err);
        return;
    }
    for (int c = 0; c < channels; c++)
        p[c] = (tc_plane){w, h, planes + (size_t)c * n};
    tc_planes_to_samples(p, channels, j->depth, NULL, 1.0, 0.0, j->out);
    free(planes);
}
