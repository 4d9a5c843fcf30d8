/*
 * fuzz_bmp.c - libFuzzer harness for the BMP decoder (make fuzz).
 *
 *   build/fuzz/fuzz_bmp -max_total_time=180 -rss_limit_mb=2048 CORPUS tests/data/bmpsuite/?
 *
 * Besides the sanitizers' checks it asserts the API contract: on failure the image is untouched
 * and the reason is not empty; on success the image has a size inside the limit and pixels.
 */
#include "bmp.h"

#include <stdlib.h>
#include <string.h>

/* bmp_decode is bmp_decode_limited with BMP_MAX_PIXELS. A lower limit here keeps every input
 * fast: a few bytes of RLE can legitimately describe 2^28 pixels, and filling 800 MB per input
 * would slow the fuzzer a thousandfold without reaching any new code. The limit check itself is
 * the same code whatever its value. */
#define FUZZ_MAX_PIXELS (1L << 22)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int sentinel;
    bmp_image img = {-7, -9, (uint8_t *)&sentinel};
    char err[256] = "";

    if (bmp_decode_limited(data, size, FUZZ_MAX_PIXELS, &img, err, sizeof err) == 0) {
        if (img.width <= 0 || img.height <= 0 || !img.rgb ||
            (long)img.width * img.height > FUZZ_MAX_PIXELS)
            abort();
        /* Touch every output byte so that MSan/ASan would see uninitialised or short buffers. */
        unsigned sum = 0;
        for (size_t i = 0; i < (size_t)img.width * (size_t)img.height * 3; i++)
            sum += img.rgb[i];
        (void)sum;
        bmp_free(&img);
    } else if (img.width != -7 || img.height != -9 || img.rgb != (uint8_t *)&sentinel ||
               err[0] == '\0' || strchr(err, '\n')) {
        abort();
    }
    return 0;
}
