/* bytes.c - a number of bytes as the command line takes it (bytes.h). */
#include "bytes.h"

#include <limits.h>
#include <stddef.h>

int bytes_parse(const char *text, unsigned long long *bytes)
{
    unsigned long long v = 0;
    const char *p = text;
    int shift = 0;
    if (!text || *p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        const unsigned digit = (unsigned)(*p - '0');
        if (v > (ULLONG_MAX - digit) / 10u)
            return -1;
        v = v * 10u + digit;
    }
    switch (*p) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    case '\0': break;
    default: return -1;
    }
    if (shift && *++p != '\0')
        return -1;
    if (v == 0 || v > (ULLONG_MAX >> shift))
        return -1;
    *bytes = v << shift;
    return 0;
}
