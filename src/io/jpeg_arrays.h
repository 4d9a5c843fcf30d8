/*
 * jpeg_arrays.h - libjpeg's whole-image coefficient arrays (its virtual block arrays) laid on
 * memory of the caller's, so that jpeg_read_coefficients decodes straight into the block that
 * crosses the bus and jpeg_write_coefficients codes straight from it: no copy of a photo's
 * coefficients between libjpeg's memory and ours (two passes over 6 MB a 1080p photo, and
 * libjpeg's own arrays allocated and zeroed an image: docs/benchmarks.md has what they cost).
 *
 * libjpeg reaches those arrays only through its memory manager's request_virt_barray,
 * realize_virt_arrays and access_virt_barray (jpeglib.h: an application may replace the
 * manager's methods), so the hooks installed here answer for the first `keep` arrays
 * requested (the components, in order) and hand every other request to libjpeg's own methods.
 * Where the arrays lie is the caller's to say, once libjpeg has asked for all of them.
 */
#ifndef TILEDCONV_JPEG_ARRAYS_H
#define TILEDCONV_JPEG_ARRAYS_H

#ifdef TC_HAVE_JPEGLIB
#include <stdio.h>

#include <jpeglib.h>

/* The arrays the hooks lay out at most (a JPEG's components: gray or YCbCr). */
#define JPEG_ARRAYS_MAX 3

/* Where the arrays lie: called once, when libjpeg realizes its arrays, with the count of them
 * and each one's blocks a row and rows of blocks, as libjpeg asked; fills first[i] with the
 * first block of array i (rows of wide[i] blocks, one after another; zeroed where libjpeg
 * decodes into it, as libjpeg zeroes its own). 0, or -1 when there is no memory for them. */
typedef int (*jpeg_arrays_place)(void *user, int count, const JDIMENSION wide[],
                                 const JDIMENSION high[], JBLOCKROW first[]);

/* One array: its size in blocks, and its rows once placed. */
typedef struct {
    JDIMENSION wide, high;
    JBLOCKROW *rows;
} jpeg_array;

typedef struct {
    /* libjpeg's own methods, for everything else. */
    jvirt_barray_ptr (*request)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    void (*realize)(j_common_ptr);
    JBLOCKARRAY (*access)(j_common_ptr, jvirt_barray_ptr, JDIMENSION, JDIMENSION, boolean);
    jpeg_arrays_place place;
    void *user;
    int keep, placed, out_of_memory;
    jpeg_array arrays[JPEG_ARRAYS_MAX];
} jpeg_arrays;

/* Installs the hooks on cinfo's memory manager, with a's state (cinfo->client_data points to
 * it: a must outlive cinfo's use), for the first keep arrays (at most JPEG_ARRAYS_MAX), which
 * place(user, ...) lays out. After jpeg_create_decompress or jpeg_create_compress, before any
 * array is requested. Where place fails, libjpeg's call ends through the error manager with
 * JERR_OUT_OF_MEMORY and a->out_of_memory set. */
void jpeg_arrays_install(j_common_ptr cinfo, jpeg_arrays *a, int keep, jpeg_arrays_place place,
                         void *user);
#endif

#endif
