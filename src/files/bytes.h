/* bytes.h - a number of bytes as the command line takes it (--max-memory). */
#ifndef TILEDCONV_BYTES_H
#define TILEDCONV_BYTES_H

/* Digits with an optional K, M, G or T (binary multiples: 1K = 1024, 1G = 1073741824), at
 * least 1. 0 with *bytes set, or -1 when the text is not such a number or passes 2^64 - 1. */
int bytes_parse(const char *text, unsigned long long *bytes);

#endif
