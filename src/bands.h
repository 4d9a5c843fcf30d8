/*
 * bands.h - an image filtered in bands of rows, when the whole of it does not fit the device
 * (its largest buffer, its memory) or the memory a run may take: each band of target rows is
 * filtered from its source rows and the rows its filter reaches above and below (the halo), and
 * the result is the whole image's, bit for bit.
 *
 * How a band is cut: the target ROI is split into bands of `rows` rows from its top. A band's
 * call sees a small image made of its source rows (full width), whose ROI is all of those rows;
 * the rows of the result kept are the band's own, and the rows the call computed within the
 * halo (where that small image's own border rule applied) are dropped. Two rules keep every
 * kept value exactly the whole run's:
 *   - the ROI's true top and bottom are the small image's top and bottom, so every border rule
 *     applies there as in the whole run; a band edge inside the ROI has the halo beyond it, so no
 *     kept row reads past it. Wrap alone reads rows from the other edge of the ROI: a band at an
 *     edge gets them, in order, before or after its own (modulo the ROI's height);
 *   - the kernels that add a column's taps in blocks of rows (the tiled kernels) see each kept row
 *     at the same place in its block as in the whole run: band starts and the halo above are
 *     multiples of the tile's height (`align`).
 */
#ifndef TILEDCONV_BANDS_H
#define TILEDCONV_BANDS_H

#include "launch.h"
#include "tiledconv.h"

/* The ROI row (0 .. height - 1) that source row r of a band stands for: r itself, or for wrap
 * r modulo the ROI's height. */
int tc_band_source_row(const tc_band_plan *plan, int r);

/* The job of band `band` (its small image's ROI: every row, the columns of the whole run). */
void tc_band_job(const tc_band_plan *plan, const tc_job *job, const tc_band *band, tc_job *out);

/* The device bytes of one band's call with `rows` rows of small image (its planes, the
 * two-pass temporary, the images of --storage image and bilinear), and the host bytes the
 * launcher adds (the padded copy of a plane where the pitch differs from the width). */
unsigned long long tc_band_device_bytes(const tc_job *job, int width, int rows);
unsigned long long tc_band_staging_bytes(int width, int rows);

/* Cuts the image into bands: as many target rows a band as fit `budget` bytes of host memory
 * (counting the device's bytes on a CPU device, whose buffers are host memory) and the device's
 * limits, at `per_row` host bytes for each row of a band's small image besides the launcher's
 * (the caller's own buffers), plus `fixed` bytes. max_rows > 0 caps the rows a band (tests).
 * TC_OK with *plan set; or, when not even one band of the fewest rows fits, TC_EINVAL naming
 * the bytes a band needs and the budget (status: TC_ENOMEM instead when the budget is what the
 * host has now, not the caller's). bilinear is refused (TC_EINVAL): its texture coordinates
 * count from the image's top, and a band's rows would get other weights. */
int tc_band_plan_make(const tc_device *d, const tc_job *job, int width, int height,
                      unsigned long long budget, int budget_given, unsigned long long per_row,
                      unsigned long long fixed, int max_rows, tc_band_plan *plan, tc_msg *m);

/* The budget when the caller gave none: the host's room now (hostmem.h) less the reserve a
 * CPU device keeps for the platform. */
unsigned long long tc_band_default_budget(void);

/* Whether the whole image fits: the device's limits, and on a CPU device the budget (given:
 * every byte of the run; not given: the bytes beyond the buffers the context already holds).
 * 1 when the whole image may run as today. */
int tc_bands_whole_fits(const tc_device *d, const tc_buffers *buffers, const tc_job *job,
                        int width, int height, unsigned long long budget, int budget_given);

/* tc_filter in bands: in into out (the same plane allowed), the result the whole run's. The
 * statistics are the bands' summed (the kernel time, transfers and builds). */
int tc_bands_run(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                 const tc_job *job, const tc_plane *in, tc_plane *out,
                 unsigned long long budget, int budget_given, tc_run_stats *stats, tc_msg *m);

/* tc_filter_image in bands: the planes of a band of rows formed on the host, filtered in
 * bands, and the pixels formed on the host (pixels.h's host conversions: the same values as
 * every other path). */
int tc_bands_run_image(const tc_device *d, tc_program_cache *programs, tc_buffers *buffers,
                       const tc_job *job, const tc_image *src, const tc_image *dst,
                       double scale, double offset, unsigned long long budget,
                       int budget_given, tc_run_stats *stats, int *planes, tc_msg *m);

#endif
