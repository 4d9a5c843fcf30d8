/*
 * bulk_copy.h - copies of pixels between a caller's memory and the pinned staging, past the
 * caches where that is faster.
 */
#ifndef TILEDCONV_BULK_COPY_H
#define TILEDCONV_BULK_COPY_H

#include <stddef.h>

/* memcpy(dst, src, n), with stores that bypass the caches for large n on x86-64 (unless the
 * tuning's copy_cached is set): the bytes go to memory without first being read into the
 * cache, one transfer in three saved. Stores are complete, visible to other threads and to
 * the device, on return. */
void tc_bulk_copy(void *dst, const void *src, size_t n);

#endif
