/*
 * jpeg_coefs_write.c - a JPEG written from coefficients (jpeg_coefs_write.h).
 *
 * Both calls set libjpeg up with jpeg_writer_settings, the settings jpeg.c's writers use, so
 * that the layout's tables are the file's and the file is jpeg_encode's: libjpeg writes the
 * same headers whether the blocks come from jpeg_write_scanlines or jpeg_write_coefficients,
 * and codes the same blocks the same way. The dummy blocks that pad the last MCUs are made by
 * jctrans.c itself, as jccoefct.c makes them on the scanline path; the arrays' copies of them
 * are not read.
 */
#include "jpeg_coefs_write.h"

#include "codec_common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The quality jpeg_encode takes: <= 0 for the default; 0, or -1 past 100. */
static int check_quality(int *quality, const char *path, char *err, size_t err_size)
{
    if (*quality <= 0)
        *quality = IO_JPEG_QUALITY;
    if (*quality > 100)
        return io_fail(err, err_size, "%s: JPEG quality %d is out of range (1..100)", path,
                       *quality);
    return 0;
}

#ifdef TC_HAVE_JPEGLIB
#include "jpeg_arrays.h"
#include "jpeg_settings.h"

/* x / y rounded up (libjpeg's jdiv_round_up). */
static long div_up(long x, long y)
{
    return (x + y - 1) / y;
}

/* A compressor and its trap, on the heap: the calls that can fail run in functions of their
 * own, each setting the jump, so that nothing of the caller's is live across a longjmp. */
typedef struct {
    struct jpeg_compress_struct c;
    jpeg_trap trap;
    jpeg_arrays arrays; /* libjpeg's arrays on the coefficients' block */
    int created;
} coef_writer;

static coef_writer *writer_new(void)
{
    coef_writer *w = calloc(1, sizeof *w);
    if (w) {
        jpeg_trap_init(&w->trap);
        w->c.err = &w->trap.pub;
    }
    return w;
}

static void writer_free(coef_writer *w)
{
    if (!w)
        return;
    if (w->created)
        jpeg_destroy_compress(&w->c);
    free(w);
}

/* The compressor made and given jpeg_encode's settings for the image; 0, or -1 with the
 * trap's message. */
static int writer_setup(coef_writer *w, int width, int height, int channels, int quality)
{
    if (setjmp(w->trap.jump))
        return -1;
    jpeg_create_compress(&w->c);
    w->created = 1;
    w->c.image_width = (JDIMENSION)width;
    w->c.image_height = (JDIMENSION)height;
    jpeg_writer_settings(&w->c, channels, quality);
    return 0;
}

/* Component i of the file the settings describe, as libjpeg's jcmaster.c sizes it. */
static void component_shape(j_compress_ptr c, int max_h, int max_v, int i,
                            jpeg_coef_component *k)
{
    const jpeg_component_info *info = &c->comp_info[i];
    const JQUANT_TBL *table = c->quant_tbl_ptrs[info->quant_tbl_no];
    const long w = (long)c->image_width, h = (long)c->image_height;
    k->h_samp = info->h_samp_factor;
    k->v_samp = info->v_samp_factor;
    k->width = (int)div_up(w * k->h_samp, max_h);
    k->height = (int)div_up(h * k->v_samp, max_v);
    k->blocks_wide = (int)(div_up(div_up(w * k->h_samp, 8L * max_h), k->h_samp) * k->h_samp);
    k->blocks_high = (int)(div_up(div_up(h * k->v_samp, 8L * max_v), k->v_samp) * k->v_samp);
    for (int j = 0; j < 64; j++)
        k->quant[j] = table->quantval[j];
    k->coef = NULL;
}

/* The layout of the settings in w (jpeg_coefs_layout's). */
static void shape_of(coef_writer *w, jpeg_coefs *c)
{
    *c = (jpeg_coefs){0};
    c->width = (int)w->c.image_width;
    c->height = (int)w->c.image_height;
    c->components = w->c.num_components;
    c->max_h = c->max_v = 1;
    for (int i = 0; i < c->components; i++) {
        const jpeg_component_info *info = &w->c.comp_info[i];
        c->max_h = info->h_samp_factor > c->max_h ? info->h_samp_factor : c->max_h;
        c->max_v = info->v_samp_factor > c->max_v ? info->v_samp_factor : c->max_v;
    }
    for (int i = 0; i < c->components; i++)
        component_shape(&w->c, c->max_h, c->max_v, i, &c->comp[i]);
}

int jpeg_coefs_layout(int width, int height, int channels, int quality, jpeg_coefs *c,
                      const char *path, char *err, size_t err_size)
{
    const io_image shape = {width, height, channels, 8, 255, (void *)path, NULL};
    coef_writer *w;
    if (io_check_image(&shape, path, err, err_size) ||
        check_quality(&quality, path, err, err_size))
        return -1;
    if (!(w = writer_new()))
        return io_fail(err, err_size, "%s: out of memory for the JPEG encoder", path);
    if (writer_setup(w, width, height, channels, quality)) {
        io_fail(err, err_size, "%s: JPEG encoding failed: %s", path, w->trap.msg);
        writer_free(w);
        return -1;
    }
    if (w->c.num_components > JPEG_COEFS_MAX_COMPONENTS) {
        writer_free(w);
        return io_fail(err, err_size, "%s: a JPEG of %d components", path, channels);
    }
    shape_of(w, c);
    writer_free(w);
    return 0;
}

/* c is the layout of the settings in w, every coefficient there: else the reason. */
static int check_layout(coef_writer *w, const jpeg_coefs *c, int quality, const char *path,
                        char *err, size_t err_size)
{
    jpeg_coefs want;
    if (w->c.num_components != c->components)
        return io_fail(err, err_size, "%s: %d components given, where the settings make %d",
                       path, c->components, w->c.num_components);
    shape_of(w, &want);
    for (int i = 0; i < c->components; i++) {
        const jpeg_coef_component *k = &c->comp[i], *o = &want.comp[i];
        if (k->h_samp != o->h_samp || k->v_samp != o->v_samp ||
            k->blocks_wide != o->blocks_wide || k->blocks_high != o->blocks_high)
            return io_fail(err, err_size,
                           "%s: component %d has sampling %d x %d and %d x %d blocks, where the "
                           "settings make %d x %d and %d x %d",
                           path, i, k->h_samp, k->v_samp, k->blocks_wide, k->blocks_high,
                           o->h_samp, o->v_samp, o->blocks_wide, o->blocks_high);
        if (memcmp(k->quant, o->quant, sizeof k->quant) != 0)
            return io_fail(err, err_size,
                           "%s: component %d was quantised with other tables than quality %d's",
                           path, i, quality);
        if (!k->coef)
            return io_fail(err, err_size, "%s: component %d has no coefficients", path, i);
    }
    return 0;
}

/* The compressor's arrays (jpeg_arrays_place) where c's components lie, which libjpeg only
 * reads; -1 where libjpeg asked for other sizes than c's (check_layout has made them the
 * same). */
static int place_given(void *user, int count, const JDIMENSION wide[], const JDIMENSION high[],
                       JBLOCKROW first[])
{
    const jpeg_coefs *c = user;
    if (count != c->components)
        return -1;
    for (int i = 0; i < count; i++) {
        if (wide[i] != (JDIMENSION)c->comp[i].blocks_wide ||
            high[i] != (JDIMENSION)c->comp[i].blocks_high || !c->comp[i].coef)
            return -1;
        first[i] = (JBLOCKROW)c->comp[i].coef;
    }
    return 0;
}

/* The file from c, through f, libjpeg's arrays laid on c's block (jpeg_arrays.h); 0, or -1
 * with the trap's message. */
static int write_file(coef_writer *w, FILE *f, const jpeg_coefs *c)
{
    jvirt_barray_ptr arrays[JPEG_COEFS_MAX_COMPONENTS];
    if (setjmp(w->trap.jump))
        return -1;
    jpeg_stdio_dest(&w->c, f);
    jpeg_arrays_install((j_common_ptr)&w->c, &w->arrays, c->components, place_given,
                        (void *)c);
    for (int i = 0; i < c->components; i++)
        arrays[i] = (*w->c.mem->request_virt_barray)(
            (j_common_ptr)&w->c, JPOOL_IMAGE, FALSE, (JDIMENSION)c->comp[i].blocks_wide,
            (JDIMENSION)c->comp[i].blocks_high, (JDIMENSION)c->comp[i].v_samp);
    jpeg_write_coefficients(&w->c, arrays); /* places the arrays, writes SOI and JFIF */
    jpeg_finish_compress(&w->c); /* the tables, the scans, EOI, the stream flushed */
    return 0;
}

int jpeg_coefs_encode(FILE *f, const jpeg_coefs *c, int quality, const char *path, char *err,
                      size_t err_size)
{
    coef_writer *w;
    int rc = -1;
    if (check_quality(&quality, path, err, err_size))
        return -1;
    if (c->components != 1 && c->components != 3)
        return io_fail(err, err_size, "%s: a JPEG of %d components: gray (1) and colour (3) "
                                      "only", path, c->components);
    if (!(w = writer_new()))
        return io_fail(err, err_size, "%s: out of memory for the JPEG encoder", path);
    if (writer_setup(w, c->width, c->height, c->components, quality)) {
        io_fail(err, err_size, "%s: JPEG encoding failed: %s", path, w->trap.msg);
        goto done;
    }
    if (check_layout(w, c, quality, path, err, err_size))
        goto done;
    errno = 0;
    if (write_file(w, f, c) || ferror(f)) {
        if (ferror(f))
            io_fail(err, err_size, "%s: write error: %s", path, strerror(errno ? errno : EIO));
        else
            io_fail(err, err_size, "%s: JPEG encoding failed: %s", path, w->trap.msg);
        goto done;
    }
    rc = 0;
done:
    writer_free(w);
    return rc;
}

#else /* no libjpeg: TurboJPEG alone writes from pixels only */

int jpeg_coefs_layout(int width, int height, int channels, int quality, jpeg_coefs *c,
                      const char *path, char *err, size_t err_size)
{
    (void)width;
    (void)height;
    (void)channels;
    (void)c;
    if (check_quality(&quality, path, err, err_size))
        return -1;
    return io_fail(err, err_size, "%s: built without libjpeg: no JPEG from coefficients", path);
}

int jpeg_coefs_encode(FILE *f, const jpeg_coefs *c, int quality, const char *path, char *err,
                      size_t err_size)
{
    (void)f;
    (void)c;
    (void)quality;
    return io_fail(err, err_size, "%s: built without libjpeg: no JPEG from coefficients", path);
}
#endif
