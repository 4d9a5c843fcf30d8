/*
 * jpeg_arrays.h - libjpeg's whole-image coefficient arrays (its virtual block arrays) laid on a
 * jpeg_coefs block, so that jpeg_read_coefficients decodes straight into the block and
 * jpeg_write_coefficients codes straight from it: no copy of a photo's coefficients between
 * libjpeg's memory and the block that crosses the bus (two passes over 6 MB a 1080p photo, and
 * libjpeg's own arrays allocated and zeroed an image: docs/benchmarks.md has what they cost).
 *
 * libjpeg reaches those arrays only through its memory manager's request_virt_barray,
 * realize_virt_arrays and access_virt_barray (jpeglib.h: an application may replace the
 * manager's methods), so the hooks installed here answer for the first `keep` arrays
 * requested, the components in order, and hand every other request to libjpeg's own methods.
 */
#ifndef TILEDCONV_JPEG_ARRAYS_H
#define TILEDCONV_JPEG_ARRAYS_H

#ifdef TC_HAVE_JPEGLIB
#include <stdio.h>

#include <jpeglib.h>

#include "jpeg_coefs.h"

/* One array of the block: its size in blocks, and its rows once placed. */
typedef struct {
    JDIMENSION wide, high;
    JBLOCKROW *rows;
} jpeg_array;

typedef struct {
    /* libjpeg's own methods, for everything else. */
    jvirt_barray_ptr (*request)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    void (*realize)(j_common_ptr);
    JBLOCKARRAY (*access)(j_common_ptr, jvirt_barray_ptr, JDIMENSION, JDIMENSION, boolean);
    jpeg_coefs *coefs;     /* the block's owner */
    int keep;              /* the components laid on the block */
    int allocate;          /* 1: the block is allocated when libjpeg realizes the arrays (the
                            * reader: each component's blocks_wide and blocks_high set from the
                            * requests, zeroed, as libjpeg pre-zeroes its own); 0: it exists */
    int placed, out_of_memory;
    jpeg_array arrays[JPEG_COEFS_MAX_COMPONENTS];
} jpeg_arrays;

/* Installs the hooks on cinfo's memory manager, with a's state (cinfo->client_data points to
 * it: a must outlive cinfo's use). After jpeg_create_decompress or jpeg_create_compress, before
 * any array is requested. */
void jpeg_arrays_install(j_common_ptr cinfo, jpeg_arrays *a, jpeg_coefs *coefs, int keep,
                         int allocate);

#endif

#endif
