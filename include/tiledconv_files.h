/*
 * tiledconv_files.h - image files through the library's pipeline (since 1.3): the command line's
 * own run of files, reachable from C and Python. Each input is read and decoded by a pool of
 * workers on every core, filtered on the device (its pixels through page-locked blocks, one
 * lane per device), encoded and written under a temporary name, synced and renamed into place:
 * all or nothing per file, nothing partial left on a failure. Images larger than the memory at
 * hand are filtered in strips. The formats: BMP, PNG (8 and 16 bits), JPEG, PGM/PPM.
 *
 *     tc_files *run;
 *     tc_file_result res[2];
 *     const char *in[2] = {"a.jpg", "b.png"};
 *     char err[512];
 *     tc_files_new(&run);
 *     tc_files_set(run, "taps", "7", err, sizeof err);
 *     tc_files_set(run, "color", NULL, err, sizeof err);
 *     tc_files_set(run, "output-dir", "out", err, sizeof err);
 *     if (tc_filter_files(run, in, 2, res, NULL, NULL, err, sizeof err) != TC_OK)
 *         puts(err);                         // the options, or no device: nothing ran
 *     for (int i = 0; i < 2; i++)
 *         if (res[i].status != TC_FILE_WRITTEN) puts(res[i].message);
 *     tc_file_results_clear(res, 2);
 *     tc_files_free(run);
 *
 * A run's settings are the command line's long options (docs/manual.md), named without their
 * dashes, with the same values, defaults and rules, so a run here writes the bytes the tool
 * writes for the same options. Like the rest of the library it never prints and never exits.
 */
#ifndef TILEDCONV_FILES_H
#define TILEDCONV_FILES_H

#include <stddef.h>

#include "tiledconv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A run's settings: the options set so far. */
typedef struct tc_files tc_files;

/* What became of one input. */
typedef enum {
    TC_FILE_WRITTEN = 0, /* filtered, and its outputs in place (or processed: no output asked) */
    TC_FILE_FAILED = 1,  /* a run-time failure (the device, the disk, -e's mismatches) */
    TC_FILE_REFUSED = 2, /* the input or its output refused (format, size, limits, budget) */
    TC_FILE_NOT_RUN = 3  /* no device opened: nothing was filtered */
} tc_file_status;

typedef struct {
    int status;            /* a tc_file_status */
    int width, height;     /* the input's size; 0 where it was not read */
    char *output;          /* the image written (malloc'd; NULL: none), as the run named it */
    char message[768];     /* "NAME: why" for a file not written; "" otherwise */
    double read_ms, upload_ms, convert_ms, kernel_ms, download_ms, write_ms; /* its stages */
    int checked;           /* "verify" was set: the result was compared with the CPU's */
    double max_difference; /* then its largest difference */
} tc_file_result;

/* Called on the calling thread as files end (about every 100 ms while any remain), and once at
 * the end with done == total: failed and refused files count as done. */
typedef void (*tc_file_progress)(int done, int total, void *user);

/* A run with every option at its default (the tool's with no flags). TC_OK or TC_ENOMEM. */
TC_API int tc_files_new(tc_files **run);

/* Sets one option: its long name without the dashes ("taps", "color", "border", "quality",
 * "output-dir", "format", "max-memory", "device", ...), and its value as the command line takes
 * it (NULL for one without a value, such as "color" or "no-sync"). Set again, the last value
 * counts, as on the command line. Options that only shape the tool's reports or studies
 * (source, generate, class-map, pyramid, timing, iterations, csv, json, list, verbose, quiet,
 * help, version, -a all) are refused. A value is checked with the rest when the run starts.
 * TC_OK; TC_EINVAL with the reason in err for an unknown or refused name; TC_ENOMEM. */
TC_API int tc_files_set(tc_files *run, const char *option, const char *value, char *err,
                        size_t err_size);

/* Filters count input files as the command line does with these options and the inputs after
 * them: with "output-dir" each output is DIR/NAME (its input's name and format) or
 * DIR/BASE.EXT with "format"; one input may instead name its output with "output"; with
 * "no-output" nothing is written. results (count of them) receive each input's outcome, in the
 * order given; free their outputs with tc_file_results_clear. progress may be NULL.
 * Returns TC_OK when the run went ahead (each file's own outcome in its result); TC_EINVAL when
 * the options or the inputs are refused before any work (the reason in err, as the tool's
 * usage line words it: nothing is read or written); TC_EDEVICE when no device opened (every
 * result TC_FILE_NOT_RUN); TC_ENOMEM. Runs in one process take turns (each opens its own
 * devices; the option parser, the JPEG chroma sampling and --tune are the process's). The call
 * returns once every output is in place; the run's devices are closed after it on a thread of
 * the library, which a process ending meanwhile waits for at exit. */
TC_API int tc_filter_files(tc_files *run, const char *const *inputs, int count,
                           tc_file_result *results, tc_file_progress progress, void *user,
                           char *err, size_t err_size);

/* Frees what tc_filter_files allocated in count results (their output names). */
TC_API void tc_file_results_clear(tc_file_result *results, int count);

/* Frees a run (NULL: nothing). */
TC_API void tc_files_free(tc_files *run);

/* ---- One image file in memory (since 1.3) ---------------------------------------------- */

/* Reads one image file ("-": standard input) into memory through the reader tc_filter_files
 * uses (neither call may be made from a run's progress callback: TC_EINVAL): the format from the first bytes (BMP, PNG, JPEG, PGM/PPM, never the name), the header
 * checked against the run's "max-pixels" and decompression-bomb guard ("allow-high-ratio"
 * lifts it) before any pixel is decoded; the run's other settings are not used. *image
 * receives the file's samples channel-last, rows packed, the top row first, in memory of its
 * own (free it with tc_image_free): 1 channel for gray, 3 for colour (palettes expanded, alpha
 * dropped, a BMP always 3); TC_PIXELS_U8 for 8-bit samples, TC_PIXELS_U16 for 16-bit ones (PNG,
 * PGM/PPM of maxval 65535), TC_PIXELS_F32 on the library's 0..255 scale (v * 255 / maxval) for
 * a PGM/PPM of another maxval. TC_OK; TC_EINVAL with "NAME: reason" in err for a file that
 * cannot be read or is refused (*image untouched); TC_ENOMEM. */
TC_API int tc_read_image(tc_files *run, const char *path, tc_image *image, char *err,
                         size_t err_size);

/* Frees the samples tc_read_image gave; data is NULL after (NULL: nothing). */
TC_API void tc_image_free(tc_image *image);

/* Writes image to path as the command line writes its outputs: staged under a temporary name,
 * synced and renamed into place (all or nothing; "no-sync" skips the syncs), an existing file's
 * mode kept, a read-only one replaced only with "force". The run's settings say how: the format
 * is path's extension (.bmp, .png, .jpg/.jpeg, .pgm/.ppm/.pnm), or "format" for a path without
 * one (none and no "format": BMP; both must agree, as the tool's -o and --format), "quality" and
 * "sampling" (JPEG), "depth" (else 16 bits for TC_PIXELS_U16 samples into PNG or PGM/PPM, 8
 * otherwise). image: TC_PIXELS_U8, U16 or F32 samples, 1 or 3 channels, rows of any stride of
 * at least one row (a view into a larger array is fine). U8 and U16 samples are written as
 * they are where the depth is theirs; otherwise each sample v on the 0..255 scale (U16's v *
 * 255 / 65535) is written as the command line writes a filtered value: floor(clamp(v, 0, 255)
 * + 0.5) at 8 bits, round(clamp(v, 0, 255) * 65535 / 255) at 16 (NaN as 0). TC_OK; TC_EINVAL
 * with the reason in err for an image, a path or a setting refused (nothing written);
 * TC_EDEVICE when the write itself failed (the disk full or gone: the file, new or old, as it
 * was); TC_ENOMEM. */
TC_API int tc_write_image(tc_files *run, const char *path, const tc_image *image, char *err,
                          size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
