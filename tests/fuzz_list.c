/*
 * fuzz_list.c - libFuzzer harness for the --files-from list reader, src/files/name_list.c (make fuzz,
 * tests/fuzz-readers.sh).
 *
 * The input's first two bytes choose the caps (1..64 names and 1..4096 bytes, small enough that
 * the fuzzer meets both; 0xFF 0xFF: the tool's own), the rest is the list, read from a memory
 * stream. The reader is checked against a plain model written here, byte by byte: where the
 * model finds the list good the names must be the model's, in order; where it finds the first
 * fault (a NUL byte, a line past NAME_LIST_MAX_NAME, a name past the names cap, a byte past the
 * byte cap) the reader must refuse (2) at that fault's line, in one line of text, and keep
 * nothing.
 */
#include "name_list.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The model: 0 with the names (each ended by a NUL) in out, or the 1-based line of the first
 * fault. */
static long model(const uint8_t *p, size_t n, const name_list_caps *caps, char *out,
                  size_t *out_size, long *count)
{
    long line = 1, names = 0;
    size_t at = 0, start = 0;
    *out_size = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == caps->max_bytes && i < n) /* the byte past the cap */
            return line;
        const int end = i == n || p[i] == '\n';
        if (!end) {
            if (p[i] == '\0')
                return line;
            if (i - start + 1 > (size_t)NAME_LIST_MAX_NAME + 1) /* one CR more than a name */
                return line;
            continue;
        }
        size_t len = i - start;
        if (len > 0 && p[start + len - 1] == '\r') /* one, a Windows line end */
            len--;
        if (len > (size_t)NAME_LIST_MAX_NAME)
            return line;
        if (len > 0) {
            if (names == caps->max_names)
                return line;
            memcpy(out + at, p + start, len);
            at += len;
            out[at++] = '\0';
            names++;
        }
        line++;
        start = i + 1;
    }
    *out_size = at;
    *count = names;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const int tool = data[0] == 0xff && data[1] == 0xff;
    const name_list_caps small = {1 + data[0] % 64, 1 + (size_t)data[1] * 16};
    const name_list_caps tool_caps = {NAME_LIST_MAX_NAMES, NAME_LIST_MAX_BYTES};
    const name_list_caps *caps = tool ? &tool_caps : &small;
    const uint8_t *list = data + 2;
    const size_t n = size - 2;

    char *want = malloc(n + 1);
    size_t want_size = 0;
    long want_count = 0;
    if (!want)
        return 0;
    const long fault = model(list, n, caps, want, &want_size, &want_count);

    /* fmemopen needs a size: an empty list is a stream of one byte already read. */
    static char empty[1];
    FILE *f = fmemopen(n ? (void *)list : empty, n ? n : 1, "r");
    if (!f)
        abort();
    if (n == 0)
        fgetc(f);
    name_list l;
    char err[512] = "";
    const int rc = name_list_read(f, tool ? NULL : caps, &l, err, sizeof err);
    fclose(f);

    if (fault == 0) {
        if (rc != 0 || l.count != want_count || l.size != want_size ||
            (want_size && memcmp(l.text, want, want_size) != 0))
            abort();
        long seen = 0;
        for (const char *name = name_list_next(&l, NULL); name; name = name_list_next(&l, name))
            if (++seen > l.count || !*name || strlen(name) > (size_t)NAME_LIST_MAX_NAME)
                abort();
        if (seen != l.count)
            abort();
    } else {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "line %ld: ", fault);
        if (rc != 2 || strncmp(err, prefix, strlen(prefix)) != 0 || strchr(err, '\n') ||
            l.text || l.count)
            abort();
    }
    name_list_free(&l);
    free(want);
    return 0;
}
