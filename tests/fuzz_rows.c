/*
 * fuzz_rows.c - a libFuzzer harness for the row-by-row readers (src/io/rows.h), which an image
 * filtered in strips is read through: build/fuzz/fuzz_rows (make fuzz), seeded with
 * tests/data/formats/ and the BMP Suite (tests/fuzz-formats.sh).
 *
 * Every input of every format goes through the row reader, row by row to the checks after the
 * last row, and through the whole-image decoder with the same limits: both must agree, to the
 * byte, on whether the file is an image and on its pixels (the strips' promise that an image is
 * read the same either way). Besides the sanitizers' checks it asserts the contract: a refusal
 * is one non-empty line; the header's fields are consistent; what a reader says it holds is at
 * least a row.
 */
#include "codec.h"
#include "rows.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One line, not empty: a refusal's contract. */
static void check_reason(const char *err)
{
    if (err[0] == '\0' || strchr(err, '\n'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    io_format fmt;
    io_row_reader *r = NULL;
    io_header h;
    io_image whole = {0, 0, 0, 0, 0, NULL, NULL};
    size_t held = 0;
    char err[512] = "", why[512] = "";
    io_limits lim;

    if (io_detect(data, size, &fmt))
        return 0;
    io_limits_default(&lim);
    const int whole_rc = io_decode(data, size, 0, IO_MAX_PIXELS_PER_BYTE, &whole, why,
                                   sizeof why);
    if (whole_rc)
        check_reason(why);
    if (io_rows_open(fmt, data, size, &lim, 0, &r, &h, &held, err, sizeof err)) {
        check_reason(err);
        if (whole_rc == 0) /* a header the whole decoder took, refused by rows */
            abort();
        return 0;
    }
    if (h.width < 1 || h.height < 1 || h.width > IO_MAX_SIDE || h.height > IO_MAX_SIDE ||
        (h.channels != 1 && h.channels != 3) || (h.depth != 8 && h.depth != 16) ||
        h.maxval < 1 || h.maxval > (h.depth == 8 ? 255 : 65535))
        abort();
    const size_t row = (size_t)h.width * (size_t)h.channels * (size_t)(h.depth / 8);
    uint8_t *px = malloc(row * (size_t)h.height);
    if (!px) {
        io_rows_close(r);
        io_image_free(&whole);
        return 0;
    }
    int rc = 0;
    for (int y = 0; rc == 0 && y < h.height; y++)
        rc = io_rows_read(r, px + (size_t)y * row, err, sizeof err);
    if (rc == 0)
        rc = io_rows_finish(r, err, sizeof err);
    else if (io_rows_read(r, px, err, sizeof err) == 0) /* a reader that failed stays failed */
        abort();
    io_rows_close(r);
    if (rc)
        check_reason(err);
    /* The same verdict, and the same pixels. */
    if ((rc == 0) != (whole_rc == 0))
        abort();
    if (rc == 0 && (whole.width != h.width || whole.height != h.height ||
                    whole.channels != h.channels || whole.depth != h.depth ||
                    whole.maxval != h.maxval ||
                    memcmp(whole.pixels, px, row * (size_t)h.height) != 0))
        abort();
    free(px);
    io_image_free(&whole);
    return 0;
}
