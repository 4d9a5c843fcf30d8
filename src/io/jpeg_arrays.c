/*
 * jpeg_arrays.c - libjpeg's whole-image coefficient arrays on the caller's memory
 * (jpeg_arrays.h).
 */
#include "jpeg_arrays.h"

#ifdef TC_HAVE_JPEGLIB
#include <string.h>

#include <jerror.h>

static jpeg_arrays *state_of(j_common_ptr c)
{
    return (jpeg_arrays *)c->client_data;
}

/* The hooks' own array for ptr, or NULL. */
static jpeg_array *ours(jpeg_arrays *a, jvirt_barray_ptr ptr)
{
    for (int i = 0; i < a->placed; i++)
        if (ptr == (jvirt_barray_ptr)(void *)&a->arrays[i])
            return &a->arrays[i];
    return NULL;
}

static jvirt_barray_ptr request(j_common_ptr c, int pool_id, boolean pre_zero,
                                JDIMENSION blocksperrow, JDIMENSION numrows,
                                JDIMENSION maxaccess)
{
    jpeg_arrays *a = state_of(c);
    if (a->placed >= a->keep || pool_id != JPOOL_IMAGE)
        return a->request(c, pool_id, pre_zero, blocksperrow, numrows, maxaccess);
    jpeg_array *o = &a->arrays[a->placed++];
    o->wide = blocksperrow;
    o->high = numrows;
    o->rows = NULL;
    return (jvirt_barray_ptr)(void *)o;
}

static void realize(j_common_ptr c)
{
    jpeg_arrays *a = state_of(c);
    JDIMENSION wide[JPEG_ARRAYS_MAX], high[JPEG_ARRAYS_MAX];
    JBLOCKROW first[JPEG_ARRAYS_MAX] = {NULL};
    a->realize(c); /* libjpeg's own arrays */
    if (a->placed == 0 || a->arrays[0].rows)
        return; /* nothing of ours, or placed already */
    for (int i = 0; i < a->placed; i++) {
        wide[i] = a->arrays[i].wide;
        high[i] = a->arrays[i].high;
    }
    if (a->place(a->user, a->placed, wide, high, first)) {
        a->out_of_memory = 1;
        ERREXIT1(c, JERR_OUT_OF_MEMORY, 0);
    }
    for (int i = 0; i < a->placed; i++) {
        jpeg_array *o = &a->arrays[i];
        /* Freed with the image's pool, as libjpeg's own row pointers are. */
        o->rows = (JBLOCKROW *)(*c->mem->alloc_small)(c, JPOOL_IMAGE,
                                                      (size_t)o->high * sizeof(JBLOCKROW));
        for (JDIMENSION r = 0; r < o->high; r++)
            o->rows[r] = first[i] + (size_t)r * o->wide;
    }
}

static JBLOCKARRAY access(j_common_ptr c, jvirt_barray_ptr ptr, JDIMENSION start_row,
                          JDIMENSION num_rows, boolean writable)
{
    jpeg_arrays *a = state_of(c);
    jpeg_array *o = ours(a, ptr);
    if (!o)
        return a->access(c, ptr, start_row, num_rows, writable);
    if (!o->rows || start_row > o->high || num_rows > o->high - start_row)
        ERREXIT(c, JERR_BAD_VIRTUAL_ACCESS);
    return o->rows + start_row;
}

void jpeg_arrays_install(j_common_ptr cinfo, jpeg_arrays *a, int keep, jpeg_arrays_place place,
                         void *user)
{
    struct jpeg_memory_mgr *mem = cinfo->mem;
    memset(a, 0, sizeof *a);
    a->request = mem->request_virt_barray;
    a->realize = mem->realize_virt_arrays;
    a->access = mem->access_virt_barray;
    a->place = place;
    a->user = user;
    a->keep = keep < JPEG_ARRAYS_MAX ? keep : JPEG_ARRAYS_MAX;
    cinfo->client_data = a;
    mem->request_virt_barray = request;
    mem->realize_virt_arrays = realize;
    mem->access_virt_barray = access;
}
#endif
