/*
 * tiledconv_internal.h - what the tiledconv command line takes from libtiledconv beyond the
 * public tiledconv.h: float planes and ROIs with the conversions to pixels, the filter
 * description with its named filters and checks, the host's memory, the bands of rows an image
 * too large for memory is cut into, the bilinear-tap trick's pairing, and a few figures of the
 * kernels (the device's row pitch, the article's block, the name of the kernel a filter runs).
 *
 * The library defines these for itself (src/ includes this header rather than declaring them
 * again) and exports them from libtiledconv.so for the tool, which links the shared library
 * like any other program and sees nothing else of src/. The header is not installed and makes
 * no promise of a stable interface: it changes with the tool. Other programs use tiledconv.h.
 */
#ifndef TILEDCONV_INTERNAL_H
#define TILEDCONV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tiledconv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from the shared library for the tool, beside tiledconv.h's TC_API functions. */
#define TC_INTERNAL TC_API

/* The article's block of pixels per work-item of the tiled kernel (tc_params_init's
 * block_width and block_height), and the square tile each pass of twopass transposes. */
#define TC_TILED_BLOCK_X 4
#define TC_TILED_BLOCK_Y 4
#define TC_TWOPASS_TILE 16

/* ---- Messages ---------------------------------------------------------------------- */

/* One line of text: why the last call failed. */
typedef struct {
    char text[512];
} tc_msg;

/* ---- Planes and ROIs (image.c) ----------------------------------------------------- */

/* A float32 plane, row-major, packed (pitch == width), row 0 on top. */
typedef struct {
    int width;
    int height;
    float *px;
} tc_plane;

TC_INTERNAL int tc_plane_alloc(tc_plane *p, int width, int height);
TC_INTERNAL void tc_plane_free(tc_plane *p);

/* The article's source and target ROIs. Both have the same width and height. */
typedef struct {
    int src_left, src_top;
    int dst_left, dst_top;
    int width, height;
} tc_roi;

/* A ROI as asked for; width or height -1 means "the largest that fits both". */
typedef struct {
    long src_left, src_top, dst_left, dst_top;
    long width, height;
} tc_roi_request;

#define TC_ROI_REQUEST_DEFAULT {0, 0, 0, 0, -1, -1}

/* What each field is called where the request came from, for messages: the command line's
 * flags ("-sL", ...) or the C API's fields ("src_left", ...). */
typedef struct {
    const char *src_left, *src_top, *dst_left, *dst_top, *width, *height;
} tc_roi_names;

/* Resolves the request against an M x N image (defaults: the largest ROI
 * that fits both). TC_OK, or TC_EINVAL with a message naming the field and the limit. */
TC_INTERNAL int tc_roi_resolve(const tc_roi_request *req, int image_width, int image_height,
                               const tc_roi_names *names, tc_roi *roi, tc_msg *m);

/* Whether pixel (x, y) of the image lies in the target ROI. */
TC_INTERNAL int tc_roi_in_target(const tc_roi *roi, int x, int y);

/* A plane from packed samples of any depth (PNG, PGM/PPM, JPEG, BMP after decoding): rows of
 * p->width * channels samples, row 0 on top, uint8_t for depth 8 or uint16_t (host order) for
 * depth 16, each sample v standing for v / maxval of full scale. channel -1 gives the intensity
 * plane (tc_intensity_scaled; a gray sample is R = G = B), 0, 1 or 2 that channel of an RGB
 * image, scaled (a gray image's sample for every channel). channels is 1 or 3, maxval 1..65535
 * and within the depth. For 8-bit samples with maxval 255 the plane equals tc_plane_from_rgb's
 * and tc_plane_from_channel's, and the device's (tc_filter_image on GRAY8 or RGB24). */
TC_INTERNAL void tc_plane_from_samples(tc_plane *p, const void *samples, int channels, int depth,
                                       unsigned maxval, int channel);

/* tc_plane_from_rgb (channel -1) or tc_plane_from_channel (0, 1, 2) made in the memory of the
 * RGB buffer itself, so that a large image never holds its RGB bytes and its plane at once:
 * rgb (malloc'd, width * height * 3 bytes) is grown to width * height floats and converted from
 * the last pixel back (pixel i's float goes where pixels i * 4 / 3 and on were, all read
 * already). The values are exactly those of the two functions above. Returns 0 with p owning
 * the memory (rgb must not be used again), or -1 when growing failed: rgb is untouched and
 * still the caller's. */
TC_INTERNAL int tc_plane_take_rgb(tc_plane *p, uint8_t *rgb, int width, int height, int channel);

/* count planes (1: gray; 3: planes[0..2] R, G, B, of one size) converted into out, packed
 * (count samples a pixel, row 0 on top), as bytes (depth 8: tc_map_byte) or as 16-bit
 * words in host order (depth 16: tc_map_word). Pixels inside roi (the target ROI) are mapped
 * with scale and offset; pixels outside it are the input's and are only converted (scale 1,
 * offset 0), so that an offset does not brighten what the filter never touched. roi NULL maps
 * every pixel. */
TC_INTERNAL void tc_planes_to_samples(const tc_plane *planes, int count, int depth,
                                      const tc_roi *roi, double scale, double offset,
                                      void *out);

/* The commonest case: one plane to bytes (width * height). */
TC_INTERNAL void tc_plane_to_gray8(const tc_plane *p, const tc_roi *roi, double scale,
                                   double offset, uint8_t *out);

/* ---- The filter (filter.c) --------------------------------------------------------- */

/* The largest mask, TC_MAX_MASK_SIZE x TC_MAX_MASK_SIZE coefficients. */
#define TC_MAX_MASK_TAPS (TC_MAX_MASK_SIZE * TC_MAX_MASK_SIZE)

typedef struct {
    int taps_x, taps_y;     /* odd, 1 .. TC_MAX_TAPS each, not both 1; the radii are
                             * rx = (taps_x - 1) / 2 and ry = (taps_y - 1) / 2. A mask's width and
                             * height. */
    float kx[TC_MAX_TAPS];  /* along rows; unused entries are 0 */
    float ky[TC_MAX_TAPS];  /* along columns */
    tc_border border;
    float border_value;     /* TC_BORDER_CONSTANT's value */
    /* A non-separable mask when mask_width > 0 (then mask_width = taps_x, mask_height =
     * taps_y): mask[j * mask_width + i] weighs S(x + i - rx, y + j - ry). kx and ky are unused
     * unless mask_separable. */
    int mask_width, mask_height;
    float mask[TC_MAX_MASK_TAPS];
    /* The mask is rank 1 within float32 rounding (tc_filter_factor_mask): kx and ky hold its
     * factors and the separable kernels run them; mask stays for the reference. */
    int mask_separable;
} tc_filter_spec;

#define TC_BORDER_COUNT 5
#define TC_MAX_RADIUS ((TC_MAX_TAPS - 1) / 2)

/* 1 for an odd length in TC_MIN_TAPS .. TC_MAX_TAPS (what -f N and a named filter take). */
TC_INTERNAL int tc_taps_valid(int taps);

/* 1 for an odd length of one axis, 1 .. TC_MAX_TAPS (1: that axis unfiltered). */
TC_INTERNAL int tc_axis_taps_valid(int taps);

/* The binomial of these lengths (1/4 1/2 1/4 for 3 taps, 1 4 6 4 1 / 16 for 5; [1] for 1):
 * integers over a power of two, exact in float up to 27 taps (from 29 taps some of them need
 * more than float32's 24 bits), rounded to float beyond. Replicate border, no mask. */
TC_INTERNAL void tc_filter_binomial_xy(tc_filter_spec *f, int taps_x, int taps_y);

/* The same length along both axes. */
TC_INTERNAL void tc_filter_binomial(tc_filter_spec *f, int taps);

typedef enum {
    TC_NAMED_BOX,
    TC_NAMED_GAUSS,
    TC_NAMED_BINOMIAL,
    TC_NAMED_SOBEL_X,
    TC_NAMED_SOBEL_Y,
    TC_NAMED_SCHARR_X,
    TC_NAMED_SCHARR_Y,
    /* The 3 x 3 masks (tc_named_is_mask): not separable. */
    TC_NAMED_LAPLACIAN,
    TC_NAMED_LAPLACIAN8,
    TC_NAMED_SHARPEN,
    TC_NAMED_COUNT
} tc_named;

/* The longest Sobel kernel: OpenCV's getDerivKernels stops at 31 taps too, and at 63 taps the
 * unnormalised weights (2^61 and more) would pass float32's range on 8-bit input. */
#define TC_MAX_SOBEL_TAPS 31

/* "box", "gauss", "binomial", "sobel-x", "sobel-y", "scharr-x", "scharr-y", "laplacian",
 * "laplacian8", "sharpen"; "?" otherwise. */
TC_INTERNAL const char *tc_named_name(tc_named id);

/* The filter of that name, or -1 when there is none. */
TC_INTERNAL int tc_named_find(const char *name);

/* 1 for the named masks (laplacian, laplacian8, sharpen), which are 3 x 3 and not separable. */
TC_INTERNAL int tc_named_is_mask(tc_named id);

/* The length used when none is given: 3, except gauss: 5 without a sigma, and the length
 * OpenCV's GaussianBlur picks for a sigma (round(6 sigma + 1), made odd, clamped to
 * 3..TC_MAX_TAPS: sigma 10 gives 61 taps) when sigma > 0 is given. */
TC_INTERNAL int tc_named_default_taps(tc_named id, double sigma);

/* gauss's sigma when none is given: OpenCV's getGaussianKernel rule,
 * 0.3 * ((taps - 1) / 2 - 1) + 0.8 (what the command line reports; from 11 taps the weights
 * are the Gaussian of it, tc_gauss_default_coefficients). For every length 3..15 the
 * outermost normalised weight is then above 1/255 (the tightest is 15 taps, sigma 2.6:
 * 0.00411 > 0.00392), so no tap is wasted on a weight that cannot move an 8-bit result. From
 * 17 taps on it is not (17 taps, sigma 2.9: 0.0036; 63 taps, sigma 9.5: 1.2e-4): the rule is
 * OpenCV's, kept for agreement with it; give --sigma (or fewer taps) for a Gaussian without
 * such tails. */
TC_INTERNAL double tc_gauss_default_sigma(int taps);

/* The smallest gauss sigma: below about 1.5e-162, 2 sigma^2 underflows to zero in double
 * precision and the weights become 0 / 0 = NaN. 1e-100 keeps well clear of that; any sigma
 * below about 0.2 already gives the identity filter in float32. */
#define TC_MIN_SIGMA 1e-100

/* What tc_filter_check finds wrong with a filter. */
typedef enum {
    TC_FILTER_OK,
    TC_FILTER_KX_NOT_FINITE,   /* a coefficient of kx is NaN or infinite (*index says which) */
    TC_FILTER_KY_NOT_FINITE,
    TC_FILTER_MASK_NOT_FINITE, /* a weight of the mask (*index: j * mask_width + i) */
    TC_FILTER_OVERFLOW         /* a sum could pass FLT_MAX: *bound says how far it could reach */
} tc_filter_problem;

/* The sum of the absolute weights of the products each output sums: sum|kx| x sum|ky|, or a
 * mask's sum|m| (with its factors when it runs separable, the larger of the two). */
TC_INTERNAL double tc_filter_gain(const tc_filter_spec *f);

/* Every coefficient finite, and no partial sum able to leave float32's range on inputs of at
 * most max_input in magnitude (and the border value, for a constant border): the sums are
 * bounded by tc_filter_gain(f) * max(max_input, |border_value|), and that bound, grown by the
 * rounding of tc_filter_depth(f) float operations, must stay below FLT_MAX. Otherwise the
 * device would turn pixels into infinities or NaN (2 - 2 inf) with nothing to say so. *index
 * (a coefficient's position) and *bound may be NULL. */
TC_INTERNAL tc_filter_problem tc_filter_check(const tc_filter_spec *f, double max_input, int *index,
                                              double *bound);

/* The same with a length per axis (tc_named_supports_xy). */
TC_INTERNAL int tc_filter_named_xy(tc_filter_spec *f, tc_named id, int taps_x, int taps_y,
                                   double sigma);

/* 1 for a mask size the tool takes: width and height odd, 1 .. TC_MAX_MASK_SIZE, not 1 x 1
 * (which would only scale the image: --scale does that). */
TC_INTERNAL int tc_mask_size_valid(int width, int height);

/* sharpen's amount when none is given. */
#define TC_SHARPEN_DEFAULT_AMOUNT 1.0

/* Sets f to the named 3 x 3 mask (tc_named_is_mask): laplacian 0 1 0; 1 -4 1; 0 1 0 (OpenCV's
 * Laplacian with ksize 1), laplacian8 1 1 1; 1 -8 1; 1 1 1, sharpen the identity plus amount
 * times (the identity minus the 3 x 3 binomial), amount 1: -1/16 -1/8 -1/16; -1/8 7/4 -1/8;
 * -1/16 -1/8 -1/16. Factored as tc_filter_set_mask does. f->border and f->border_value are
 * left as they are. Returns 0, or -1 for an id that is not a mask, f untouched. */
TC_INTERNAL int tc_filter_named_mask(tc_filter_spec *f, tc_named id, double amount);

/* Sets f to the mask m (width x height values, row-major, a valid size) and factors it:
 * f->mask_separable and, when it is rank 1, kx and ky (tc_mask_factor); unless the tuning's
 * mask_2d keeps every mask on the 2-D kernels (tc_tuning: for the tests and benchmarks that
 * compare the two paths). f->border and f->border_value are left as they are. */
TC_INTERNAL void tc_filter_set_mask(tc_filter_spec *f, const float *m, int width, int height);

/* ---- The bilinear-tap trick (bilinear.c) ------------------------------------------- */

/* Samples per output pixel along one axis: taps / 2 + 1 (the taps in pairs, one alone). */
#define TC_BILINEAR_MAX_FETCHES (TC_MAX_TAPS / 2 + 1)

/* The bits of fraction a texture unit is assumed to interpolate with: NVIDIA's texture units
 * keep the weight in 9-bit fixed point with 8 bits of fraction (CUDA Programming Guide,
 * "Linear Filtering"); OpenCL leaves the precision of CLK_FILTER_LINEAR to the device. */
#define TC_TEXTURE_FRACTION_BITS 8

/* One axis's samples, as Images.cl takes them: sample[s] = (o, 0.5 + f, w, 0) where o is the
 * offset of the sample's first tap from the centre, f = w2 / (w1 + w2) the interpolation
 * weight of its second tap and w = w1 + w2 (for the lone tap: its offset, 0.5, its weight). */
typedef struct {
    int taps;
    int fetches;  /* taps / 2 + 1 */
    int lone;     /* the sample that reads one tap alone: fetches - 1 (the last tap), or 0 */
    float sample[TC_BILINEAR_MAX_FETCHES][4];
} tc_bilinear_axis;

/* Pairs the taps of k (taps odd, 1..TC_MAX_TAPS): taps 0 and 1, 2 and 3, ... with the last
 * tap alone; where a pair's two weights have opposite signs (then no point between the two
 * texels gives their sum), the other pairing, the first tap alone and 1 and 2, 3 and 4, ...
 * Returns 0 with *a filled, or -1 when both pairings mix signs, *bad (may be NULL) then the
 * index of the first tap of the first such pair in the first pairing. A zero weight pairs
 * with either sign. */
TC_INTERNAL int tc_bilinear_pair(const float *k, int taps, tc_bilinear_axis *a, int *bad);

/* ---- The host's memory (hostmem.c) ------------------------------------------------- */

typedef struct {
    unsigned long long bytes; /* the smallest room of those known; ~0ULL when none is known */
    const char *limit;        /* which: "MemAvailable", "RLIMIT_AS, ulimit -v",
                               * "RLIMIT_DATA, ulimit -d", "the cgroup's memory.max" */
} tc_host_room;

/* The room now: the host's MemAvailable (/proc/meminfo); RLIMIT_AS less the address space in
 * use (VmSize), RLIMIT_DATA less the data in use (VmData), each when set; a cgroup v2
 * memory.max less memory.current, when set. */
TC_INTERNAL void tc_host_room_now(tc_host_room *room);

/* 1 when RLIMIT_AS or RLIMIT_DATA is set: the address space is bounded, so that what one
 * thread maps can make another's thread stack fail (PoCL aborts then). */
TC_INTERNAL int tc_host_address_bounded(void);

/* The process's resident memory now (VmRSS of /proc/self/status), in bytes; 0 when unknown.
 * What a memory budget has already spent: the libraries, the OpenCL platform once open, and
 * whatever the allocator keeps of what was freed. */
TC_INTERNAL unsigned long long tc_host_resident(void);

/* Bytes as a message shows them: "1074 MB" (decimal megabytes, like the rest of the tool). */
TC_INTERNAL double tc_mb(unsigned long long bytes);

/* ---- Images in bands of rows (bands.c, context.c) ---------------------------------- */

typedef struct {
    int width, height; /* the image */
    tc_roi roi;        /* the whole run's (resolved) */
    int ry;            /* the filter's vertical radius */
    int align;         /* band starts and halo_top are multiples of this (1 or a tile's height) */
    int halo_top;      /* source rows read above a band's first row: ry rounded up to align */
    int rows;          /* target rows per band: a multiple of align (the last band may be
                        * shorter); the ROI's height when there is one band */
    int count;         /* bands */
    int wrap;          /* wrap border with more than one band (rows read modulo the height) */
    unsigned long long need; /* host bytes of the plan's largest band; when refused, of the
                              * smallest band there could be */
    int need_rows;     /* the rows of that band's small image */
} tc_band_plan;

/* Band k of a plan: its target rows [a, b) and source rows [lo, hi), both counted from the
 * ROI's top. One band reads [0, height); more read lo = a - halo_top and hi = b + ry, clamped
 * to [0, height) but for wrap, whose rows beyond are those of row r modulo height. The band's
 * small image has hi - lo rows; its row a - lo is target row a. */
typedef struct {
    int a, b;
    int lo, hi;
} tc_band;

TC_INTERNAL void tc_band_at(const tc_band_plan *plan, int k, tc_band *band);

/* The plan tc_filter calls of p on a width x height image on ctx would be cut by (context.c),
 * for callers that bring the rows themselves (the command line's strips): the arguments as
 * tc_band_plan_make's. TC_OK, or the status with tc_error(ctx) saying why. */
TC_INTERNAL int tc_context_plan_bands(tc_context *ctx, const tc_params *p, int width, int height,
                                      unsigned long long budget, int budget_given,
                                      unsigned long long per_row, unsigned long long fixed,
                                      int max_rows, tc_band_plan *plan);

/* ---- JPEG from coefficients to coefficients (context.c, jpeg_filter.c) ------------ */

struct jpeg_coefs; /* src/io/jpeg_coefs.h */

/* One JPEG filtered as tc_filter_image filters its pixels, on the device from its quantised
 * coefficients to the output's, nothing else crossing the bus: in (jpeg_coefs_read's; luma
 * alone for channels 1) is decoded on the device, filtered with p (the job built as
 * tc_filter_image builds it for in's size), and encoded into out's coefficients (laid out
 * by jpeg_coefs_layout for the same size and channels; its block allocated here where it has
 * none, by jpeg_coefs_alloc, and jpeg_coefs_free frees it). The output's 8-bit samples are those tc_filter_image
 * gives for the decoded pixels, so that jpeg_coefs_encode writes the file the CPU path
 * writes. TC_OK with *exact 1 (out filled, tc_last_stats the filter's figures); TC_OK with
 * *exact 0 where that cannot be promised (the device's decode is not TurboJPEG's for this
 * file, or tc_filter_image would run these pixels in bands or convert them on the host): the
 * caller then decodes the file on the CPU and filters its pixels; or the failure, tc_error
 * saying why. The context keeps the decoder's, the encoder's and the slot's buffers between
 * calls. */
TC_INTERNAL int tc_filter_jpeg(tc_context *ctx, const struct jpeg_coefs *in, int channels,
                               const tc_params *p, struct jpeg_coefs *out, int *exact);

/* An image's pixels filtered as tc_filter_image filters them and encoded on the device into
 * out's coefficients (laid out by jpeg_coefs_layout for src's size; its block allocated here
 * where it has none), so that the CPU's part of writing the JPEG is the entropy coding alone
 * (jpeg_coefs_encode): src 8-bit gray (TC_PIXELS_GRAY8) for a gray out, RGB (TC_PIXELS_RGB24)
 * for a colour one, in packed rows. TC_OK with *done 1; TC_OK with *done 0 where
 * tc_filter_image would run these pixels in bands or convert them on the host (the caller
 * then filters them so and encodes on the CPU); or the failure, tc_error saying why. */
TC_INTERNAL int tc_filter_to_jpeg(tc_context *ctx, const tc_image *src, const tc_params *p,
                                  struct jpeg_coefs *out, int *done);

/* tc_filter_jpeg (in, pixels NULL) and tc_filter_to_jpeg (pixels, in NULL) in two halves, so
 * that a caller with several images keeps the device busy: begin enqueues the image and
 * returns at once, *ticket its number (TC_OK with *ticket -1: not for the device, as *exact 0
 * and *done 0 say above); end waits for it and gives *exact as those calls do, tc_last_stats
 * then its figures. Two images may be in flight at once (begin refuses a third); in, pixels
 * and out must stay as they are until the end. */
TC_INTERNAL int tc_jpeg_begin(tc_context *ctx, const struct jpeg_coefs *in, const tc_image *pixels,
                              int channels, const tc_params *p, struct jpeg_coefs *out,
                              int *ticket);
TC_INTERNAL int tc_jpeg_end(tc_context *ctx, int ticket, int *exact);

/* One JPEG decoded on the device as tc_filter_jpeg decodes it, its samples read back into
 * out (in's width x height x channels bytes, rows packed; channels 1: the first component's
 * plane, 3: RGB): what -e compares with TurboJPEG's own decode. TC_OK with *exact 1, or 0
 * where the device's decode is not TurboJPEG's by design for this file (the cases
 * tc_filter_jpeg gives to the CPU); or the failure, tc_error saying why. */
TC_INTERNAL int tc_decode_jpeg(tc_context *ctx, const struct jpeg_coefs *in, int channels,
                               unsigned char *out, int *exact);

/* ---- Study and test settings (tuning.c) -------------------------------------------- */

/* Settings for kernel studies and for the tests, read by every context at each run: switches
 * that would otherwise be rebuilds with other -D values. They are process-wide, as the
 * programs' cache is; set them before runs start, not while another thread runs one. All zero
 * (the default) is what the library always does. The command line sets them with --tune
 * NAME=VALUE, bench/casebench.c with tune=NAME=VALUE; each NAME is the field's, '-' for '_'. */
typedef struct {
    char cl_options[512];   /* appended to every kernel program's build options (the kernels'
                             * study switches: TiledConv.cl, Long.cl, Masks.cl list them) */
    char dump_program[512]; /* a file that each program built is written to (its binary: PTX
                             * on NVIDIA), for reading its registers and machine code */
    char dump_source[512];  /* a folder that each program built from source is written to,
                             * program-XXXXXX.cl, its first line a comment with the build
                             * options (tests/cold-builds.sh compiles them for other CPUs) */
    int long_tile_h;        /* tiled_long_conv's tile height, 8..4096, a multiple of 8 (as
                             * before, halved while the tile does not fit local memory); 0: 256 */
    int long_job_w;         /* tiled_long_conv's job width along rows, 8 or 16; 0: the variant's
                             * (long-wide: 16), else TC_LONG_JOB_W (8, src/config.h) */
    int long_group;         /* tiled_long_conv's work-items a group, 256, 512 or 1024 (a
                             * column of tile height x 32 / this many outputs each); 0: 256 */
    int registers;          /* the register budget of every tiled kernel a job builds on
                             * NVIDIA's compiler, 32..255 (-cl-nv-maxrregcount, the kernels
                             * then built without their required group size); 0: the
                             * library's (src/config.h's long kernel budgets) */
    int pyramid_tile_h;     /* the per-octave pyramid kernel's tile height: 64, 128 or 256 */
    int pyramid_interleave; /* 1: the pyramid's slices first in the NDRange (groups of 1 x 8 x
                             * 32), each tile's slices one after another */
    int mask_2d;            /* 1: rank-1 masks stay on the 2-D kernels (not factored) */
    long long staging_chunk; /* bytes a staged transfer moves at a time, at least 64: the
                              * tests move small images in many chunks */
    long long pinned_bytes; /* the pipeline's pinned ring per direction, at most (default 32 MiB;
                             * at least one chunk) */
    int no_images;          /* 1: every device answers that it has no image support */
    int host_staged;        /* 1: images in tc_host_alloc's memory go through the staging
                             * like any other (set as host-pinned=0), for comparing the ways */
    int no_detach;          /* 1: the command line's run stays in the process the shell started
                             * and waits for the driver's teardown (set as detach=0) */
    int copy_threads;       /* threads that copy between callers' memory and the pinned staging,
                             * the calling one included, 1..16 (1: the calling thread alone);
                             * 0: half the cores (copier.h) */
    int copy_cached;        /* 1: the copies between callers' memory and the pinned staging are
                             * plain memcpy (set as copy-stream=0; default: streaming stores,
                             * past the caches, for large parts on x86-64: bulk_copy.c) */
    int worker_nice;        /* the command line's batch workers run at this niceness, 0..19
                             * (Linux; the lanes and the copy threads stay at the process's),
                             * for studying who the scheduler favours; 0: the process's */
    int stream_slots;       /* images a batch keeps in flight, 1..6, on any device (the tests
                             * take a CPU device through the GPU's ways); 0: stream.c's choice */
    int no_overlap;         /* 1: a batch's copies for one image no longer run beside its
                             * enqueues for another (set as batch-overlap=0), for comparing */
    int host_mapped;        /* 1: tc_host_alloc's blocks are the driver's page-locked memory,
                             * mapped (set as host-wrap=0; default: memory of our own that
                             * the driver locks in place, host_blocks.h), for comparing */
    int no_fused_bytes;     /* 1: a gray 8-bit image of the library's pipeline is unpacked,
                             * filtered and packed by three kernels, as every other layout is,
                             * rather than by one kernel that reads and writes its bytes (set
                             * as fused-bytes=0), for comparing */
    int jpeg_device;        /* 1: a batch's JPEG written as JPEG goes through the device from
                             * coefficients to coefficients wherever that gives the CPU path's
                             * bytes (the file layer's jpeg_device_path says where), the workers
                             * doing the entropy decoding and coding alone; 0: decoded and
                             * encoded on the CPU */
} tc_tuning;

/* The threads that copy between callers' memory and the pinned staging for the calling
 * thread's runs from now on, itself included: at most n (0: no limit of its own, the tuning's
 * copy_threads or half the cores; 1: the calling thread alone). For a caller whose other
 * threads keep the cores busy (the command line's batch lanes). */
TC_INTERNAL void tc_copy_threads_here(int n);

/* The settings from now on (NULL: the defaults). */
TC_INTERNAL void tc_set_tuning(const tc_tuning *t);

/* One setting "NAME=VALUE" into *t (an empty VALUE: the default): 0, or -1 with the reason in
 * err (an unknown name, with the names; a value out of its range) and *t untouched. */
TC_INTERNAL int tc_tuning_parse(tc_tuning *t, const char *setting, char *err, size_t err_size);

/* tc_tuning_parse into the settings in force: for callers without the struct's layout (the
 * Python tests through ctypes). */
TC_INTERNAL int tc_tune(const char *setting, char *err, size_t err_size);

/* ---- Transfers straight from and to tc_host_alloc's memory (context.c) ------------- */

/* The packed streams of images that went up from (up) and came down into (down) a block of
 * tc_host_alloc with no staging copy, counted over the context's life: the tests' proof that
 * the staging was skipped, and that the tuning's host_staged keeps it. overlapped: the images
 * of batches whose staging copies ran beside the enqueues of another image (stream.c), the
 * proof that a test's batch took that way. */
typedef struct {
    unsigned long long up, down, overlapped;
} tc_direct_counts;

TC_INTERNAL void tc_direct_transfers(const tc_context *ctx, tc_direct_counts *counts);

/* ---- The kernels (kernel_args.c, storage.c, launch.c, variants.c, host_api.c) ------- */

/* The row pitch of a plane on the device, in floats: the width rounded up to TC_ROW_ALIGN. */
TC_INTERNAL int tc_device_pitch(int width);

/* Whether a run reads an image: storage image (tiled, onepass) or bilinear. */
TC_INTERNAL int tc_reads_image(tc_algorithm algorithm, tc_storage storage);

/* The median of count values (a copy is sorted); -1 for none. */
TC_INTERNAL double tc_median(const double *values, int count);

/* What -v says of the kernel that runs a filter with an algorithm and, for tiled, the variant
 * --kernel names (NULL or "": the default for the filter's lengths). */
typedef struct {
    const char *name;    /* the kernel function's: "tiled_conv", "tiled_long_conv", ... */
    const char *variant; /* the tiled kernel's variant, or NULL for the other algorithms */
    int tiled;           /* one of the tiled kernels: the article's classes, a block a work-item */
    int columns;         /* its work-item computes a column of pixels (tiled_long_conv), not a
                          * block */
    int strip_tile_w;    /* tiled_slide_conv: the width of the tiles a group walks down a strip
                          * of (its classes are per tile); 0 for the others */
} tc_kernel_about;

TC_INTERNAL void tc_kernel_describe(const tc_filter_spec *f, tc_algorithm algorithm,
                                    const char *kernel, tc_kernel_about *k);

/* The kernels of a mask that is not separable: the tiled one and the one-pass one. */
TC_INTERNAL const char *tc_mask_kernel_name(tc_algorithm algorithm);

#ifdef __cplusplus
}
#endif

#endif
