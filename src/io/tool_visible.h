/*
 * tool_visible.h - TC_TOOL marks the file layer's functions that the command line calls beyond
 * the public API: visible in the shared library, where the rest of the file and codec layers
 * (compiled with -fvisibility=hidden) is not. Nothing else should call them from outside the
 * library; they are not part of its API and may change with any version.
 */
#ifndef TILEDCONV_TOOL_VISIBLE_H
#define TILEDCONV_TOOL_VISIBLE_H

#define TC_TOOL __attribute__((visibility("default")))

#endif
