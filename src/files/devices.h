/* devices.h - the devices (or queues) a run opens, from --device, -p and -d (docs/manual.md,
 * "Device"). */
#ifndef TILEDCONV_DEVICES_H
#define TILEDCONV_DEVICES_H

#include "tool_visible.h" /* src/io */

#include <stddef.h>

#include "option_parse.h"

/* One tc_open request (tiledconv.h's grammar) per context to open:
 *   --device TYPE:all   every device of that type on the first platform that has one;
 *   -d LIST             those devices of the platform -p names, or without -p of the default
 *                       device's platform (a GPU's, else platform 0); an index may repeat;
 *   otherwise           one request from --device, -p and -d as given ("" by default).
 * Returns 0, 2 (a usage error: nothing matches, or flags that exclude each other) or 1 (the
 * platforms could not be listed), with the reason in err. */
TC_TOOL int devices_resolve(const tc_options *o, char requests[][64], int *count, char *err,
                    size_t err_size);

#endif
