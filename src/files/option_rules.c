/*
 * option_rules.c - the rules between options, once every flag is read: the filter the flags
 * describe (resolved here, so that their order does not matter) and what it allows, the
 * output's format, --gradient's, --pyramid's and --storage's conditions, the device request.
 * Each refusal is one line naming the flags, and exit 2, before any work.
 */
#include "option_parts.h"

#include <float.h>
#include <string.h>

#include "tiledconv_internal.h"

/* Whether the last component of path has an extension, by io_format_from_name's rule (leading
 * dots belong to the name): "out" and ".png" have none, so they are BMP unless --format. */
static int has_extension(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    while (*base == '.')
        base++;
    return strchr(base, '.') != NULL;
}

/* The output image's format once every flag is read, and the rules that need it, all before
 * any work: -o's extension names the format unless --format does; an extension the tool does
 * not write is a usage error, and so is one that contradicts --format; --depth 16 needs a
 * format that holds 16 bits. Without -o, --format names the default output's extension. */
static int resolve_image_format(tc_options *o, FILE *err)
{
    io_format named;
    char formats[64];
    const int to_stdout = strcmp(o->output, "-") == 0;
    io_format_list(formats, sizeof formats);
    if (o->output_given && !to_stdout && has_extension(o->output)) {
        if (io_format_from_name(o->output, &named) != 0 && !o->image_format_given) {
            fprintf(err, "tiledconv: -o %s: unknown image extension; the formats are %s (a name "
                         "without an extension is BMP; --format NAME overrides)\n",
                    o->output, formats);
            return 2;
        }
        if (io_format_from_name(o->output, &named) == 0) {
            if (o->image_format_given && named != o->image_format) {
                fprintf(err, "tiledconv: -o %s names a %s file, but --format says %s; give one "
                             "or make them agree\n",
                        o->output, io_format_name(named), io_format_name(o->image_format));
                return 2;
            }
            o->image_format = named;
        }
    }
    if (o->class_map && io_format_from_name(o->class_map, &o->class_map_format) != 0) {
        fprintf(err, "tiledconv: --class-map %s: unknown image extension; the formats are %s (a "
                     "name without an extension is BMP)\n",
                o->class_map, formats);
        return 2;
    }
    if (o->class_map && strcmp(o->class_map, "-") == 0) {
        fprintf(err, "tiledconv: --class-map needs a file name, not standard output\n");
        return 2;
    }
    if (!o->output_given && o->image_format_given) {
        snprintf(o->default_output, sizeof o->default_output, "TiledConv_Output.%s",
                 io_format_extension(o->image_format, o->color ? 3 : 1));
        o->output = o->default_output;
    }
    if (o->depth == 16 && o->write_output && !io_format_holds_16_bits(o->image_format)) {
        fprintf(err, "tiledconv: --depth 16: %s holds 8-bit samples only; write PNG or PGM/PPM "
                     "for 16 bits (-o NAME.png, --format png)\n",
                io_format_name(o->image_format));
        return 2;
    }
    if (o->raw_output && strcmp(o->raw_output, "-") == 0) {
        fprintf(err, "tiledconv: --raw -: the float planes go to a file; standard output is "
                     "for the image (-o -)\n");
        return 2;
    }
    return 0;
}

/* The coefficients of one list into kx and/or ky (its length is already the axis's). */
static void apply_coefficients(const coefficient_list *l, float *kx, float *ky)
{
    for (int i = 0; i < l->count; i++) {
        if (kx)
            kx[i] = l->k[i];
        if (ky)
            ky[i] = l->k[i];
    }
}

/* One axis's length from a list that sets it (count 0: none does) and -f's length for it
 * (0: not given): an odd count, 1..TC_MAX_TAPS, agreeing with -f. *taps keeps what it had when
 * neither says. axis names it in messages ("" when -f has one length). */
static int axis_length(const coefficient_list *l, int f_taps, int f_per_axis, const char *axis,
                       int *taps, FILE *err)
{
    if (l->count == 0) {
        if (f_taps)
            *taps = f_taps;
        return 0;
    }
    if (!tc_axis_taps_valid(l->count)) {
        fprintf(err, "tiledconv: %s: %d coefficient%s: a filter's length must be odd, 1..%d\n",
                l->flag, l->count, l->count == 1 ? "" : "s", TC_MAX_TAPS);
        return 2;
    }
    if (f_taps && l->count != f_taps) {
        fprintf(err, "tiledconv: %s: %d coefficient%s given, -f needs %d%s\n", l->flag,
                l->count, l->count == 1 ? "" : "s", f_taps, f_per_axis ? axis : "");
        return 2;
    }
    *taps = l->count;
    return 0;
}

/* The flag(s) that gave the coefficients, for messages. */
static const char *coefficient_flags(const tc_options *o, const filter_args *a)
{
    if (a->c.count)
        return "-c";
    if (a->cx.count && a->cy.count)
        return "--cx and --cy";
    if (a->cx.count || a->cy.count)
        return a->cx.count ? "--cx" : "--cy";
    if (a->mask.width)
        return "--mask";
    return o->named_filter >= 0 ? "--filter" : "-f";
}

/* No filter whose sums could leave float32 on 8-bit input (0..255) or the constant border:
 * the device would give infinities (and NaN where they cancel) with nothing to say so, and
 * -e would fail on "expected inf, actual inf". The flag that causes it is named. */
static int check_filter_range(const tc_options *o, const filter_args *a, FILE *err)
{
    int index = 0;
    double reach = 0.0;
    switch (tc_filter_check(&o->filter, 255.0, &index, &reach)) {
    case TC_FILTER_OK:
        return 0;
    case TC_FILTER_KX_NOT_FINITE:
    case TC_FILTER_KY_NOT_FINITE: /* only a named filter can get here: the lists are checked */
    case TC_FILTER_MASK_NOT_FINITE: /* (and --amount's weights, were it not bounded) */
        fprintf(err, "tiledconv: %s%s: coefficient %d is not a finite number\n",
                coefficient_flags(o, a), a->sigma_given ? " with --sigma" : "", index + 1);
        return 2;
    default:
        break;
    }
    double plain = 0.0;
    tc_filter_spec without_border = o->filter;
    without_border.border = TC_BORDER_REPLICATE;
    tc_filter_check(&without_border, 255.0, NULL, &plain);
    const int by_border = tc_filter_check(&without_border, 255.0, NULL, NULL) == TC_FILTER_OK;
    const char *gain = o->filter.mask_width ? "sum|mask|" : "sum|kx| x sum|ky|";
    if (by_border)
        fprintf(err, "tiledconv: --border constant=%g: with this filter (%s = %.3g) the sums "
                     "could reach %.3g, past float32's largest value (%.3g); use a smaller "
                     "value\n", (double)o->filter.border_value, gain, plain / 255.0, reach,
                (double)FLT_MAX);
    else
        fprintf(err, "tiledconv: %s: %s is %.3g, so on 8-bit input (up to 255) the sums could "
                     "reach %.3g, past float32's largest value (%.3g); scale the coefficients "
                     "down\n", coefficient_flags(o, a), gain, plain / 255.0, plain,
                (double)FLT_MAX);
    return 2;
}

/* -f's lengths as the user wrote them, for messages. */
static const char *taps_text(const filter_args *a, char *buf, size_t size)
{
    if (a->taps_x == a->taps_y)
        snprintf(buf, size, "%d", a->taps_x);
    else
        snprintf(buf, size, "%dx%d", a->taps_x, a->taps_y);
    return buf;
}

/* A mask from --mask or a named mask (--filter laplacian ...) into o->filter; -f, if given,
 * must be the mask's size. */
static int build_mask(tc_options *o, const filter_args *a, FILE *err)
{
    const int named = o->named_filter >= 0;
    const int w = named ? 3 : a->mask.width, h = named ? 3 : a->mask.height;
    char buf[32];
    if (a->taps_x && (a->taps_x != w || a->taps_y != h)) {
        if (named)
            fprintf(err, "tiledconv: -f %s: --filter %s is a 3 x 3 mask\n",
                    taps_text(a, buf, sizeof buf), tc_named_name((tc_named)o->named_filter));
        else
            fprintf(err, "tiledconv: -f %s and --mask: the mask is %d x %d; give -f %dx%d or "
                         "no -f\n", taps_text(a, buf, sizeof buf), w, h, w, h);
        return 2;
    }
    if (named)
        tc_filter_named_mask(&o->filter, (tc_named)o->named_filter,
                             a->amount_given ? o->amount : TC_SHARPEN_DEFAULT_AMOUNT);
    else
        tc_filter_set_mask(&o->filter, a->mask.w, w, h);
    return 0;
}

/* The separable filter of the flags: its lengths (-f, and each coefficient list sets its
 * axis's; an axis that neither sets takes the other's length, else the default), then the
 * named filter or the binomial with the lists' coefficients. */
static int build_separable(tc_options *o, const filter_args *a, FILE *err)
{
    const tc_named named = (tc_named)o->named_filter;
    const int per_axis = a->taps_x != a->taps_y;
    int taps_x = 0, taps_y = 0;
    char buf[32];
    if (axis_length(&a->c, a->taps_x, per_axis, " along rows", &taps_x, err) ||
        axis_length(&a->c, a->taps_y, per_axis, " along columns", &taps_y, err) ||
        axis_length(&a->cx, a->taps_x, per_axis, " along rows", &taps_x, err) ||
        axis_length(&a->cy, a->taps_y, per_axis, " along columns", &taps_y, err))
        return 2;
    if (!taps_x || !taps_y) {
        const int fallback = taps_x   ? taps_x
                             : taps_y ? taps_y
                             : o->named_filter >= 0 ? tc_named_default_taps(named, o->sigma)
                                                    : 3;
        taps_x = taps_x ? taps_x : fallback;
        taps_y = taps_y ? taps_y : fallback;
    }
    if (taps_x == 1 && taps_y == 1) {
        fprintf(err, "tiledconv: %s: 1 x 1 taps filter nothing; give 3 taps or more along one "
                     "axis (--scale scales)\n", coefficient_flags(o, a));
        return 2;
    }
    if (o->named_filter >= 0) {
        if (tc_filter_named_xy(&o->filter, named, taps_x, taps_y, o->sigma)) {
            snprintf(buf, sizeof buf, taps_x == taps_y ? "%d" : "%dx%d", taps_x, taps_y);
            if (named == TC_NAMED_SCHARR_X || named == TC_NAMED_SCHARR_Y)
                fprintf(err, "tiledconv: -f %s: --filter %s exists with 3 taps only\n", buf,
                        tc_named_name(named));
            else if (tc_taps_valid(taps_x) && tc_taps_valid(taps_y))
                fprintf(err, "tiledconv: -f %s: --filter %s goes up to %d taps (OpenCV's "
                             "limit)\n", buf, tc_named_name(named), TC_MAX_SOBEL_TAPS);
            else
                fprintf(err, "tiledconv: -f %s: --filter %s needs 3 taps or more along the axis "
                             "it differentiates\n", buf, tc_named_name(named));
            return 2;
        }
        return 0;
    }
    tc_filter_binomial_xy(&o->filter, taps_x, taps_y);
    apply_coefficients(&a->c, o->filter.kx, o->filter.ky);
    apply_coefficients(&a->cx, o->filter.kx, NULL);
    apply_coefficients(&a->cy, NULL, o->filter.ky);
    return 0;
}

/* Resolves the filter flags into o->filter: a mask (--mask, or a named one), or a separable
 * filter (named, or coefficients: an axis that gets none keeps the default binomial); the
 * lengths; the border. */
static int build_filter(tc_options *o, const filter_args *a, FILE *err)
{
    const char *per_direction = a->cx.count ? "--cx" : a->cy.count ? "--cy" : NULL;
    const char *any_list = a->c.count ? "-c" : per_direction;
    const int named_mask = o->named_filter >= 0 && tc_named_is_mask((tc_named)o->named_filter);
    if (a->c.count && per_direction) {
        fprintf(err, "tiledconv: -c and %s: -c sets both directions; give -c, or --cx and/or "
                     "--cy\n", per_direction);
        return 2;
    }
    if (a->mask.width && (o->named_filter >= 0 || any_list)) {
        fprintf(err, "tiledconv: --mask and %s: give a mask or a separable filter, not both\n",
                any_list ? any_list : "--filter");
        return 2;
    }
    if (o->named_filter >= 0 && any_list) {
        fprintf(err, "tiledconv: --filter and %s: give a named filter or coefficients, not "
                     "both\n", any_list);
        return 2;
    }
    if (a->sigma_given && o->named_filter != TC_NAMED_GAUSS && !o->pyramid) {
        fprintf(err, "tiledconv: --sigma: only --filter gauss (and --pyramid) takes a sigma\n");
        return 2;
    }
    if (a->amount_given && o->named_filter != TC_NAMED_SHARPEN) {
        fprintf(err, "tiledconv: --amount: only --filter sharpen takes an amount\n");
        return 2;
    }
    const int rc = a->mask.width || named_mask ? build_mask(o, a, err) : build_separable(o, a, err);
    if (rc)
        return rc;
    o->coefficients_given = any_list != NULL;
    o->filter.border = a->border;
    o->filter.border_value = (float)a->border_value;
    return check_filter_range(o, a, err);
}

/* --pyramid makes its own Gaussians: sigma0 from --sigma, their lengths from OpenCV's rule.
 * The flags that set another filter are refused, naming the first one given. */
static int check_pyramid_filter(const tc_options *o, const filter_args *a, FILE *err)
{
    const char *flag = a->taps_x            ? "-f"
                       : a->c.count         ? "-c"
                       : a->cx.count        ? "--cx"
                       : a->cy.count        ? "--cy"
                       : a->mask.width      ? "--mask"
                       : a->amount_given    ? "--amount"
                       : o->named_filter >= 0 && o->named_filter != TC_NAMED_GAUSS ? "--filter"
                                                                                    : NULL;
    if (!flag)
        return 0;
    fprintf(err, "tiledconv: %s: --pyramid makes its own Gaussians (sigma0 from --sigma, each "
                 "length round(6 sigma + 1), odd); give no other filter\n", flag);
    return 2;
}

/* --pyramid's rules that need every flag read (docs/kernels.md, "A Gaussian scale space"). */
static int check_pyramid(const tc_options *o, FILE *err)
{
    const tc_roi_request whole = TC_ROI_REQUEST_DEFAULT;
    const char *roi_flag = o->roi.src_left != whole.src_left   ? "-sL"
                           : o->roi.src_top != whole.src_top   ? "-sT"
                           : o->roi.dst_left != whole.dst_left ? "-tL"
                           : o->roi.dst_top != whole.dst_top   ? "-tT"
                           : o->roi.width != whole.width       ? "-W"
                           : o->roi.height != whole.height     ? "-H"
                                                               : NULL;
    const char *other = o->all_algorithms || o->algorithm != TC_TILED ? "-a"
                        : o->storage_given ? "--storage"
                        : o->gradient ? "--gradient"
                        : o->block_x != TC_TILED_BLOCK_X || o->block_y != TC_TILED_BLOCK_Y
                            ? "--block"
                        : o->scalar_io ? "--scalar-io"
                        : o->class_map ? "--class-map"
                                       : NULL;
    if (roi_flag) {
        fprintf(err, "tiledconv: %s: --pyramid filters whole images, with no ROI\n", roi_flag);
        return 2;
    }
    if (other) {
        fprintf(err, "tiledconv: %s: does not apply to --pyramid, which runs its own launches "
                     "(one per octave; -t times one per level beside them)\n", other);
        return 2;
    }
    if (o->color) {
        fprintf(err, "tiledconv: --color: --pyramid works on the intensity plane\n");
        return 2;
    }
    if (o->output_given) {
        fprintf(err, "tiledconv: -o %s: --pyramid writes one image per level, "
                     "DIR/BASE-oK-lJ.EXT: give -O DIR, or --no-output\n", o->output);
        return 2;
    }
    if (o->raw_output) {
        fprintf(err, "tiledconv: --raw %s: with --pyramid, -O DIR and a bare --raw write "
                     "DIR/BASE-oK-lJ.f32\n", o->raw_output);
        return 2;
    }
    if (!o->output_dir && o->write_output) {
        fprintf(err, "tiledconv: --pyramid writes one image per level: give -O DIR (each level "
                     "DIR/BASE-oK-lJ.EXT), or --no-output\n");
        return 2;
    }
    /* The Gaussians' lengths do not depend on the image: refused here, before any work. */
    const tc_pyramid_params p = options_pyramid_params(o);
    char why[512];
    int count;
    if (tc_pyramid_layout(32768, 32768, &p, NULL, 0, &count, why, sizeof why) != TC_OK) {
        fprintf(err, "tiledconv: --pyramid %dx%d%s: %s\n", p.octaves, p.levels,
                o->sigma > 0.0 ? " --sigma" : "", why);
        return 2;
    }
    return 0;
}

/* --gradient's rules, once every flag is read: the intensity plane only; the operator brings
 * its own 3-tap kernels, the tiled kernel and the article's blocks; -a all compares it with
 * the two filters run apart. */
static int check_gradient(tc_options *o, const filter_args *a, FILE *err)
{
    const char *filter_flag = a->taps_x || a->taps_y ? "-f"
                              : a->c.count             ? "-c"
                              : a->cx.count            ? "--cx"
                              : a->cy.count            ? "--cy"
                              : a->mask.width          ? "--mask"
                              : o->named_filter >= 0   ? "--filter"
                              : a->sigma_given         ? "--sigma"
                              : a->amount_given        ? "--amount"
                                                       : NULL;
    const char *name = tc_gradient_operator_name((tc_gradient_operator)(o->gradient - 1));
    if (!o->gradient)
        return 0;
    if (o->color) {
        fprintf(err, "tiledconv: --gradient and --color: the gradient is computed on the "
                     "intensity plane only; drop --color\n");
        return 2;
    }
    if (filter_flag) {
        fprintf(err, "tiledconv: --gradient %s and %s: the operator brings its own 3-tap "
                     "kernels ([-1 0 1] and [%s]); drop %s\n",
                name, filter_flag, o->gradient == 1 ? "1 2 1" : "3 10 3", filter_flag);
        return 2;
    }
    if (!o->all_algorithms && o->algorithm != TC_TILED) {
        fprintf(err, "tiledconv: --gradient and -a %s: the one-read gradient is a pass of the "
                     "tiled kernel (-a all compares it with the two filters run apart)\n",
                tc_algorithm_name(o->algorithm));
        return 2;
    }
    if (o->storage == TC_STORAGE_IMAGE) {
        fprintf(err, "tiledconv: --gradient and --storage image: the one-read gradient reads "
                     "the plane from a buffer (image objects serve the filters' tiled and "
                     "onepass); drop --storage\n");
        return 2;
    }
    if (o->block_x != TC_TILED_BLOCK_X || o->block_y != TC_TILED_BLOCK_Y) {
        fprintf(err, "tiledconv: --block %dx%d: the one-read gradient keeps the article's %d x "
                     "%d blocks; drop --block\n",
                o->block_x, o->block_y, TC_TILED_BLOCK_X, TC_TILED_BLOCK_Y);
        return 2;
    }
    o->gradient_compare = o->all_algorithms;
    o->all_algorithms = 0;
    return 0;
}

int cli_bilinear_refusal(const tc_filter_spec *f, char *why, size_t size)
{
    const float *k[2] = {f->kx, f->ky};
    const int taps[2] = {f->taps_x, f->taps_y};
    if (f->mask_width && !f->mask_separable) {
        snprintf(why, size,
                 "the %d x %d mask is not separable (not rank 1), and the trick pairs the taps "
                 "of two 1-D passes; use tiled or onepass",
                 f->mask_width, f->mask_height);
        return 1;
    }
    for (int axis = 0; axis < 2; axis++) {
        tc_bilinear_axis a;
        int bad = 0;
        if (tc_bilinear_pair(k[axis], taps[axis], &a, &bad) == 0)
            continue;
        snprintf(why, size,
                 "%s[%d] = %g and %s[%d] = %g have opposite signs (as have two taps of the "
                 "other pairing), and one sample reads two neighbouring taps only when their "
                 "weights share a sign (box, gauss, binomial, Sobel do); use another algorithm",
                 axis ? "ky" : "kx", bad, (double)k[axis][bad], axis ? "ky" : "kx", bad + 1,
                 (double)k[axis][bad + 1]);
        return 1;
    }
    return 0;
}

/* The rules between the algorithm, --storage and the filter (all before any work): image
 * storage is for tiled and onepass; bilinear samples an image by definition, and pairs taps
 * whose weights share a sign (bilinear.h). */
static int check_storage(const tc_options *o, FILE *err)
{
    char why[320];
    if (!o->all_algorithms && o->algorithm == TC_TWOPASS && o->storage == TC_STORAGE_IMAGE) {
        fprintf(err, "tiledconv: --storage image: twopass reads buffers only; tiled and onepass "
                     "read an image (-a bilinear always does)\n");
        return 2;
    }
    if (o->all_algorithms || o->algorithm != TC_BILINEAR)
        return 0;
    if (o->storage_given && o->storage == TC_STORAGE_BUFFER) {
        fprintf(err, "tiledconv: --storage buffer: -a bilinear samples an image object by "
                     "definition; leave --storage out\n");
        return 2;
    }
    if (cli_bilinear_refusal(&o->filter, why, sizeof why)) {
        fprintf(err, "tiledconv: -a bilinear: %s\n", why);
        return 2;
    }
    return 0;
}

/* tc_open's request (tiledconv.h), [TYPE][:P[:D]] or "" for the default device, when the
 * options name one device; src/files/devices.c resolves several. */
static void device_request(const tc_options *o, char *out, size_t size)
{
    char platform[16] = "", device[16] = "";
    const char *type = o->device_type && !strchr(o->device_type, ':') ? o->device_type : NULL;
    if (o->platform >= 0)
        snprintf(platform, sizeof platform, "%d", o->platform);
    if (o->n_device_list > 0)
        snprintf(device, sizeof device, ":%d", o->device_list[0]);
    snprintf(out, size, "%s%s%s%s", type ? type : "", type && (platform[0] || device[0]) ? ":" : "",
             platform, device);
}

/* --no-filter runs the batch's pool without a device: what needs a filter's result (or a
 * device) is a usage error. 0, or 2 (reported). After -h, --version and -l, which win. */
static int check_no_filter(const tc_options *o, FILE *err)
{
    const char *flag = o->verify        ? "-e"
                       : o->gradient    ? "--gradient"
                       : o->pyramid     ? "--pyramid"
                       : o->raw_output || o->raw_flag ? "--raw"
                       : o->class_map   ? "--class-map"
                       : o->synth_width ? "-g"
                       : o->all_algorithms ? "-a all"
                       : o->iterations > 1 ? "-i"
                                           : NULL;
    if (!flag)
        return 0;
    fprintf(err, "tiledconv: --no-filter and %s: --no-filter writes each image unfiltered "
                    "without a device (the codec floor); %s needs the filter\n",
            flag, flag);
    return 2;
}

int opt_check_options(tc_options *o, const filter_args *fa, FILE *err)
{
    if ((o->input || o->n_positional || o->files_from) && o->synth_width) {
        fprintf(err, "tiledconv: -g and %s: give input files or a synthetic size, not both\n",
                o->input ? "-s" : o->files_from ? "--files-from" : "an input file");
        return 2;
    }
    /* An empty name would only give ": No such file or directory" later: say what is empty. */
    if (o->input && o->input[0] == '\0') {
        fprintf(err, "tiledconv: -s: the file name is empty\n");
        return 2;
    }
    for (int i = 0; i < o->n_positional; i++)
        if (o->positional[i][0] == '\0') {
            fprintf(err, "tiledconv: input %d after the options: the file name is empty\n",
                    i + 1);
            return 2;
        }
    if ((o->files_from && o->files_from[0] == '\0') ||
        (o->output_dir && o->output_dir[0] == '\0')) {
        fprintf(err, "tiledconv: %s: the %s name is empty\n",
                o->files_from && !o->files_from[0] ? "--files-from" : "-O",
                o->files_from && !o->files_from[0] ? "file" : "folder");
        return 2;
    }
    if (o->pyramid && check_pyramid_filter(o, fa, err))
        return 2;
    if (build_filter(o, fa, err) || check_gradient(o, fa, err) || check_storage(o, err))
        return 2;
    if (o->filter.mask_width && !o->filter.mask_separable && !o->all_algorithms &&
        o->algorithm == TC_TWOPASS) {
        fprintf(err, "tiledconv: -a twopass: the %d x %d mask of %s is not separable (not rank "
                     "1), so it has no two 1-D passes; use -a tiled, onepass or all\n",
                o->filter.mask_width, o->filter.mask_height,
                fa->mask.width ? "--mask" : "--filter");
        return 2;
    }
    if (resolve_image_format(o, err))
        return 2;
    if (o->pyramid && check_pyramid(o, err))
        return 2;
    if (o->no_filter && !o->help && !o->version && !o->list_devices && check_no_filter(o, err))
        return 2;
    device_request(o, o->device, sizeof o->device);
    if (!o->input && !o->synth_width && !o->n_positional && !o->files_from)
        o->input = TC_DEFAULT_INPUT;
    return 0;
}
