/*
 * tuning.c - the study and test settings (tiledconv_internal.h's tc_tuning): one table of
 * their names, kinds and ranges, the parser of "NAME=VALUE", and the settings in force.
 */
#include "tuning.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tc_tuning current;

/* The text settings' room. */
#define TEXT_SIZE sizeof current.cl_options
_Static_assert(sizeof current.dump_program == TEXT_SIZE && sizeof current.dump_source == TEXT_SIZE,
               "the text settings share one size");

typedef enum { TEXT, INT, BYTES } setting_kind;

/* Each setting: its field, and for numbers the range and the step its values keep (pow2: a
 * power of two as well), said in words for the refusal; inverted: a 0/1 switch whose field
 * holds the opposite, so that the field's 0 (the default) is the switch's 1. */
static const struct {
    const char *name;
    setting_kind kind;
    size_t offset;
    long long min, max, step;
    int pow2;
    const char *values;
    int inverted;
} settings[] = {
    {"cl-options", TEXT, offsetof(tc_tuning, cl_options), 0, 0, 1, 0, "up to 511 characters", 0},
    {"dump-program", TEXT, offsetof(tc_tuning, dump_program), 0, 0, 1, 0,
     "a path of up to 511 characters", 0},
    {"dump-source", TEXT, offsetof(tc_tuning, dump_source), 0, 0, 1, 0,
     "a folder's path of up to 511 characters", 0},
    {"long-tile-h", INT, offsetof(tc_tuning, long_tile_h), 8, 4096, 8, 0,
     "8..4096, a multiple of 8", 0},
    {"long-job-w", INT, offsetof(tc_tuning, long_job_w), 8, 16, 8, 0, "8 or 16", 0},
    {"long-group", INT, offsetof(tc_tuning, long_group), 256, 1024, 256, 1,
     "256, 512 or 1024", 0},
    {"registers", INT, offsetof(tc_tuning, registers), 32, 255, 1, 0, "32..255", 0},
    {"pyramid-tile-h", INT, offsetof(tc_tuning, pyramid_tile_h), 64, 256, 64, 1,
     "64, 128 or 256", 0},
    {"pyramid-interleave", INT, offsetof(tc_tuning, pyramid_interleave), 0, 1, 1, 0, "0 or 1", 0},
    {"mask-2d", INT, offsetof(tc_tuning, mask_2d), 0, 1, 1, 0, "0 or 1", 0},
    {"staging-chunk", BYTES, offsetof(tc_tuning, staging_chunk), 64, 1LL << 40, 1, 0,
     "64..2^40 bytes", 0},
    {"pinned-bytes", BYTES, offsetof(tc_tuning, pinned_bytes), 64, 1LL << 40, 1, 0,
     "64..2^40 bytes", 0},
    {"no-images", INT, offsetof(tc_tuning, no_images), 0, 1, 1, 0, "0 or 1", 0},
    {"host-pinned", INT, offsetof(tc_tuning, host_staged), 0, 1, 1, 0, "0 or 1", 1},
    {"detach", INT, offsetof(tc_tuning, no_detach), 0, 1, 1, 0, "0 or 1", 1},
    {"copy-threads", INT, offsetof(tc_tuning, copy_threads), 1, 16, 1, 0, "1..16", 0},
    {"copy-stream", INT, offsetof(tc_tuning, copy_cached), 0, 1, 1, 0, "0 or 1", 1},
    {"worker-nice", INT, offsetof(tc_tuning, worker_nice), 0, 19, 1, 0, "0..19", 0},
    {"stream-slots", INT, offsetof(tc_tuning, stream_slots), 1, 6, 1, 0, "1..6", 0},
    {"batch-overlap", INT, offsetof(tc_tuning, no_overlap), 0, 1, 1, 0, "0 or 1", 1},
    {"host-wrap", INT, offsetof(tc_tuning, host_mapped), 0, 1, 1, 0, "0 or 1", 1},
    {"fused-bytes", INT, offsetof(tc_tuning, no_fused_bytes), 0, 1, 1, 0, "0 or 1", 1},
    {"jpeg-device", INT, offsetof(tc_tuning, jpeg_device), 0, 1, 1, 0, "0 or 1", 0},
};
#define SETTINGS ((int)(sizeof settings / sizeof settings[0]))

const tc_tuning *tc_tuning_now(void)
{
    return &current;
}

void tc_set_tuning(const tc_tuning *t)
{
    static const tc_tuning defaults;
    current = t ? *t : defaults;
}

static int fail(char *err, size_t err_size, const char *fmt, const char *a, const char *b)
{
    if (err && err_size)
        snprintf(err, err_size, fmt, a, b);
    return -1;
}

/* The setting's value from text into the field at `at`: 0, or -1 with the reason. */
static int set_value(int i, const char *value, unsigned char *at, char *err, size_t err_size)
{
    long long v = 0;
    char *end = NULL;
    if (settings[i].kind == TEXT) {
        if (strlen(value) >= TEXT_SIZE)
            return fail(err, err_size, "--tune %s: must be %s", settings[i].name,
                        settings[i].values);
        snprintf((char *)at, TEXT_SIZE, "%s", value);
        return 0;
    }
    if (*value) {
        errno = 0;
        v = strtoll(value, &end, 10);
        if (errno || end == value || *end || v < settings[i].min || v > settings[i].max ||
            v % settings[i].step != 0 || (settings[i].pow2 && (v & (v - 1)) != 0))
            return fail(err, err_size, "--tune %s: must be %s (or empty: the default)",
                        settings[i].name, settings[i].values);
    }
    if (settings[i].inverted && *value)
        v = !v;
    if (settings[i].kind == INT)
        *(int *)(void *)at = (int)v;
    else
        *(long long *)(void *)at = v;
    return 0;
}

int tc_tuning_parse(tc_tuning *t, const char *setting, char *err, size_t err_size)
{
    const char *eq = setting ? strchr(setting, '=') : NULL;
    char name[64], names[512] = "";
    if (!eq || (size_t)(eq - setting) >= sizeof name)
        return fail(err, err_size, "--tune '%s': not NAME=VALUE%s", setting ? setting : "", "");
    snprintf(name, sizeof name, "%.*s", (int)(eq - setting), setting);
    for (int i = 0; i < SETTINGS; i++) {
        if (strcmp(name, settings[i].name) == 0) {
            tc_tuning copy = *t;
            if (set_value(i, eq + 1, (unsigned char *)&copy + settings[i].offset, err,
                          err_size) != 0)
                return -1;
            *t = copy;
            return 0;
        }
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 settings[i].name);
    }
    return fail(err, err_size, "--tune %s: no such setting (%s)", name, names);
}

int tc_tune(const char *setting, char *err, size_t err_size)
{
    return tc_tuning_parse(&current, setting, err, err_size);
}
