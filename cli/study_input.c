/*
 * study_input.c - the input of a one-image run: -g's synthetic image or a file, known by its
 * size and samples from its header before anything is decoded (so that the memory is planned
 * first), and then its planes: the intensity, or with --color R, G and B.
 */
#include "study_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plan.h"
#include "synth.h"

void plane_set_free(plane_set *s)
{
    for (int i = 0; i < MAX_PLANES; i++)
        tc_plane_free(&s->p[i]);
}

/* count planes of width x height; 0, or -1 (out of memory, the caller reports). */
int plane_set_alloc(plane_set *s, int count, int width, int height)
{
    s->count = count;
    for (int i = 0; i < count; i++)
        if (tc_plane_alloc(&s->p[i], width, height))
            return -1;
    return 0;
}

/* The synthetic image of -g. It is gray, so with --color its three planes are equal: that
 * still times and checks three runs, which is what a colour sweep wants. */
static int load_synthetic(const tc_options *o, plane_set *in)
{
    if (plane_set_alloc(in, o->color ? 3 : 1, o->synth_width, o->synth_height)) {
        fprintf(stderr, "tiledconv: -g %dx%d: out of host memory\n", o->synth_width,
                o->synth_height);
        return 1; /* a run-time failure: the request itself was valid */
    }
    synth_fill(&in->p[0]);
    for (int c = 1; c < in->count; c++)
        memcpy(in->p[c].px, in->p[0].px,
               (size_t)o->synth_width * (size_t)o->synth_height * sizeof(float));
    return 0;
}

/* The input's size: -g's (within --max-pixels), or the file's header, read and checked before
 * anything else of the file (a decompression bomb, an endless stream or a device is refused
 * here, having cost nothing). Returns 0, or 2 (reported): the input cannot be used. */
int study_input_open(const tc_options *o, input_source *src)
{
    char err[768];
    io_limits lim;
    plan_io_limits(o, &lim);
    memset(src, 0, sizeof *src);
    if (o->synth_width) {
        snprintf(src->what, sizeof src->what, "-g %dx%d", o->synth_width, o->synth_height);
        if (io_limits_check_pixels(o->synth_width, o->synth_height, &lim, err, sizeof err)) {
            fprintf(stderr, "tiledconv: %s: %s\n", src->what, err);
            return 2;
        }
        src->width = o->synth_width;
        src->height = o->synth_height;
        return 0;
    }
    text_shown shown;
    snprintf(src->what, sizeof src->what, "%s", text_show(source_name(o->input), &shown));
    if (source_reader_open(o->input, &lim, &src->reader, err, sizeof err)) {
        struct stat st;
        if (strcmp(o->input, TC_DEFAULT_INPUT) == 0 && stat(o->input, &st) != 0)
            fprintf(stderr, "tiledconv: %s: the default input is missing here; give one with "
                            "-s FILE, or -g WxH for a synthetic image\n", o->input);
        else
            fprintf(stderr, "tiledconv: %s\n", err);
        return 2;
    }
    if (!o->color) /* a gray job: a JPEG's intensity is its own luma, decoded alone */
        source_reader_want_luma(&src->reader);
    src->from_file = 1;
    src->width = src->reader.head.width;
    src->height = src->reader.head.height;
    return 0;
}

void study_input_close(input_source *src)
{
    if (src->from_file)
        source_reader_close(&src->reader);
    src->from_file = 0;
}

/* The decoded samples as planes (v * 255 / maxval, then the intensity or the channels),
 * spending the memory once where the plan counts on it (plan_in_place: 8-bit RGB of full scale,
 * as every BMP decodes to): with --color the G and B planes are made from the samples, then
 * their buffer itself becomes the R plane (or, without, the intensity plane) in place. Other
 * samples become planes beside them and are freed after. img is consumed either way. 0, or -1
 * (out of memory). */
static int planes_from_image(const tc_options *o, io_image *img, plane_set *in)
{
    const int in_place = plan_in_place(img->channels, img->depth, img->maxval);
    in->count = o->color ? 3 : 1;
    for (int c = in_place ? 1 : 0; c < in->count; c++) {
        if (tc_plane_alloc(&in->p[c], img->width, img->height)) {
            io_image_free(img);
            return -1;
        }
        tc_plane_from_samples(&in->p[c], img->pixels, img->channels, img->depth,
                              (unsigned)img->maxval, o->color ? c : -1);
    }
    if (!in_place) {
        io_image_free(img);
        return 0;
    }
    if (tc_plane_take_rgb(&in->p[0], img->pixels, img->width, img->height, o->color ? 0 : -1)) {
        io_image_free(img);
        return -1;
    }
    img->pixels = NULL; /* the plane owns it now */
    return 0;
}

/* The input planes from -s or -g, once the plan has passed. Returns 0, 2 (reported): the input
 * cannot be used, or 1 (reported): out of host memory. */
int study_input_load(const tc_options *o, input_source *src, plane_set *in)
{
    char err[768];
    io_image img;
    if (!src->from_file)
        return load_synthetic(o, in);
    const int rc = source_reader_decode(&src->reader, &img, err, sizeof err);
    study_input_close(src); /* the file's bytes are not needed beside the planes */
    if (rc) {
        fprintf(stderr, "tiledconv: %s\n", err);
        return 2;
    }
    if (planes_from_image(o, &img, in)) {
        fprintf(stderr, "tiledconv: %s: out of host memory for %d x %d\n", src->what,
                src->width, src->height);
        return 1;
    }
    return 0;
}
