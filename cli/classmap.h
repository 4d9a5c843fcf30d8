/* classmap.h - --class-map FILE: a picture of the article's four classes of work-groups. */
#ifndef TILEDCONV_CLASSMAP_H
#define TILEDCONV_CLASSMAP_H

#include <stddef.h>
#include <stdint.h>

#include "tiledconv_internal.h"
#include "tiledconv.h"

/* The picture of the tiled kernel's work-groups for p over the input planes (1: the
 * intensity, or 3: R, G, B): each tile where it writes, tinted by its read class, outlined by
 * its write class, the ROIs outlined, a legend with the counts below. *pixels (R, G, B bytes,
 * row 0 on top, free it) is *width x *height. 0, or -1 with the reason in err. */
int classmap_draw(const tc_params *p, const tc_plane *planes, int count, uint8_t **pixels,
                  int *width, int *height, char *err, size_t err_size);

#endif
