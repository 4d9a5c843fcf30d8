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
 *     refused, as the BMP reader refuses pixel data shorter than promised (SPEC.md). TurboJPEG
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

#include "codec_impl.h"

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
    buf = bytes ? malloc(bytes) : NULL;
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
    buf = NULL;
    rc = 0;
done:
    free(buf);
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

void io_set_jpeg_sampling(io_jpeg_sampling s)
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
