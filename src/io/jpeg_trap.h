/*
 * jpeg_trap.h - libjpeg's error manager as the JPEG readers use it (the row reader of jpeg.c and
 * the coefficient reader of jpeg_coefs.c), so that both refuse what TurboJPEG refuses with the
 * flags of jpeg.c: an error or a warning ends the call by a jump back into the function that set
 * `jump`, with libjpeg's message kept and nothing printed (TJFLAG_STOPONWARNING); a file of more
 * than 500 scans is stopped at the 501st (TJFLAG_LIMITSCANS).
 */
#ifndef TILEDCONV_JPEG_TRAP_H
#define TILEDCONV_JPEG_TRAP_H

#ifdef TC_HAVE_JPEGLIB
#include <setjmp.h>
#include <stdio.h>

#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char msg[JMSG_LENGTH_MAX];
} jpeg_trap;

/* The trap ready for a libjpeg object's err field; the caller sets jump before any call. */
void jpeg_trap_init(jpeg_trap *t);

/* A progress monitor (jpeg_progress_mgr.progress_monitor) that ends a decompression past the
 * 500th scan with TurboJPEG's words, through the object's trap. */
void jpeg_trap_limit_scans(j_common_ptr c);
#endif

#endif
