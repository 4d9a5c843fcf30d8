/*
 * bulk_copy.c - tc_bulk_copy (bulk_copy.h).
 *
 * A plain memcpy into memory that is not in the cache reads every destination line first
 * (the cache must own a line before it writes part of it), so a copy of n bytes moves 3 n
 * through the memory bus: n read, n read for ownership, n written back. Streaming stores
 * (SSE2's movntdq) write whole lines without reading them: 2 n. glibc's memcpy switches to
 * them only above a threshold of the order of the shared cache (megabytes), which the parts
 * that the copy crew's threads take (a few hundred KB each) stay below. The images a batch
 * moves, and what the device reads from the staging, are not read again by this thread, so
 * keeping them in its cache buys nothing.
 */
#include "bulk_copy.h"
#include "tuning.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_STREAMING 1
#else
#define HAVE_STREAMING 0
#endif

/* Below this the copy is likely to be in the cache already, or too short to matter. */
#define STREAM_MIN ((size_t)64 << 10)

void tc_bulk_copy(void *dst, const void *src, size_t n)
{
#if HAVE_STREAMING
    if (n >= STREAM_MIN && !tc_tuning_now()->copy_cached) {
        unsigned char *d = dst;
        const unsigned char *s = src;
        /* The head, up to d's next 16-byte boundary (streaming stores are aligned). */
        const size_t head = (16 - ((uintptr_t)d & 15)) & 15;
        memcpy(d, s, head);
        d += head;
        s += head;
        n -= head;
        for (; n >= 64; n -= 64, d += 64, s += 64) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
            const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
            const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
            const __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
            _mm_stream_si128((__m128i *)(void *)d, a);
            _mm_stream_si128((__m128i *)(void *)(d + 16), b);
            _mm_stream_si128((__m128i *)(void *)(d + 32), c);
            _mm_stream_si128((__m128i *)(void *)(d + 48), e);
        }
        memcpy(d, s, n);
        _mm_sfence(); /* the streamed lines visible before whoever waits for this copy goes on */
        return;
    }
#endif
    memcpy(dst, src, n);
}
