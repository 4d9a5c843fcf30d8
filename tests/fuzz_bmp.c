/*
 * fuzz_bmp.c - libFuzzer harness for the BMP decoder (make fuzz).
 *
 *   build/fuzz/fuzz_bmp -max_total_time=180 -rss_limit_mb=2048 CORPUS tests/data/bmpsuite/?
 *
 * The decoder runs with the tool's own default limits (io_limits.h: 2^28 pixels, and the
 * ratio check that refuses RLE data describing more than 256 pixels a byte beyond 2^20
 * pixels): the harness used to cap images at 2^22 pixels itself, which hid the decompression
 * bombs the limits now stop. Besides the sanitizers' checks it asserts the API contract: on
 * failure the image is untouched and the reason is one non-empty line; on success the image
 * has a size inside the limits, pixels, and is no bomb: at most 256 pixels a byte of input
 * once it passes 2^20 pixels.
 */
#include "bmp.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int sentinel;
    bmp_image img = {-7, -9, (uint8_t *)&sentinel};
    char err[256] = "";

    if (bmp_decode(data, size, &img, err, sizeof err) == 0) {
        const long long pixels = (long long)img.width * img.height;
        if (img.width <= 0 || img.height <= 0 || !img.rgb || pixels > IO_DEFAULT_MAX_PIXELS ||
            (pixels > IO_RATIO_FREE_PIXELS && (unsigned long long)pixels > 256ULL * size))
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
