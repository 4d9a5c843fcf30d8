/*
 * sha256.h - SHA-256 (FIPS 180-4) of the output pixels, for the records of -e (two runs on two
 * devices compared by a script). docs/choices.md ("Formats and outputs") says why it is written
 * here rather than taken from a library.
 */
#ifndef TILEDCONV_SHA256_H
#define TILEDCONV_SHA256_H

#include "tool_visible.h" /* src/io */

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[8];
    uint64_t bytes;      /* fed so far */
    uint8_t block[64];   /* the part of a block not yet compressed */
    size_t used;
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t n);

/* The digest as 64 lowercase hex digits and a NUL. */
void sha256_final(sha256_ctx *c, char hex[65]);

/* All three at once. */
TC_TOOL void sha256_hex(const void *data, size_t n, char hex[65]);

#endif
