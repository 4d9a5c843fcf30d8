/* jpeg_trap.c - libjpeg's errors and warnings caught, and the scan limit (jpeg_trap.h). */
#include "jpeg_trap.h"

#ifdef TC_HAVE_JPEGLIB
static void trap_error(j_common_ptr c)
{
    jpeg_trap *t = (jpeg_trap *)c->err;
    (*c->err->format_message)(c, t->msg);
    longjmp(t->jump, 1);
}

static void trap_message(j_common_ptr c, int level)
{
    /* level < 0: a warning, which libjpeg gives for corrupt or truncated data before it fills
     * in gray; refused, as TJFLAG_STOPONWARNING refuses it. Trace messages are ignored. */
    if (level < 0)
        trap_error(c);
}

static void trap_output(j_common_ptr c)
{
    (void)c;
}

void jpeg_trap_init(jpeg_trap *t)
{
    jpeg_std_error(&t->pub);
    t->pub.error_exit = trap_error;
    t->pub.emit_message = trap_message;
    t->pub.output_message = trap_output;
    t->msg[0] = '\0';
}

/* TJFLAG_LIMITSCANS: more than 500 scans of a progressive file are refused with TurboJPEG's
 * words (each scan revisits the whole image). */
void jpeg_trap_limit_scans(j_common_ptr c)
{
    jpeg_trap *t = (jpeg_trap *)c->err;
    if (c->is_decompressor && ((j_decompress_ptr)c)->input_scan_number > 500) {
        snprintf(t->msg, sizeof t->msg, "Progressive JPEG image has more than 500 scans");
        longjmp(t->jump, 1);
    }
}
#else
typedef int jpeg_trap_unused; /* ISO C wants something in a translation unit */
#endif
