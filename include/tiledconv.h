/*
 * tiledconv.h - image filtering on OpenCL devices: separable filters of up to 63 taps (a length
 * per axis) and non-separable masks of up to 15 x 15, run by AMD's tiled convolution (the
 * article's four classes of work-groups) beside the classic two-pass and one-pass kernels,
 * every result bit for bit what the `tiledconv` command line computes.
 *
 *     #include <tiledconv.h>
 *     cc prog.c $(pkg-config --cflags --libs tiledconv)
 *
 *     tc_context *ctx;
 *     char err[256];
 *     if (tc_open(NULL, &ctx, err, sizeof err) != TC_OK) { puts(err); return 1; }
 *     tc_params p;
 *     tc_params_init(&p);                 // 3-tap binomial, replicate border, whole image
 *     if (tc_filter(ctx, src, dst, width, height, &p) != TC_OK) puts(tc_error(ctx));
 *     static const float laplacian[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
 *     p.mask = laplacian;                 // a 3 x 3 mask instead of kx and ky
 *     p.mask_width = p.mask_height = 3;
 *     if (tc_filter(ctx, src, dst, width, height, &p) != TC_OK) puts(tc_error(ctx));
 *     tc_close(ctx);
 *
 * What is computed (docs/kernels.md): for a target pixel at ROI offset (x, y),
 *     dst(dst_left + x, dst_top + y) = sum_j sum_i w[j][i] S(src_left + x + i - rx,
 *                                                            src_top + y + j - ry)
 * with w[j][i] = ky[j] kx[i] (rx = (taps_x - 1) / 2, ry = (taps_y - 1) / 2), or a mask's weight
 * mask[j * mask_width + i] (rx = (mask_width - 1) / 2, ry = (mask_height - 1) / 2):
 * correlation, no flip; S reads only the source ROI, positions outside it mapped by the border
 * rule as if the ROI were an isolated image. Pixels of dst outside the target ROI are those of
 * src. Planes are float32, row-major, packed (the row pitch is the width), row 0 on top.
 *
 * A mask that is rank 1 within float32 rounding (an outer product ky kx^T, as a blur's is) is
 * found and factored (tc_mask_factors), and runs through the separable kernels, which are
 * faster; the reference and the tolerance still use its own weights.
 *
 * Rules: every int function returns TC_OK or one of the status codes below; the library never
 * prints and never exits. src may equal dst (in place). A context serves one thread at a time;
 * separate contexts may be used from separate threads at once.
 */
#ifndef TILEDCONV_H
#define TILEDCONV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && defined(TILEDCONV_BUILDING)
#define TC_API __attribute__((visibility("default")))
#else
#define TC_API
#endif

#define TC_VERSION_MAJOR 1
#define TC_VERSION_MINOR 3
#define TC_VERSION_PATCH 0

/* Filter lengths: odd, TC_MIN_TAPS .. TC_MAX_TAPS when both axes have the same; with a length
 * per axis each is odd, 1 .. TC_MAX_TAPS (1 leaves that axis unfiltered), not both 1. */
#define TC_MIN_TAPS 3
#define TC_MAX_TAPS 63
/* Non-separable masks: odd widths and heights 1 .. TC_MAX_MASK_SIZE, not 1 x 1. */
#define TC_MAX_MASK_SIZE 15
/* The largest image any call takes: 2^30 pixels (width x height; 32768 x 32768), so that every
 * index the kernels compute stays an int with room for padded rows (since 1.3). Larger is
 * TC_EINVAL, checked before any arithmetic on the sizes; so are sizes below 1, and, for what
 * goes to a device, more bytes than its largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE). */
#define TC_MAX_PIXELS (1 << 30)
/* The most timed runs one *_timed call takes (since 1.3). */
#define TC_MAX_ITERATIONS 1000000

typedef struct tc_context tc_context;

/* TC_BILINEAR (since 1.2): the bilinear-tap trick, a two-pass filter on image objects whose
 * texture samples read two taps each (linear filtering): an approximation within the
 * tolerance tc_tolerance gives it, for filters whose paired taps share a sign. */
typedef enum { TC_TILED, TC_TWOPASS, TC_ONEPASS, TC_BILINEAR } tc_algorithm;

/* Where the tiled and one-pass kernels read the source plane (since 1.2): a buffer (the
 * default), or an image2d_t of one float channel read through a nearest-neighbour sampler,
 * on devices with image support. The result is the same, bit for bit. twopass reads buffers
 * only; bilinear always samples an image. */
typedef enum { TC_STORAGE_BUFFER, TC_STORAGE_IMAGE } tc_storage;

/* What a read outside the source ROI returns, with OpenCV's meanings, for a ROI "abcd":
 * replicate aaa|abcd|ddd (the default), constant vvv|abcd|vvv (v = border_value),
 * reflect101 dcb|abcd|cba, reflect cba|abcd|dcb, wrap bcd|abcd|abc. */
typedef enum {
    TC_BORDER_REPLICATE,
    TC_BORDER_CONSTANT,
    TC_BORDER_REFLECT101,
    TC_BORDER_REFLECT,
    TC_BORDER_WRAP
} tc_border;

/* One filter run. Always start from tc_params_init: fields may be added at the end. */
typedef struct {
    int taps_x, taps_y;          /* odd lengths of kx and ky, each 1..TC_MAX_TAPS, not both 1
                                  * (1: that axis unfiltered)                                */
    const float *kx, *ky;        /* NULL: the binomial of that length                        */
    int src_left, src_top, dst_left, dst_top;
    int roi_width, roi_height;   /* each 0: the largest that fits both ROIs on that axis      */
    tc_border border;
    float border_value;          /* TC_BORDER_CONSTANT's value                               */
    tc_algorithm algorithm;
    const float *mask;           /* a non-separable mask, mask_height rows of mask_width
                                  * weights, row-major (mask[j * mask_width + i]); NULL: the
                                  * separable filter kx, ky. With a mask, taps_x, taps_y, kx
                                  * and ky are not used. TC_TWOPASS refuses a mask that is not
                                  * rank 1 (it has no two 1-D passes)                        */
    int mask_width, mask_height; /* its sizes: odd, 1..TC_MAX_MASK_SIZE, not both 1          */
    /* Tuning of the tiled kernel (the defaults are the article's and the fastest measured). */
    int block_width;             /* pixels per work-item along rows: 4 (default) or 8        */
    int block_height;            /* ... along columns: 1..16, default 4; raised to the vertical
                                  * radius, and to 8 from radius 3. Filters longer than 15
                                  * taps and masks run variants of the tiled kernel with their
                                  * own geometry (docs/kernels.md), which these two do not
                                  * change                                                    */
    int vector_io;               /* 1 (default): float4 loads and stores where aligned       */
    int count_classes;           /* 1: the kernel counts the classes of its work-groups, for
                                  * tc_stats.classes (an atomic per group; off by default)    */
    /* tc_filter_image: the 8-bit output inside the target ROI is v * out_scale + out_offset,
     * then floor(clamp(., 0, 255) + 0.5). Default 1 and 0.                                  */
    double out_scale, out_offset;
    int convert_on_host;         /* tc_filter_image: 1 forms the planes and the 8-bit pixels
                                  * on the host even where the device could (it does so anyway
                                  * on a device without double precision)                    */
    /* Since 1.2. */
    tc_storage storage;          /* tiled and onepass: TC_STORAGE_BUFFER (default) or
                                  * TC_STORAGE_IMAGE; TC_EINVAL with twopass, and on a device
                                  * without images (CL_DEVICE_IMAGE_SUPPORT) or whose 2-D images
                                  * are smaller than the plane's padded rows. bilinear samples
                                  * an image whatever this says                              */
    /* A study option. */
    const char *kernel;          /* tiled: the variant of the tiled kernel to run for a filter
                                  * longer than the article's or a mask (docs/kernels.md:
                                  * tiled, long, slide-..., rows, split, mask, mrows-...); NULL
                                  * or "": the fastest measured for the filter's lengths.
                                  * TC_EINVAL for an unknown name or a variant that does not
                                  * take the filter; the other algorithms ignore it          */
} tc_params;

enum {
    TC_OK = 0,
    TC_EINVAL = 1,  /* a bad argument: the command line's exit 2, Python's ValueError        */
    TC_EDEVICE = 2, /* an OpenCL or device failure: exit 1, tiledconv.Error                  */
    TC_ENOMEM = 3   /* out of host or device memory: exit 1, tiledconv.Error                 */
};

/* 3-tap binomial (1/4, 1/2, 1/4) along both axes, replicate border, tiled, whole image. */
TC_API void tc_params_init(tc_params *p);

/* Opens a device and makes a context on it. device: NULL or "" (the first GPU of any platform,
 * else the first device of any kind), "gpu", "cpu" or "all" (the first device of that type),
 * "P:D" (device D of platform P, by the indices tc_list_devices gives), "P" (the first device
 * of platform P, a GPU where it has one), or a type and indices together: "cpu:P", "gpu:P:D"
 * (device D among that type's devices of platform P), "gpu::D" (among the first platform's).
 * On failure *ctx is NULL and err (when not NULL) says why. Returns TC_EINVAL when nothing
 * matches the request, TC_EDEVICE or TC_ENOMEM when opening it failed. */
TC_API int tc_open(const char *device, tc_context **ctx, char *err, size_t err_size);

/* Filters a width x height plane. dst receives width * height floats: inside the target ROI
 * the filtered values, outside it src's values. The program for these settings is built on the
 * first call and reused by later ones; device buffers are reused while the image fits them. */
TC_API int tc_filter(tc_context *ctx, const float *src, float *dst, int width, int height,
                     const tc_params *p);

/* Checks p against a width x height image and the context's device without running anything
 * (since 1.2): TC_OK, or the status tc_filter would return before any work for a bad argument
 * or a device that cannot serve it (TC_EINVAL: e.g. TC_STORAGE_IMAGE or TC_BILINEAR on a
 * device without image support), tc_error saying why. */
TC_API int tc_check_params(tc_context *ctx, int width, int height, const tc_params *p);

/* tc_filter for benchmarks: one warm-up run, then `iterations` timed runs
 * (1..TC_MAX_ITERATIONS), each timed by the device's profiling counters; dst receives the
 * result (the same in every run). */
TC_API int tc_filter_timed(tc_context *ctx, const float *src, float *dst, int width,
                           int height, const tc_params *p, int iterations);

/* The most memory (bytes) a filter call on ctx may allocate (since 1.3): on a CPU device its
 * buffers too, which are host memory. An image that does not fit it, or the device's own
 * memory (CL_DEVICE_MAX_MEM_ALLOC_SIZE, CL_DEVICE_GLOBAL_MEM_SIZE), is filtered in bands of
 * rows with the rows the filter reaches above and below each, by tc_filter and
 * tc_filter_image, with the whole image's result bit for bit; TC_EINVAL when not even one band
 * fits, naming the bytes. 0 (the default): the memory the host has available at each call,
 * less a reserve for the platform. tc_filter_timed measures whole images only. The caller's
 * src and dst are its own and not counted. */
TC_API int tc_set_max_memory(tc_context *ctx, unsigned long long bytes);

/* Whether the pipeline's calls on ctx (tc_filter_image, tc_filter_images) time their
 * conversions and one-pass kernels with profiling events (since 1.3): on (nonzero, the
 * default) or off (0). A timed command costs the calling thread more to enqueue: on NVIDIA's
 * driver 16-17 us a kernel with its event against 6 without (bench/enqueue_probe.c), a
 * third of what a gray 1080p image of a batch costs the caller in all. Off, tc_last_stats
 * gives those calls' kernel times and convert_ms as 0; their transfer times, and every other
 * call's figures, stay. TC_EINVAL for a NULL ctx. */
TC_API int tc_set_timing(tc_context *ctx, int on);

/* Why the last failed call on ctx failed, in one line; "" when it succeeded. The text names
 * the argument, or the OpenCL call and its error name ("clCreateBuffer(input plane) failed:
 * CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)"). Valid until the next call on ctx. */
TC_API const char *tc_error(const tc_context *ctx);

/* What the device's compiler said while building the context's kernel programs: for each build
 * whose log was not empty, a line "build options: ..." and the log's lines; "" when every
 * build was silent (as the kernels are meant to build), or for a NULL ctx. The library never
 * prints it: the command line shows it with -v. A failed build's log is in tc_error's text.
 * Valid until the next call on ctx. */
TC_API const char *tc_build_log(const tc_context *ctx);

/* Gives back the buffers the context keeps between calls to save making them again (since
 * 1.3): its device buffers (on a CPU device, host memory), its transfers' page-locked staging,
 * the pipeline's queues and the last gradient's and scale space's buffers. Its programs, its
 * device and the caller's tc_host_alloc blocks stay; the next call makes what it needs again.
 * For a caller holding memory to a budget between images of different sizes. TC_EINVAL for a
 * NULL ctx; call it when no call on ctx is running. */
TC_API int tc_trim(tc_context *ctx);

/* Releases the context and everything it holds. NULL is allowed. */
TC_API void tc_close(tc_context *ctx);

/* ---- Figures of the last successful tc_filter or tc_filter_timed on a context ----------- */

typedef struct {
    tc_algorithm algorithm;
    int iterations;                 /* timed runs: 1 for tc_filter                          */
    double kernel_ms_min, kernel_ms_median, kernel_ms_mean; /* the whole filter, per run     */
    const double *kernel_ms;        /* each timed run's kernel time; owned by the context,
                                     * valid until its next filter call                      */
    int passes;                     /* 2 for twopass and the tiled kernel's split variant,
                                     * whose passes are timed apart; else 1                  */
    const double *pass_ms[2];       /* those two: each pass per run; else NULL               */
    double build_ms;                /* program build, host wall time; 0 when it was cached   */
    double upload_ms;               /* host to device: the input plane and coefficients      */
    double download_ms;             /* device to host: the output plane                      */
    double wall_ms_per_iteration;   /* host wall clock over the timed runs / iterations:
                                     * kernel time plus launch overhead and gaps             */
    size_t global[2], local[2];     /* the launch (pass 1 for twopass and split; split's
                                     * classes below count both passes' work-groups)         */
    int block[2];                   /* tiled: the block each work-item produced              */
    long classes[4];                /* tiled: work-groups of the article's classes 1 (free on
                                     * read), 2 (checks reads), 3 (free on write), 4 (checks
                                     * writes); every group is in one of 1/2, one of 3/4     */
    int classes_counted;            /* 1: counted by the kernel (count_classes), 0: predicted */
    int roi_width, roi_height;      /* the ROI that was filtered                             */
    long programs_built;            /* programs this context has built so far (a build count,
                                     * so callers and tests can see the cache work)          */
    int planes;                     /* planes filtered: 1, or 3 (colour, tc_filter_image),
                                     * or a U8/U16/F32 image's channels (1, 3 or 4); the
                                     * kernel times are the planes' summed                   */
    double convert_ms;              /* tc_filter_image: forming the planes and the 8-bit
                                     * pixels on the device; 0 when done on the host, and
                                     * for a gray U8 image over its whole area with the
                                     * plain mapping (the filter kernel reads and writes
                                     * its bytes: no conversions run)                         */
} tc_stats;

/* Copies the figures of the last successful filter call. TC_EINVAL when there was none. The
 * device times of a call through the pipeline (tc_filter_image, tc_filter_images) are read
 * from the driver here, when first asked for, not during the call: a batch that nobody asks
 * about does not wait for those queries (a few microseconds each, several an image). TC_EDEVICE
 * when the driver could not give them (the figures then lack those times). */
TC_API int tc_last_stats(const tc_context *ctx, tc_stats *stats);

/* The device's copy bandwidth for `bytes`: the median time of `repeats` (>= 1)
 * clEnqueueCopyBuffer calls after one warm-up, in ms: the floor of a filter pass. */
TC_API int tc_copy_time(tc_context *ctx, size_t bytes, int repeats, double *median_ms);

/* ---- Pixels in, pixels out ---------------------------------------------------------------- */

/* Pixel layouts tc_filter_image reads and writes. */
typedef enum {
    TC_PIXELS_GRAY8,    /* one byte per pixel                                               */
    TC_PIXELS_RGB24,    /* R, G, B bytes                                                    */
    TC_PIXELS_BGR24,    /* B, G, R bytes: a 24-bit BMP's rows                                */
    TC_PIXELS_BGRX32,   /* B, G, R and one unused byte: a 32-bit BMP's rows                  */
    TC_PIXELS_INDEXED8, /* one byte per pixel, an index into the palette (input only)       */
    TC_PIXELS_FLOAT32,  /* float planes of samples on the 0..255 scale, one after another   */
    /* Since 1.3: samples channel-last (H x W x C, as numpy and OpenCV hold images), `planes`
     * channels a pixel, 1, 3 or 4, each channel filtered on its own with the same filter. src
     * and dst both have one of these three formats, with the same channel count; the sample
     * types may differ (8 bits in, float out). The library works on the 0..255 scale: */
    TC_PIXELS_U8,       /* 8-bit samples v, read as v; written floor(clamp(v, 0, 255) + 0.5)   */
    TC_PIXELS_U16,      /* 16-bit samples in the host's byte order, read as v * 255 / 65535
                         * (in double, rounded to float); written round(clamp(v, 0, 255) *
                         * 65535 / 255) in double, halves up: the command line's 16-bit rule */
    TC_PIXELS_F32       /* float samples, read and written as they are                        */
} tc_pixel_format;

typedef struct {
    tc_pixel_format format;
    int width, height;
    int planes;                   /* TC_PIXELS_FLOAT32: 1 (intensity) or 3 (R, G, B);
                                   * U8, U16, F32: channels a pixel, 1, 3 or 4               */
    void *data;                   /* the first byte of row 0, the top row of the picture     */
    long stride;                  /* bytes from row y to row y + 1; negative when the rows are
                                   * stored bottom-up (BMP); FLOAT32 planes follow each other
                                   * every height * stride bytes. U16 and F32: data and stride
                                   * multiples of the sample's size                          */
    const unsigned char *palette; /* TC_PIXELS_INDEXED8: palette_size R, G, B triples        */
    int palette_size;             /* 1..256                                                  */
} tc_image;

/* Filters an image given as pixels, so that bytes rather than float planes cross the bus:
 * the U8, U16 and F32 layouts go up as the caller's rows, every channel is filtered in one
 * pass through the device, and the output's samples come down (the bytes between one row's
 * pixels and the next row are neither read nor written: a view into a larger array is
 * safe). Pinned staging memory, kernels and device buffers are kept by the context between
 * calls, and the copies between the caller's memory and the staging overlap the transfers
 * (an image over 4 MiB each way chunk by chunk; a smaller one is copied whole, then moved in
 * one transfer, which costs less than many). Since 1.3 those copies are shared out among a few threads the context starts on first use
 * (half the cores the process may run on, 2 to 8; they poll for 0.15 ms after each copy, then
 * sleep until the next call, and end with tc_close).
 * For the older layouts:
 * the device forms the planes, filters them, and forms the 8-bit output. What is filtered
 * follows dst's format: a one-channel dst (GRAY8, or FLOAT32 with 1 plane) receives the
 * intensity plane I = 0.299 R + 0.587 G + 0.114 B filtered; a colour dst (RGB24, BGR24,
 * BGRX32, or FLOAT32 with 3 planes) receives src's R, G and B planes each filtered. An 8-bit
 * dst pixel is floor(clamp(v * out_scale + out_offset, 0, 255) + 0.5) inside the target ROI
 * and the input's value, only converted, outside it. The conversions are computed in double
 * precision in the host's order with contraction off, so every value is identical to
 * tc_filter on planes formed on the host; a device without double precision (or
 * p->convert_on_host) gets them on the host. src and dst have the same width and height; an
 * INDEXED8 index past the palette is TC_EINVAL. The bytes of dst between one row's pixels and
 * the next row (a BMP's padding, up to |stride|) are set to 0; nothing after the row stored
 * last is touched. */
TC_API int tc_filter_image(tc_context *ctx, const tc_image *src, const tc_image *dst,
                           const tc_params *p);

/* Many images through one context (since 1.3): src[i] filtered into dst[i], i = 0 .. count -
 * 1, each pair as tc_filter_image takes it, all with p (whose ROI fields apply to each image:
 * sizes 0 give each its whole), sizes free to differ from one pair to the next. The U8, U16
 * and F32 layouts flow through a pipeline: while one image's samples go up, another's
 * kernels run and a third's result comes down, each through pinned staging memory the
 * context keeps (three images in flight). So do the older layouts wherever the device
 * converts them (it has double precision and p->convert_on_host is 0; not FLOAT32 planes in);
 * pairs the host converts, and images over the device's memory or the budget (in bands), run
 * one after another after them. Every pair is checked before any work, palette indices
 * included: TC_EINVAL names the first bad one ("images[3]: ...") and nothing is written. A failure while running (TC_EDEVICE, TC_ENOMEM) leaves the dst of the
 * images not yet finished undefined. Returns when every dst is written; until then src's
 * samples must not change and dst's must not be read or written (by other threads).
 * count 0 does nothing. tc_last_stats then gives the times summed over the images. */
TC_API int tc_filter_images(tc_context *ctx, const tc_image *src, const tc_image *dst,
                            int count, const tc_params *p);

/* Page-locked host memory for the pixels of tc_filter_image and tc_filter_images (since
 * 1.3): a block of `bytes` that ctx's device reads and writes directly. When an image's rows
 * (src, dst or both) lie wholly inside one block of the same context, their transfer goes
 * straight between that memory and the device: no copy into the staging memory and none out
 * of it, with the same bytes as any other memory gives. That holds for the U8, U16 and F32
 * layouts and the pairs tc_filter_images runs through its pipeline, packed rows or rows of a
 * positive stride; other images, and rows stored bottom-up, take the staged way. For every
 * other purpose it is ordinary host memory, valid until tc_host_free or tc_close. Such memory
 * is costly to make (the system locks its pages): keep blocks and use them again. NULL when
 * bytes is 0, when it is more than the device allows in one buffer, or when no memory is
 * left; the reason is not recorded, as tc_host_alloc and tc_host_free may run on other threads
 * while a filter call runs on ctx (they touch nothing else of it). */
TC_API void *tc_host_alloc(tc_context *ctx, size_t bytes);

/* Frees a block of tc_host_alloc of the same context; NULL, a NULL ctx, and any pointer that
 * is not the start of such a block (memory of malloc, another context's block) are ignored:
 * nothing is freed. The block must not be in use by a filter call. */
TC_API void tc_host_free(tc_context *ctx, void *p);

/* Locks `bytes` of the caller's own memory at p in place (since 1.3), so that they serve as
 * tc_host_alloc's blocks do: an image whose rows lie wholly inside goes straight between that
 * memory and ctx's device, with no staging copy. The memory stays the caller's, to read and
 * write as before; it must stay valid (not freed, not unmapped) until tc_host_unregister(ctx,
 * p) or tc_close. Locking is cheaper than a new block when the memory is already in use (on
 * a data-centre GPU about 0.3 ms for 6 MB on huge pages, against 3 ms for tc_host_alloc's block
 * of the driver's memory; docs/benchmarks.md), but not free: worth it for memory that crosses
 * the bus many times or holds large images, not for one small transfer. TC_OK; TC_EINVAL for a
 * NULL ctx or p, 0 bytes, more than the device allows in one buffer, or bytes overlapping
 * memory already locked or allocated on ctx; TC_ENOMEM or TC_EDEVICE when the system refuses.
 * As with tc_host_alloc, the reason is not recorded (tc_error): these calls may run on other
 * threads while a filter call runs on ctx. */
TC_API int tc_host_register(tc_context *ctx, void *p, size_t bytes);

/* Lets go of memory that tc_host_register locked at p, once the device has let go of it; a
 * NULL ctx, NULL, and a p that starts no such memory are ignored. The memory must not be in
 * use by a filter call. */
TC_API void tc_host_unregister(tc_context *ctx, void *p);

/* The float planes tc_filter_image filters, formed from src on the host by the same
 * conversions: planes 1 gives the intensity plane, 3 the R, G and B planes; out receives
 * planes * width * height floats, packed, row 0 on top. For checking a device's result
 * against tc_reference. */
TC_API int tc_image_to_planes(const tc_image *src, int planes, float *out, char *err,
                              size_t err_size);

/* ---- The article's four classes, tile by tile -------------------------------------------- */

typedef struct {
    int x, y;          /* the tile's corner in the image, where it writes: (dst_left + l,
                        * dst_top + t), l and t its corner in the ROI (l may be negative: the
                        * tiles sit on the target's 4-column grid) */
    int width, height; /* 32 x 32 with the article's geometry (the block decides)           */
    int read_class;    /* 1: its neighbourhood lies inside the source ROI, read unchecked;
                        *  2: some read would leave it, so reads are mapped by the border rule */
    int write_class;   /* 3: it lies inside the target ROI, written unchecked; 4: writes checked */
} tc_tile;

/* The tiled kernel's work-groups for p (p->algorithm is not looked at; p's lengths and mask,
 * and p->kernel, pick the variant) on a width x height image, row by row, with the classes
 * that kernel gives them (its own tests): up to capacity into tiles (may be NULL with
 * capacity 0), *count the number there are; the split variant's are its rows pass's, then its
 * columns pass's. tiled_long_conv's tiles are those of a device with 64 KiB of local memory (a
 * smaller one may halve their height). */
TC_API int tc_tiles(const tc_params *p, int width, int height, tc_tile *tiles, int capacity,
                    int *count, char *err, size_t err_size);

/* ---- A gradient from one read ----------------------------------------------------------- */

/* OpenCV's unnormalised 3-tap operators: a derivative [-1 0 1] along one axis and a smoothing
 * along the other, [1 2 1] (Sobel) or [3 10 3] (Scharr). gx is what tc_filter computes with
 * tc_named_filter's "sobel-x" (or "scharr-x"): positive where the intensity grows rightwards;
 * gy is "sobel-y"'s: positive where it grows downwards. The magnitude is sqrt(gx^2 + gy^2)
 * (sqrt(fma(gx, gx, gy * gy)) on the device, so |gx| and |gy| must stay below 1.8e19: inputs
 * below 1e17). A 0..255 image reaches 4 * 255 * sqrt(2) = 1442 (Sobel), 16 * 255 * sqrt(2) =
 * 5770 (Scharr). */
typedef enum { TC_GRADIENT_SOBEL, TC_GRADIENT_SCHARR } tc_gradient_operator;

/* TC_GRADIENT_ONE_READ: one pass of the tiled kernel (the article's tiles and four classes of
 * work-groups) reads each input pixel once and makes gx, gy and the magnitude from the same
 * registers and local memory. TC_GRADIENT_SEPARATE, for comparison: the plain tiled kernel
 * twice (gx, then gy, each into a plane of its own), then a kernel that reads both and writes
 * the magnitude. Both agree with tc_gradient_reference within tc_gradient_tolerance. */
typedef enum { TC_GRADIENT_ONE_READ, TC_GRADIENT_SEPARATE } tc_gradient_method;

/* The gradient of a width x height plane. Of p only the ROIs (src_left .. roi_height), the
 * border rule (border, border_value: what reads outside the source ROI return, as for every
 * filter), vector_io and count_classes are used; the filter's fields (taps, kx, ky, mask),
 * algorithm and block are not looked at. magnitude receives width * height floats: inside the
 * target ROI the magnitude, outside it src's values; gx and gy (each may be NULL) the same
 * with the derivatives. src may equal one of the outputs; the outputs must be distinct. The
 * programs and buffers are kept by the context as for tc_filter; tc_last_stats then gives the
 * kernel time of each run (for TC_GRADIENT_SEPARATE its three launches summed), the launch of
 * the tiled kernel and its classes. */
TC_API int tc_gradient(tc_context *ctx, const float *src, float *gx, float *gy,
                       float *magnitude, int width, int height, tc_gradient_operator op,
                       tc_gradient_method method, const tc_params *p);

/* tc_gradient for benchmarks: one warm-up run, then `iterations` (1..TC_MAX_ITERATIONS)
 * timed runs. */
TC_API int tc_gradient_timed(tc_context *ctx, const float *src, float *gx, float *gy,
                             float *magnitude, int width, int height, tc_gradient_operator op,
                             tc_gradient_method method, const tc_params *p, int iterations);

/* The CPU reference: gx and gy are tc_reference's with the operator's two filters (the
 * plainest loop, in double, rounded to float), the magnitude sqrt(gx^2 + gy^2) of those in
 * double, rounded once. Outputs as for tc_gradient (gx and gy may be NULL). */
TC_API int tc_gradient_reference(const float *src, float *gx, float *gy, float *magnitude,
                                 int width, int height, tc_gradient_operator op,
                                 const tc_params *p, char *err, size_t err_size);

/* The largest difference allowed between a device's magnitude and the reference's inside the
 * target ROI; *component (when not NULL) receives gx's and gy's. With M = max(|src|, and
 * |border_value| for the constant border) and G = 8 (Sobel) or 32 (Scharr), the sum of the
 * absolute weights: component 12 FLT_EPSILON M G (tc_tolerance's bound for the two filters),
 * magnitude sqrt(2) component + 8 FLT_EPSILON sqrt(2) M G (the components' errors through the
 * magnitude, plus its own float rounding: OpenCL's sqrt is within 3 ulp, the sum of squares
 * within 1; 8 for room). Negative for invalid arguments. */
TC_API double tc_gradient_tolerance(const float *src, int width, int height,
                                    tc_gradient_operator op, const tc_params *p,
                                    double *component);

/* "sobel", "scharr"; "one-read", "separate"; "?" outside the enumerations. */
TC_API const char *tc_gradient_operator_name(tc_gradient_operator op);
TC_API const char *tc_gradient_method_name(tc_gradient_method method);

/* ---- Devices ---------------------------------------------------------------------------- */

typedef struct {
    int platform, device;           /* indices, as "P:D" of tc_open takes them               */
    char platform_name[128];
    char platform_version[128];
    char name[128];
    int is_gpu, is_cpu;
    unsigned compute_units;
    unsigned long long global_mem_bytes, max_alloc_bytes, local_mem_bytes;
    int has_double;                 /* the device computes in double precision               */
} tc_device_info;

/* Every device of every platform, platform by platform: up to `capacity` entries into list
 * (list may be NULL with capacity 0), *count the number there are. No platform at all is not
 * an error: *count is 0. */
TC_API int tc_list_devices(tc_device_info *list, int capacity, int *count, char *err,
                           size_t err_size);

/* The device a context runs on. */
TC_API int tc_context_device(const tc_context *ctx, tc_device_info *info);

/* ---- The CPU reference, filters and names ----------------------------------------------- */

/* The plainest implementation of the formula above, in double precision, on the CPU: what
 * every device result is checked against. A mask's weights are summed directly, never its
 * factors. dst: width * height floats (dst may equal src). */
TC_API int tc_reference(const float *src, float *dst, int width, int height,
                        const tc_params *p, char *err, size_t err_size);

/* The largest difference allowed between a device result and tc_reference's inside the target
 * ROI: float32 rounding of the sums, 2 x depth x FLT_EPSILON x max|input| x gain, where depth
 * is taps_x + taps_y (a mask: width x height) and gain sum|kx| x sum|ky| (a mask: sum|mask|);
 * for a mask that runs factored, plus the factors' own bound and max|input| x
 * sum|mask - ky kx|; for TC_BILINEAR plus what texture interpolation may add,
 * 2 delta sum|kx| sum|ky| R, delta = 2^-8 + (max(width, height) + 2) 2^-24 (an 8-bit fraction and
 * the sample coordinate's rounding), R the source ROI's largest minus smallest value
 * (docs/kernels.md, "The bilinear-tap trick"). Outside the target ROI results are equal bit for bit. A negative
 * value for invalid parameters. */
TC_API double tc_tolerance(const float *src, int width, int height, const tc_params *p);

/* The row and column coefficients of a named filter at an odd length into kx and ky (taps
 * floats each): "box", "gauss", "binomial" (3..63 taps), "sobel-x", "sobel-y" (3..31 taps;
 * Sobel's longer kernels are OpenCV's, e.g. [-1 -2 0 2 1] x [1 4 6 4 1] for 5), "scharr-x",
 * "scharr-y" (3 taps only). "sobel-x" differentiates along rows (kx) and smooths along columns
 * (ky); "-y" the other way round. sigma is gauss's (<= 0: OpenCV's default for the length,
 * 0.3 ((taps - 1) / 2 - 1) + 0.8, whose outermost weight stays above 1/255 for 3..15 taps
 * only). The 3 x 3 masks are tc_named_mask's. */
TC_API int tc_named_filter(const char *name, int taps, double sigma, float *kx, float *ky,
                           char *err, size_t err_size);

/* The weights of a named 3 x 3 mask into mask (capacity >= 9 floats, row-major), 3 into
 * *width and *height: "laplacian" 0 1 0; 1 -4 1; 0 1 0 (OpenCV's Laplacian with ksize 1),
 * "laplacian8" 1 1 1; 1 -8 1; 1 1 1, "sharpen" the identity plus amount times (the identity
 * minus the 3 x 3 binomial 1 2 1; 2 4 2; 1 2 1 / 16): for amount 1, -1/16 -1/8 -1/16;
 * -1/8 7/4 -1/8; -1/16 -1/8 -1/16 (amount is sharpen's only; the others ignore it). */
TC_API int tc_named_mask(const char *name, double amount, float *mask, int capacity, int *width,
                         int *height, char *err, size_t err_size);

/* Whether a mask (width x height weights, row-major, sizes as tc_params takes them, every
 * weight finite) is rank 1 within float32 rounding: 1 with its factors in kx (width floats)
 * and ky (height floats), mask[j][i] = ky[j] kx[i] to within 8 float32 epsilons of each
 * weight; 0 when it is not separable; -1 for invalid arguments. The factors are what
 * tc_filter runs such a mask with: kx the row of the largest weight, ky its column divided by
 * that weight. An all-zero mask is separable (kx zeros, ky 0 .. 1 .. 0). */
TC_API int tc_mask_factors(const float *mask, int width, int height, float *kx, float *ky);

/* ---- A Gaussian scale space (tc_pyramid) ----------------------------------------------- */

/* O octaves of L levels, SIFT-style. With sigma0 = p->sigma and k = 2^(1/L):
 *   - level j of every octave has a total blur of sigma0 k^j in that octave's own pixels
 *     (sigma0 2^(K + j/L) in input pixels for octave K): each level a constant factor k above
 *     the one before, across octaves too;
 *   - octave 0's base is the input, taken as sharp: level (0, j) is the input filtered with
 *     the Gaussian of sigma sigma0 k^j, so level (0, 0) is exactly tc_named_filter("gauss",
 *     taps, sigma0) run by tc_filter, bit for bit;
 *   - octave K + 1's base is every second pixel, rows and columns, from (0, 0), of octave K's
 *     image at blur 2 sigma0 (sigma0 k^L: made, not returned), so it carries sigma0 in its own
 *     pixels; its level j is that base filtered with the Gaussian of the incremental sigma
 *     sqrt((sigma0 k^j)^2 - sigma0^2) = sigma0 sqrt(k^2j - 1), and level 0 is the base itself;
 *   - octave K is ceil(W / 2^K) x ceil(H / 2^K) pixels (the even pixels of the one before,
 *     none dropped: OpenCV's pyrDown size);
 *   - each Gaussian is tc_named_filter("gauss", taps, sigma) along both axes, taps OpenCV's
 *     round(6 sigma + 1) | 1 (at least 3), the border rule p->border on the octave's whole
 *     image. A Gaussian longer than TC_MAX_TAPS (sigma of 10.42 or more: 2 sigma0 makes the
 *     next octave, so sigma0 below 5.21 with two octaves or more) is TC_EINVAL, as is an
 *     octave made from one with a side of 1 pixel (O octaves need min(W, H) > 2^(O - 2)).
 * Levels are numbered octave-major: index K * L + j. */
#define TC_PYRAMID_MAX_OCTAVES 16
#define TC_PYRAMID_MAX_LEVELS 8
#define TC_PYRAMID_DEFAULT_OCTAVES 4
#define TC_PYRAMID_DEFAULT_LEVELS 4
#define TC_PYRAMID_DEFAULT_SIGMA 1.6

typedef enum {
    TC_PYRAMID_PER_OCTAVE, /* one launch per octave: all its levels, and the image that makes
                            * the next octave (stored decimated), in one 3-D NDRange whose third
                            * dimension is the level (the default)                           */
    TC_PYRAMID_PER_LEVEL   /* one launch per level with tc_filter's own kernels, and one small
                            * decimation launch per octave                                   */
} tc_pyramid_launch;

/* A pyramid. Always start from tc_pyramid_params_init: fields may be added at the end. */
typedef struct {
    int octaves, levels;       /* O, 1..TC_PYRAMID_MAX_OCTAVES, and L, 1..TC_PYRAMID_MAX_LEVELS */
    double sigma;              /* sigma0, > 0 (TC_PYRAMID_DEFAULT_SIGMA)                        */
    tc_border border;          /* every level's border rule (replicate)                        */
    float border_value;
    tc_pyramid_launch launch;  /* how tc_pyramid runs it; both give identical levels          */
} tc_pyramid_params;

/* 4 octaves of 4 levels, sigma0 1.6, replicate border, one launch per octave. */
TC_API void tc_pyramid_params_init(tc_pyramid_params *p);

/* One level of a pyramid, as tc_pyramid_layout describes it. */
typedef struct {
    int octave, level;         /* K and j */
    int width, height;         /* the octave's size */
    double sigma;              /* total blur in the octave's pixels: sigma0 k^j */
    double sigma_input;        /* the same in input pixels: sigma0 2^(K + j/L) */
    double sigma_applied;      /* the Gaussian that makes it from the octave's base: sigma for
                                * octave 0, sigma0 sqrt(k^2j - 1) for the others (0 for level 0
                                * of octaves 1 and on: the base itself)                        */
    int taps;                  /* that Gaussian's length (1: the base itself)                 */
} tc_pyramid_level;

/* The levels of the pyramid p makes from a width x height image: up to capacity entries into
 * levels (NULL with capacity 0 only counts), *count = O * L. TC_EINVAL with the reason in err
 * for parameters the rules above refuse. */
TC_API int tc_pyramid_layout(int width, int height, const tc_pyramid_params *p,
                             tc_pyramid_level *levels, int capacity, int *count, char *err,
                             size_t err_size);

/* Builds the pyramid of a width x height plane on the device: levels[K * L + j] receives
 * level (K, j), its octave's width x height floats (packed, row 0 on top). Both launch styles
 * give the same levels bit for bit (docs/kernels.md: the per-octave kernel sums in the
 * order the per-level kernels do). Device buffers are kept for the next call of the same sizes. */
TC_API int tc_pyramid(tc_context *ctx, const float *src, int width, int height,
                      const tc_pyramid_params *p, float *const *levels);

/* tc_pyramid for benchmarks: one warm-up pyramid, then `iterations` timed ones
 * (1..TC_MAX_ITERATIONS). */
TC_API int tc_pyramid_timed(tc_context *ctx, const float *src, int width, int height,
                            const tc_pyramid_params *p, float *const *levels, int iterations);

/* Figures of the last successful tc_pyramid or tc_pyramid_timed on a context. */
typedef struct {
    tc_pyramid_launch launch;
    int iterations;
    double kernel_ms_min, kernel_ms_median, kernel_ms_mean; /* a whole pyramid: the kernel
                                * times of all its launches, from profiling events, summed     */
    const double *kernel_ms;   /* each timed pyramid's; owned by the context, valid until its
                                * next pyramid call                                            */
    int launches;              /* kernel launches per pyramid                                  */
    double bytes;              /* device memory a pyramid's launches must read and write, 4
                                * bytes a pixel: each slice (level, or the image that makes the
                                * next octave) reads its octave's base once and writes its
                                * image; the per-level path's decimations their quarter planes */
    double build_ms;           /* program builds, host wall time; 0 when all were cached      */
    double upload_ms, download_ms; /* the input plane; the levels                            */
    double wall_ms_per_iteration;  /* host wall clock per timed pyramid, launches included    */
} tc_pyramid_stats;

TC_API int tc_pyramid_last_stats(const tc_context *ctx, tc_pyramid_stats *stats);

/* The pyramid on the CPU, in double precision: every Gaussian summed as tc_reference sums a
 * filter (the full 2-D sum, rounded to float per level), the decimation exact. levels as for
 * tc_pyramid. */
TC_API int tc_pyramid_reference(const float *src, int width, int height,
                                const tc_pyramid_params *p, float *const *levels, char *err,
                                size_t err_size);

/* The largest difference allowed between a device level and the reference's, per level into
 * tolerance[K * L + j]: tc_tolerance's bound for the level's own Gaussian on its octave's
 * base, 2 x 2 taps x FLT_EPSILON x max|base| x gain, plus the gain times what the base may
 * already differ by (the device and the reference each make an octave's base from their own
 * image of the octave before: that image's bound, carried). TC_OK or TC_EINVAL. */
TC_API int tc_pyramid_tolerance(const float *src, int width, int height,
                                const tc_pyramid_params *p, double *tolerance);

/* "tiled", "twopass", "onepass", "bilinear"; "replicate", "constant", "reflect101", "reflect",
 * "wrap"; "buffer", "image" (since 1.2); "per-octave", "per-level" (since 1.2); "?" for values
 * outside the enumerations. */
TC_API const char *tc_algorithm_name(tc_algorithm a);
TC_API const char *tc_border_name(tc_border b);
TC_API const char *tc_storage_name(tc_storage s);
TC_API const char *tc_pyramid_launch_name(tc_pyramid_launch l);

/* "1.3.0". */
TC_API const char *tc_version(void);

/* sizeof the named public struct in this build of the library ("tc_params", "tc_stats",
 * "tc_image", "tc_device_info", the tc_pyramid_ ones; and tiledconv_internal.h's
 * "tc_direct_counts", which the tests' binding reads), so that bindings can check their
 * mirrors; 0 for others. */
TC_API size_t tc_abi_size(const char *type_name);

#ifdef __cplusplus
}
#endif

#endif
