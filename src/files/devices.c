/* devices.c - turning --device, -p and -d into the list of contexts a run opens. */
#include "devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiledconv.h"

/* Whether a device is of the type word ("gpu", "cpu", "all"). */
static int of_type(const tc_device_info *d, const char *type)
{
    return strncmp(type, "gpu", 3) == 0 ? d->is_gpu : strncmp(type, "cpu", 3) == 0 ? d->is_cpu : 1;
}

/* Every device there is; *count 0 when there is none. 0, or 1 with the reason. */
static int list_all(tc_device_info **list, int *count, char *err, size_t err_size)
{
    *list = NULL;
    if (tc_list_devices(NULL, 0, count, err, err_size) != TC_OK)
        return 1;
    if (*count == 0)
        return 0;
    if (!(*list = calloc((size_t)*count, sizeof **list))) {
        snprintf(err, err_size, "out of host memory listing devices");
        return 1;
    }
    return tc_list_devices(*list, *count, count, err, err_size) == TC_OK ? 0 : 1;
}

/* --device TYPE:all. */
static int every_of_type(const char *type, const tc_device_info *list, int n,
                         char requests[][64], int *count, char *err, size_t err_size)
{
    int platform = -1;
    *count = 0;
    for (int i = 0; i < n && *count < TC_MAX_DEVICES; i++) {
        if (!of_type(&list[i], type) || (platform >= 0 && list[i].platform != platform))
            continue;
        platform = list[i].platform;
        snprintf(requests[(*count)++], 64, "%d:%d", list[i].platform, list[i].device);
    }
    if (*count == 0) {
        snprintf(err, err_size, "--device %s: no such device on any platform, see -l", type);
        return 2;
    }
    return 0;
}

int devices_resolve(const tc_options *o, char requests[][64], int *count, char *err,
                    size_t err_size)
{
    const int every = o->device_type && strchr(o->device_type, ':') != NULL;
    tc_device_info *list = NULL;
    int n = 0, status = 0;
    *count = 0;
    if (every && (o->n_device_list > 0 || o->platform >= 0)) {
        snprintf(err, err_size, "--device %s and %s: give every device of a type, or "
                                "indices, not both",
                 o->device_type, o->n_device_list > 0 ? "-d" : "-p");
        return 2;
    }
    if (!every && o->n_device_list == 0) {
        snprintf(requests[0], 64, "%s", o->device);
        *count = 1;
        return 0;
    }
    if ((status = list_all(&list, &n, err, err_size)) != 0)
        goto done;
    if (every) {
        status = every_of_type(o->device_type, list, n, requests, count, err, err_size);
        goto done;
    }
    /* -d LIST: the platform -p names, else the default device's (the first GPU's). */
    int platform = o->platform;
    for (int i = 0; platform < 0 && i < n; i++)
        if (list[i].is_gpu)
            platform = list[i].platform;
    if (platform < 0)
        platform = 0;
    for (int i = 0; i < o->n_device_list; i++)
        snprintf(requests[i], 64, "%s%s%d:%d", o->device_type ? o->device_type : "",
                 o->device_type ? ":" : "", platform, o->device_list[i]);
    *count = o->n_device_list;
done:
    free(list);
    return status;
}
