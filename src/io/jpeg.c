/*
 * jpeg.c - JPEG through TurboJPEG 2.x (jpeg.h says what is read and written).
 *
 * Why these flags:
 *   - Decoding passes neither TJFLAG_FASTDCT nor TJFLAG_FASTUPSAMPLE, so libjpeg keeps the
 *     defaults jpeg_read_header() sets, which are djpeg's: JDCT_ISLOW, fancy upsampling (which
 *     also rules out merged upsampling), block smoothing. tests/test_jpeg.c compares our pixels
 *     with djpeg's, byte for byte, on baseline, progressive, arithmetic, restart-marker, gray
 *     and 4:4:4/4:2:2/4:2:0/4:4:0 files.
 *   - A file on which libjpeg warns (corrupt or truncated data, which it fills with gray) is
 *     refused, as the BMP reader refuses pixel data shorter than promised. TurboJPEG
 *     2.1 fails such a decode anyway once it is over; TJFLAG_STOPONWARNING stops it at the
 *     first warning instead of decoding the rest of a broken file. TJFLAG_LIMITSCANS: more
 *     than 500 progressive scans are refused, the CPU bomb libjpeg-turbo's documentation warns
 *     of (each scan revisits the whole image; djpeg's -maxscans).
 *   - Encoding passes TJFLAG_ACCURATEDCT, because TurboJPEG otherwise picks the fast DCT below
 *     quality 96 (cjpeg's default is the accurate one). Colour is written with 4:2:0 chroma
 *     sampling unless the tool asks otherwise (--sampling): what cjpeg, OpenCV, Pillow and
 *     libvips write by default, so that a folder of photos costs what it costs with them.
 *   - Decoding and encoding are each one TurboJPEG call over the whole image; the stages inside
 *     (entropy coding, and the inverse DCT, upsampling and colour conversion around it) stay
 *     libjpeg's, which a later device path can split at jpeg_read_coefficients and
 *     jpeg_write_coefficients.
 */
#include "jpeg.h"
#include "tool_visible.h"

#include "codec_common.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

/* TurboJPEG's message for the last failure on h, without the "tjDecompress2(): " prefix that
 * names its own function (the user did not call it). */
static const char *tj_reason(tjhandle h)
{
    const char *s = tjGetErrorStr2(h);
    if (!s || !*s)
        return "unknown TurboJPEG error";
    const char *p = strstr(s, "(): ");
    if (p && strncmp(s, "tj", 2) == 0 && (size_t)(p - s) < 40)
        return p + 4;
    return s;
}

/* tjDestroy fails only on a handle that is not one (NULL, or freed): not possible here, so
 * its status carries nothing to report. */
static void tj_close(tjhandle h)
{
    if (h)
        (void)tjDestroy(h);
}

/* The header alone (up to the first scan) read by h and checked, before anything is allocated:
 * the size against the pixel limit, the colour space, the bomb guard. 0, or -1 with the
 * reason. */
static int jpeg_begin(tjhandle h, const uint8_t *data, size_t size, long max_pixels,
                      long max_pixels_per_byte, io_header *hd, char *err, size_t err_size)
{
    int width = 0, height = 0, subsamp = -1, colorspace = -1;
    if (tjDecompressHeader3(h, data, (unsigned long)size, &width, &height, &subsamp,
                            &colorspace) != 0) {
        const char *why = tj_reason(h);
        /* TurboJPEG 2.1 names only the usual samplings; say which, since djpeg reads more. */
        return io_fail(err, err_size, "JPEG: %s%s", why,
                       strstr(why, "subsampling") ? " (TurboJPEG 2 reads gray, 4:4:4, 4:2:2, "
                                                    "4:2:0, 4:4:0 and 4:1:1 only)"
                                                  : "");
    }
    /* A tables-only stream (abbreviated JPEG) returns success with no frame. */
    if (width <= 0 || height <= 0)
        return io_fail(err, err_size, "JPEG: no image in the file (tables only)");
    if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK)
        return io_fail(err, err_size, "JPEG: %s JPEGs are not supported (gray and colour are)",
                       colorspace == TJCS_CMYK ? "CMYK" : "YCCK");
    if (io_check_size("JPEG", width, height, io_pixel_limit(max_pixels), err, err_size) ||
        io_check_ratio("JPEG", width, height, size, max_pixels_per_byte, err, err_size))
        return -1;
    *hd = (io_header){width, height, colorspace == TJCS_GRAY ? 1 : 3, 8, 255};
    return 0;
}

/* A decoder for data: NULL with the reason when data cannot be given to TurboJPEG. */
static tjhandle jpeg_open(const uint8_t *data, size_t size, char *err, size_t err_size)
{
    tjhandle h;
    if (!data) {
        io_fail(err, err_size, "JPEG: no data to decode");
        return NULL;
    }
    if (size > ULONG_MAX) { /* TurboJPEG takes the size as an unsigned long */
        io_fail(err, err_size, "JPEG: file of %lu bytes too large", (unsigned long)size);
        return NULL;
    }
    if (!(h = tjInitDecompress()))
        io_fail(err, err_size, "JPEG: cannot start the decoder: %s", tj_reason(NULL));
    return h;
}

int jpeg_probe(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
               io_header *hd, char *err, size_t err_size)
{
    tjhandle h = jpeg_open(data, size, err, err_size);
    if (!h)
        return -1;
    const int rc = jpeg_begin(h, data, size, max_pixels, max_pixels_per_byte, hd, err, err_size);
    tj_close(h);
    return rc;
}

/* jpeg_decode and jpeg_decode_luma: with luma, a colour (YCbCr) file gives its Y plane alone,
 * as djpeg -grayscale does: libjpeg then skips the colour components' inverse DCT, upsampling
 * and colour conversion (their entropy decoding remains, as the scans interleave them). */
static int decode(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                  int luma, io_image *img, char *err, size_t err_size)
{
    tjhandle h = NULL;
    uint8_t *buf = NULL;
    const io_allocator *from = NULL;
    io_header hd;
    int rc = -1;

    if (!img) {
        io_fail(err, err_size, "JPEG: no data to decode");
        goto done;
    }
    if (!(h = jpeg_open(data, size, err, err_size)) ||
        jpeg_begin(h, data, size, max_pixels, max_pixels_per_byte, &hd, err, err_size))
        goto done;
    const int width = hd.width, height = hd.height, channels = luma ? 1 : hd.channels;
    size_t bytes = io_image_bytes(width, height, channels, 8);
    buf = bytes ? io_pixels_alloc(bytes, &from) : NULL;
    if (!buf) {
        io_fail(err, err_size, "JPEG: out of memory for a %d x %d image", width, height);
        goto done;
    }
    if (tjDecompress2(h, data, (unsigned long)size, buf, width, 0, height,
                      channels == 1 ? TJPF_GRAY : TJPF_RGB,
                      TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS) != 0) {
        io_fail(err, err_size, "JPEG: %s", tj_reason(h));
        goto done;
    }
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->depth = 8;
    img->maxval = 255;
    img->pixels = buf;
    img->allocator = from;
    buf = NULL;
    rc = 0;
done:
    io_pixels_free(buf, from);
    tj_close(h);
    return rc;
}

int jpeg_decode(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                io_image *img, char *err, size_t err_size)
{
    return decode(data, size, max_pixels, max_pixels_per_byte, 0, img, err, err_size);
}

int jpeg_decode_luma(const uint8_t *data, size_t size, long max_pixels,
                     long max_pixels_per_byte, io_image *img, char *err, size_t err_size)
{
    return decode(data, size, max_pixels, max_pixels_per_byte, 1, img, err, err_size);
}

/* The chroma sampling of every colour JPEG the process writes (io_set_jpeg_sampling). */
static io_jpeg_sampling sampling = IO_JPEG_420;

TC_TOOL void io_set_jpeg_sampling(io_jpeg_sampling s) /* codec.h */
{
    sampling = s;
}

/* TurboJPEG's name for a sampling. */
static int tj_sampling(io_jpeg_sampling s)
{
    return s == IO_JPEG_444 ? TJSAMP_444 : s == IO_JPEG_422 ? TJSAMP_422 : TJSAMP_420;
}

int jpeg_encode(FILE *f, const io_image *img, int quality, const char *path, char *err,
                size_t err_size)
{
    tjhandle h = NULL;
    unsigned char *jpeg = NULL;
    unsigned long jpeg_size = 0;
    int rc = -1;

    if (io_check_image(img, path, err, err_size))
        return -1;
    if (img->depth != 8 || img->maxval != 255)
        return io_fail(err, err_size, "%s: JPEG holds 8-bit samples of full scale 255 only",
                       path);
    if (quality <= 0)
        quality = IO_JPEG_QUALITY;
    if (quality > 100)
        return io_fail(err, err_size, "%s: JPEG quality %d is out of range (1..100)", path,
                       quality);
    h = tjInitCompress();
    if (!h) {
        io_fail(err, err_size, "%s: cannot start the JPEG encoder: %s", path, tj_reason(NULL));
        goto done;
    }
    if (tjCompress2(h, img->pixels, img->width, 0, img->height,
                    img->channels == 1 ? TJPF_GRAY : TJPF_RGB, &jpeg, &jpeg_size,
                    img->channels == 1 ? TJSAMP_GRAY : tj_sampling(sampling), quality,
                    TJFLAG_ACCURATEDCT) != 0) {
        io_fail(err, err_size, "%s: JPEG encoding failed: %s", path, tj_reason(h));
        goto done;
    }
    errno = 0;
    if (fwrite(jpeg, 1, jpeg_size, f) != jpeg_size) {
        io_fail(err, err_size, "%s: write error: %s", path, strerror(errno ? errno : EIO));
        goto done;
    }
    rc = 0;
done:
    tjFree(jpeg);
    tj_close(h);
    return rc;
}

/* ---- Row by row ------------------------------------------------------------------------
 *
 * TurboJPEG 2 decodes and encodes whole images only; libjpeg's scanline API (the same
 * libjpeg-turbo, libjpeg62-turbo-dev) gives the rows one at a time. Both are set up as
 * tjDecompress2 and tjCompress2 set up libjpeg for the flags above, so that the pixels and the
 * bytes are the same: the header is checked by jpeg_probe first (the same refusals and words),
 * then libjpeg keeps its defaults for decoding (JDCT_ISLOW, fancy upsampling), stops at the
 * first warning (TJFLAG_STOPONWARNING) and at the 501st scan (TJFLAG_LIMITSCANS); the encoder
 * gets TurboJPEG's quality, accurate DCT, colour space and jpeg_encode's sampling, and
 * the TJ_OPTIMIZE, TJ_ARITHMETIC, TJ_RESTART and TJ_PROGRESSIVE settings TurboJPEG reads from
 * the environment. Without libjpeg's header (JPEGLIB=no) a JPEG is decoded and encoded whole.
 */
#ifdef TC_HAVE_JPEGLIB
#include <ctype.h>
#include <jpeglib.h>
#include <stdio.h>

#include "jpeg_settings.h"
#include "jpeg_trap.h"

struct jpeg_rows {
    struct jpeg_decompress_struct d;
    jpeg_trap trap;
    struct jpeg_progress_mgr progress;
    int started, height, next;
};

void jpeg_rows_close(jpeg_rows *r)
{
    if (!r)
        return;
    jpeg_destroy_decompress(&r->d);
    free(r);
}

/* The bytes libjpeg keeps for a file whose scans each cover part of the picture (progressive,
 * or components in scans of their own): every coefficient of every component, 64 of 2 bytes a
 * block, until the last scan is in; and its row buffers either way. */
static size_t decoder_bytes(j_decompress_ptr d, int channels)
{
    size_t bytes = (size_t)16 * d->image_width * (size_t)(channels > 1 ? 3 : 1) * 4 +
                   ((size_t)1 << 20);
    if (!jpeg_has_multiple_scans(d))
        return bytes;
    for (int i = 0; i < d->num_components; i++) {
        const jpeg_component_info *c = &d->comp_info[i];
        const size_t h = (size_t)(c->h_samp_factor > 0 ? c->h_samp_factor : 1);
        const size_t v = (size_t)(c->v_samp_factor > 0 ? c->v_samp_factor : 1);
        const size_t wb = ((size_t)c->width_in_blocks + h - 1) / h * h;
        const size_t hb = ((size_t)c->height_in_blocks + v - 1) / v * v;
        bytes += wb * hb * DCTSIZE2 * sizeof(JCOEF);
    }
    return bytes;
}

int jpeg_rows_open(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                   int luma, jpeg_rows **out, io_header *h, size_t *held, char *err,
                   size_t err_size)
{
    jpeg_rows *r;
    if (jpeg_probe(data, size, max_pixels, max_pixels_per_byte, h, err, err_size))
        return -1;
    if (!(r = calloc(1, sizeof *r)))
        return io_fail(err, err_size, "JPEG: out of memory for the row reader");
    jpeg_trap_init(&r->trap);
    r->d.err = &r->trap.pub;
    r->height = h->height;
    if (setjmp(r->trap.jump)) {
        io_fail(err, err_size, "JPEG: %s", r->trap.msg);
        jpeg_rows_close(r);
        return -1;
    }
    jpeg_create_decompress(&r->d);
    r->progress.progress_monitor = jpeg_trap_limit_scans;
    r->d.progress = &r->progress;
    jpeg_mem_src(&r->d, data, (unsigned long)size);
    jpeg_read_header(&r->d, TRUE);
    /* luma: a colour file's Y plane alone, as jpeg_decode_luma (TJPF_GRAY) gives it. */
    if (luma)
        h->channels = 1;
    r->d.out_color_space = h->channels == 1 ? JCS_GRAYSCALE : JCS_EXT_RGB;
    *held = decoder_bytes(&r->d, h->channels);
    *out = r;
    return 0;
}

int jpeg_rows_next(jpeg_rows *r, void *row, char *err, size_t err_size)
{
    JSAMPROW rows[1] = {row};
    if (r->next >= r->height)
        return io_fail(err, err_size, "JPEG: no row %d: the image has %d", r->next, r->height);
    if (setjmp(r->trap.jump))
        return io_fail(err, err_size, "JPEG: %s", r->trap.msg);
    /* Started at the first row, not at open: a multi-scan file's coefficients are read in
     * here, after the caller has planned its memory. */
    if (!r->started) {
        jpeg_start_decompress(&r->d);
        r->started = 1;
    }
    if (jpeg_read_scanlines(&r->d, rows, 1) != 1)
        return io_fail(err, err_size, "JPEG: no data for row %d", r->next);
    r->next++;
    return 0;
}

int jpeg_rows_finish(jpeg_rows *r, char *err, size_t err_size)
{
    if (r->next != r->height)
        return io_fail(err, err_size, "JPEG: %d of %d rows read", r->next, r->height);
    if (setjmp(r->trap.jump))
        return io_fail(err, err_size, "JPEG: %s", r->trap.msg);
    jpeg_finish_decompress(&r->d); /* reads on to EOI, as tjDecompress2 does */
    return 0;
}

struct jpeg_writer {
    struct jpeg_compress_struct c;
    jpeg_trap trap;
    FILE *f;
    int height, next;
    const char *path;
};

void jpeg_writer_free(jpeg_writer *w)
{
    if (!w)
        return;
    jpeg_destroy_compress(&w->c);
    free(w);
}

/* A libjpeg failure while writing: the stream's errno when a write failed. Returns -1. */
static int jpeg_writer_fail(const jpeg_writer *w, char *err, size_t err_size)
{
    if (ferror(w->f))
        return io_fail(err, err_size, "%s: write error: %s", w->path,
                       strerror(errno ? errno : EIO));
    return io_fail(err, err_size, "%s: JPEG encoding failed: %s", w->path, w->trap.msg);
}

/* "1" in the environment variable, as TurboJPEG reads its switches. */
static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

/* TurboJPEG's setCompDefaults for TJFLAG_ACCURATEDCT (jpeg_settings.h). */
void jpeg_writer_settings(j_compress_ptr c, int channels, int quality)
{
    const char *restart = getenv("TJ_RESTART");
    c->in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_EXT_RGB;
    c->input_components = channels;
    jpeg_set_defaults(c);
    if (env_on("TJ_OPTIMIZE"))
        c->optimize_coding = TRUE;
    if (env_on("TJ_ARITHMETIC"))
        c->arith_code = TRUE;
    if (restart && *restart) {
        int n = -1;
        char unit = 0;
        if (sscanf(restart, "%d%c", &n, &unit) >= 1 && n >= 0 && n <= 65535) {
            if (toupper((unsigned char)unit) == 'B') {
                c->restart_interval = (unsigned)n;
                c->restart_in_rows = 0;
            } else {
                c->restart_in_rows = n;
            }
        }
    }
    jpeg_set_quality(c, quality, TRUE);
    c->dct_method = JDCT_ISLOW;
    jpeg_set_colorspace(c, channels == 1 ? JCS_GRAYSCALE : JCS_YCbCr);
    if (env_on("TJ_PROGRESSIVE"))
        jpeg_simple_progression(c);
    /* jpeg_encode's sampling: the luma's factors (2 x 2 for 4:2:0, 2 x 1 for 4:2:2), 1 x 1
     * for the chroma, as TurboJPEG's setCompDefaults sets them. */
    for (int i = 0; i < c->num_components; i++)
        c->comp_info[i].h_samp_factor = c->comp_info[i].v_samp_factor = 1;
    if (channels == 3 && sampling != IO_JPEG_444) {
        c->comp_info[0].h_samp_factor = 2;
        c->comp_info[0].v_samp_factor = sampling == IO_JPEG_420 ? 2 : 1;
    }
}

/* The compressor made and started (the headers written). 0, or -1 with the trap's message. */
static int writer_start(jpeg_writer *w, int width, int height, int channels, int quality)
{
    if (setjmp(w->trap.jump))
        return -1;
    jpeg_create_compress(&w->c);
    jpeg_stdio_dest(&w->c, w->f);
    w->c.image_width = (JDIMENSION)width;
    w->c.image_height = (JDIMENSION)height;
    jpeg_writer_settings(&w->c, channels, quality);
    jpeg_start_compress(&w->c, TRUE);
    return 0;
}

int jpeg_writer_begin(FILE *f, int width, int height, int channels, int quality,
                      const char *path, jpeg_writer **out, char *err, size_t err_size)
{
    const io_image shape = {width, height, channels, 8, 255, (void *)path, NULL};
    jpeg_writer *w;
    if (io_check_image(&shape, path, err, err_size))
        return -1;
    if (quality <= 0)
        quality = IO_JPEG_QUALITY;
    if (quality > 100)
        return io_fail(err, err_size, "%s: JPEG quality %d is out of range (1..100)", path,
                       quality);
    if (!(w = calloc(1, sizeof *w)))
        return io_fail(err, err_size, "%s: out of memory for the JPEG encoder", path);
    jpeg_trap_init(&w->trap);
    w->c.err = &w->trap.pub;
    w->f = f;
    w->height = height;
    w->path = path;
    if (writer_start(w, width, height, channels, quality)) {
        jpeg_writer_fail(w, err, err_size);
        jpeg_writer_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int jpeg_writer_row(jpeg_writer *w, const uint8_t *row, char *err, size_t err_size)
{
    JSAMPROW rows[1] = {(JSAMPROW)row};
    if (w->next >= w->height)
        return io_fail(err, err_size, "%s: more rows than the image's %d", w->path, w->height);
    if (setjmp(w->trap.jump))
        return jpeg_writer_fail(w, err, err_size);
    jpeg_write_scanlines(&w->c, rows, 1);
    w->next++;
    return 0;
}

int jpeg_writer_end(jpeg_writer *w, char *err, size_t err_size)
{
    if (w->next != w->height)
        return io_fail(err, err_size, "%s: %d of %d rows written", w->path, w->next, w->height);
    if (setjmp(w->trap.jump))
        return jpeg_writer_fail(w, err, err_size);
    jpeg_finish_compress(&w->c); /* the last blocks, EOI, and the stream flushed */
    if (ferror(w->f))
        return jpeg_writer_fail(w, err, err_size);
    return 0;
}

#else /* no libjpeg: whole images only (rows.c decodes and encodes them whole) */

struct jpeg_rows {
    int unused;
};
struct jpeg_writer {
    int unused;
};

int jpeg_rows_open(const uint8_t *data, size_t size, long max_pixels, long max_pixels_per_byte,
                   int luma, jpeg_rows **out, io_header *h, size_t *held, char *err,
                   size_t err_size)
{
    (void)out;
    if (jpeg_probe(data, size, max_pixels, max_pixels_per_byte, h, err, err_size))
        return -1;
    if (luma)
        h->channels = 1;
    *held = io_image_bytes(h->width, h->height, h->channels, 8);
    return 1;
}

int jpeg_rows_next(jpeg_rows *r, void *row, char *err, size_t err_size)
{
    (void)r;
    (void)row;
    return io_fail(err, err_size, "JPEG: built without row-by-row decoding");
}

int jpeg_rows_finish(jpeg_rows *r, char *err, size_t err_size)
{
    (void)r;
    return io_fail(err, err_size, "JPEG: built without row-by-row decoding");
}

void jpeg_rows_close(jpeg_rows *r)
{
    (void)r;
}

int jpeg_writer_begin(FILE *f, int width, int height, int channels, int quality,
                      const char *path, jpeg_writer **out, char *err, size_t err_size)
{
    const io_image shape = {width, height, channels, 8, 255, (void *)path, NULL};
    (void)f;
    (void)out;
    if (io_check_image(&shape, path, err, err_size))
        return -1;
    if (quality > 100)
        return io_fail(err, err_size, "%s: JPEG quality %d is out of range (1..100)", path,
                       quality);
    return 1;
}

int jpeg_writer_row(jpeg_writer *w, const uint8_t *row, char *err, size_t err_size)
{
    (void)w;
    (void)row;
    return io_fail(err, err_size, "JPEG: built without row-by-row encoding");
}

int jpeg_writer_end(jpeg_writer *w, char *err, size_t err_size)
{
    (void)w;
    return io_fail(err, err_size, "JPEG: built without row-by-row encoding");
}

void jpeg_writer_free(jpeg_writer *w)
{
    (void)w;
}
#endif

size_t jpeg_writer_bytes(int width, int height, int channels)
{
    const size_t row = (size_t)width * (size_t)channels * 2;
    const size_t image = (size_t)width * (size_t)height * (size_t)channels;
#ifdef TC_HAVE_JPEGLIB
    /* libjpeg keeps 64 coefficients of 2 bytes a block for its second pass. */
    const int full = env_on("TJ_OPTIMIZE") || env_on("TJ_PROGRESSIVE");
    return 32 * row + ((size_t)1 << 20) + (full ? 2 * image : 0);
#else
    (void)row;
    return 3 * image + ((size_t)1 << 20);
#endif
}
