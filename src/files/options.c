/* options.c - a run's options: their defaults and the library's parameters they make
 * (file_options.h). */
#include "file_options.h"

#include <string.h>

void options_defaults(tc_options *o)
{
    const tc_roi_request roi = TC_ROI_REQUEST_DEFAULT;
    memset(o, 0, sizeof *o);
    o->input = NULL;
    o->output = TC_DEFAULT_OUTPUT;
    o->write_output = 1;
    o->roi = roi;
    tc_filter_binomial(&o->filter, 3);
    o->algorithm = TC_TILED;
    o->iterations = 1;
    o->format = TC_FORMAT_TABLE;
    o->block_x = TC_TILED_BLOCK_X;
    o->block_y = TC_TILED_BLOCK_Y;
    o->named_filter = -1;
    o->platform = -1;
    o->out_scale = 1.0;
    o->out_offset = 0.0;
    o->image_format = IO_FORMAT_BMP;
    o->quality = IO_JPEG_QUALITY;
    o->max_pixels = IO_DEFAULT_MAX_PIXELS;
    o->amount = TC_SHARPEN_DEFAULT_AMOUNT;
    o->pyramid_octaves = TC_PYRAMID_DEFAULT_OCTAVES;
    o->pyramid_levels = TC_PYRAMID_DEFAULT_LEVELS;
}

void options_params(const tc_options *o, const tc_roi *roi, tc_params *p)
{
    tc_params_init(p);
    p->taps_x = o->filter.taps_x;
    p->taps_y = o->filter.taps_y;
    p->kx = o->filter.kx;
    p->ky = o->filter.ky;
    if (o->filter.mask_width) { /* the library factors it again, the same way */
        p->mask = o->filter.mask;
        p->mask_width = o->filter.mask_width;
        p->mask_height = o->filter.mask_height;
    }
    p->border = o->filter.border;
    p->border_value = o->filter.border_value;
    p->algorithm = o->algorithm;
    p->src_left = roi->src_left;
    p->src_top = roi->src_top;
    p->dst_left = roi->dst_left;
    p->dst_top = roi->dst_top;
    p->roi_width = roi->width;
    p->roi_height = roi->height;
    p->block_width = o->block_x;
    p->block_height = o->block_y;
    p->vector_io = !o->scalar_io;
    p->storage = o->storage;
    p->kernel = o->kernel;
    p->out_scale = o->out_scale;
    p->out_offset = o->out_offset;
    /* -v reports the classes the tiled kernel took, counted by the kernel itself. */
    p->count_classes = o->verbose && o->format == TC_FORMAT_TABLE;
}

tc_pyramid_params options_pyramid_params(const tc_options *o)
{
    tc_pyramid_params p;
    tc_pyramid_params_init(&p);
    p.octaves = o->pyramid_octaves;
    p.levels = o->pyramid_levels;
    if (o->sigma > 0.0)
        p.sigma = o->sigma;
    p.border = o->filter.border;
    p.border_value = o->filter.border_value;
    return p;
}
