/*
 * fuzz_codec.c - libFuzzer harnesses for the PNG, JPEG and PGM/PPM readers' glue (make fuzz),
 * one binary per format: built with -DFUZZ_PNG, -DFUZZ_JPEG or -DFUZZ_PNM into
 * build/fuzz/fuzz_png, fuzz_jpeg, fuzz_pnm, seeded with tests/data/formats/ (fuzz-formats.sh).
 *
 * Each calls its decoder directly (so that the fuzzer need not keep a signature intact) with
 * the limits the tool uses: the full pixel limit and the bomb guard, which is what keeps every
 * input fast (a few bytes cannot claim more than IO_BOMB_FLOOR_PIXELS pixels, plus 2048 per
 * byte). libspng and TurboJPEG are Debian's, uninstrumented: coverage counts our code, and
 * AddressSanitizer sees their allocations, not their reads. The build defines
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, under which png.c has libspng use CRCs rather
 * than check them, so that mutated inputs reach the decoding behind them.
 *
 * Besides the sanitizers' checks it asserts the API contract: on failure the image is untouched
 * and the reason is one non-empty line with the format's prefix; on success the fields are
 * consistent and every sample is within the maxval. The JPEG harness also runs the device
 * decoder's coefficient reader (jpeg_coefs_read) on each input, colour and luma.
 */
#include "codec.h"
#include "jpeg.h"
#include "jpeg_coefs.h"
#include "png.h"
#include "pnm.h"

#include <stdlib.h>
#include <string.h>

#if defined(FUZZ_PNG)
#define DECODE(d, n, img, err, size) png_decode(d, n, 0, IO_MAX_PIXELS_PER_BYTE, img, err, size)
#define PREFIX "PNG: "
#elif defined(FUZZ_JPEG)
#define DECODE(d, n, img, err, size) jpeg_decode(d, n, 0, IO_MAX_PIXELS_PER_BYTE, img, err, size)
#define PREFIX "JPEG: "
#elif defined(FUZZ_PNM)
#define DECODE(d, n, img, err, size) pnm_decode(d, n, 0, img, err, size)
#define PREFIX "P" /* "PGM: ", "PPM: " or "PNM: " */
#else
#error "define FUZZ_PNG, FUZZ_JPEG or FUZZ_PNM"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(FUZZ_JPEG)
/* The coefficient reader of the device decoder on the same input, colour and luma: 0 with
 * coefficients that fit the image (every block of every component read by ASan), -1 with a
 * "JPEG: " reason and *out untouched, or 1 with a reason; nothing else. */
static void check_coefficients(const uint8_t *data, size_t size, int luma)
{
    jpeg_coefs c = {.components = -4};
    char err[512] = "";
    const int rc = jpeg_coefs_read(data, size, luma, 0, IO_MAX_PIXELS_PER_BYTE, &c, err,
                                   sizeof err);
    if (rc == 0) {
        if (c.width < 1 || c.height < 1 || c.components < 1 ||
            c.components > (luma ? 1 : JPEG_COEFS_MAX_COMPONENTS))
            abort();
        long sum = 0;
        for (int i = 0; i < c.components; i++) {
            const jpeg_coef_component *k = &c.comp[i];
            if (k->blocks_wide * 8 < k->width || k->blocks_high * 8 < k->height || !k->coef)
                abort();
            for (size_t j = 0; j < (size_t)k->blocks_wide * k->blocks_high * 64; j++)
                sum += k->coef[j];
        }
        (void)sum;
        jpeg_coefs_free(&c);
    } else if ((rc != -1 && rc != 1) || err[0] == '\0' || strchr(err, '\n') ||
               (rc == -1 && (strncmp(err, PREFIX, strlen(PREFIX)) != 0 || c.components != -4))) {
        abort();
    }
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int sentinel;
    io_image img = {-7, -9, -1, -2, -3, &sentinel, NULL};
    char err[512] = "";

#if defined(FUZZ_JPEG)
    check_coefficients(data, size, 0);
    check_coefficients(data, size, 1);
#endif
    if (DECODE(data, size, &img, err, sizeof err) == 0) {
        if (img.width < 1 || img.height < 1 || img.width > IO_MAX_SIDE ||
            img.height > IO_MAX_SIDE || (img.channels != 1 && img.channels != 3) ||
            (img.depth != 8 && img.depth != 16) || img.maxval < 1 ||
            img.maxval > (img.depth == 8 ? 255 : 65535) || !img.pixels)
            abort();
        /* Read every sample: ASan sees a buffer shorter than the fields say, and a sample
         * above the maxval breaks the contract. */
        size_t n = (size_t)img.width * (size_t)img.height * (size_t)img.channels;
        for (size_t i = 0; i < n; i++) {
            unsigned v = img.depth == 16 ? ((const uint16_t *)img.pixels)[i]
                                         : ((const uint8_t *)img.pixels)[i];
            if (v > (unsigned)img.maxval)
                abort();
        }
        io_image_free(&img);
    } else if (img.width != -7 || img.height != -9 || img.channels != -1 || img.depth != -2 ||
               img.maxval != -3 || img.pixels != &sentinel || err[0] == '\0' ||
               strchr(err, '\n') || strncmp(err, PREFIX, strlen(PREFIX)) != 0) {
        abort();
    }
    return 0;
}
