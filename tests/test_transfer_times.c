/*
 * test_transfer_times.c - the times of finished commands (src/device.c's tc_stat_ms and
 * tc_stat_span_ms, src/pinned_ring.c's tc_ring_retire) when the driver kept no profiling
 * counters for them: a statistic missing, not a failed image. The event comes from a queue
 * made without profiling, where every implementation answers CL_PROFILING_INFO_NOT_AVAILABLE,
 * as NVIDIA's driver was seen to now and then for a transfer or a kernel while other threads
 * made and freed page-locked buffers. A timed run's kernel times (tc_event_ms) still fail on
 * such an event: a benchmark's figure must never be a silent 0. And a batch's times kept
 * unread (src/deferred_figures.c): read once when asked, each event's reference given back
 * whether read or dropped, and no more than TC_DEFERRED_MAX kept at a time.
 */
#include "test_util.h"

#include <string.h>

#include "deferred_figures.h"
#include "device.h"
#include "pinned_ring.h"
#include "status.h"

/* One finished write on a queue without profiling, its event in *e; the objects to release. */
typedef struct {
    cl_context context;
    cl_command_queue queue;
    cl_mem buf;
    cl_event e;
} unprofiled;

static unprofiled finished_write_on(cl_command_queue_properties properties)
{
    unprofiled u = {NULL, NULL, NULL, NULL};
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    static unsigned char bytes[1 << 20]; /* long enough to take time on any device */
    memset(bytes, 7, sizeof bytes);
    assert_int_equal(clGetPlatformIDs(1, &platform, NULL), CL_SUCCESS);
    assert_int_equal(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), CL_SUCCESS);
    u.context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    u.queue = clCreateCommandQueue(u.context, device, properties, &err);
    assert_int_equal(err, CL_SUCCESS);
    u.buf = clCreateBuffer(u.context, CL_MEM_READ_WRITE, sizeof bytes, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clEnqueueWriteBuffer(u.queue, u.buf, CL_FALSE, 0, sizeof bytes, bytes, 0,
                                          NULL, &u.e),
                     CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &u.e), CL_SUCCESS);
    return u;
}

static unprofiled finished_write(void)
{
    return finished_write_on(0); /* no profiling */
}

/* The references held on e, besides the driver's own bookkeeping. */
static cl_uint references(cl_event e)
{
    cl_uint n = 0;
    assert_int_equal(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof n, &n, NULL),
                     CL_SUCCESS);
    return n;
}

static void release(unprofiled *u)
{
    if (u->e)
        clReleaseEvent(u->e);
    clReleaseMemObject(u->buf);
    clReleaseCommandQueue(u->queue);
    clReleaseContext(u->context);
}

static void a_transfer_without_counters_takes_no_time(void **state)
{
    (void)state;
    unprofiled u = finished_write();
    tc_msg m = {""};
    double ms = 5.0;
    assert_int_equal(tc_stat_ms(u.e, &ms, &m), TC_OK);
    assert_true(ms == 0.0);
    ms = 5.0;
    assert_int_equal(tc_stat_span_ms(u.e, u.e, &ms, &m), TC_OK);
    assert_true(ms == 0.0);
    assert_string_equal(m.text, "");
    /* A kernel's time is no statistic to drop: the same event is a failure there, named. */
    assert_int_not_equal(tc_event_ms(u.e, &ms, &m), TC_OK);
    assert_non_null(strstr(m.text, "CL_PROFILING_INFO_NOT_AVAILABLE"));
    release(&u);
}

static void a_ring_retires_it_without_a_span(void **state)
{
    (void)state;
    unprofiled u = finished_write();
    tc_msg m = {""};
    tc_span sp = {100, 200};
    assert_int_equal(tc_ring_retire(&u.e, &sp, &m), TC_OK);
    assert_null(u.e); /* released all the same */
    assert_true(sp.start == 100 && sp.end == 200);
    release(&u);
}

/* Kept times are read when asked: each kind's sum of its events' own times (an event without
 * counters adds 0), each event's reference released, and a second read adds nothing. */
static void kept_times_are_read_when_asked(void **state)
{
    (void)state;
    unprofiled u = finished_write_on(CL_QUEUE_PROFILING_ENABLE), bare = finished_write();
    tc_deferred d = {0};
    tc_msg m = {""};
    double one = 0.0;
    assert_int_equal(tc_stat_ms(u.e, &one, &m), TC_OK);
    assert_true(one > 0.0);
    cl_event a = u.e, b = u.e, c = bare.e, none = NULL;
    assert_int_equal(clRetainEvent(u.e), CL_SUCCESS);
    assert_int_equal(clRetainEvent(u.e), CL_SUCCESS);
    assert_int_equal(clRetainEvent(bare.e), CL_SUCCESS);
    const cl_uint before = references(u.e);
    assert_int_equal(tc_deferred_keep(&d, &a, TC_DEFER_UPLOAD, &m), TC_OK);
    assert_int_equal(tc_deferred_keep(&d, &b, TC_DEFER_KERNEL, &m), TC_OK);
    assert_int_equal(tc_deferred_keep(&d, &c, TC_DEFER_CONVERT, &m), TC_OK);
    assert_int_equal(tc_deferred_keep(&d, &none, TC_DEFER_DOWNLOAD, &m), TC_OK);
    assert_true(a == NULL && b == NULL && c == NULL); /* the references moved into the store */
    assert_int_equal((int)d.count, 3);
    assert_true(d.ms[TC_DEFER_UPLOAD] == 0.0); /* nothing read yet */
    assert_int_equal(references(u.e), before);
    assert_int_equal(tc_deferred_read(&d, &m), TC_OK);
    assert_int_equal((int)d.count, 0);
    assert_int_equal(references(u.e), before - 2);
    assert_true(d.ms[TC_DEFER_UPLOAD] == one && d.ms[TC_DEFER_KERNEL] == one);
    assert_true(d.ms[TC_DEFER_CONVERT] == 0.0 && d.ms[TC_DEFER_DOWNLOAD] == 0.0);
    assert_int_equal(tc_deferred_read(&d, &m), TC_OK);
    assert_true(d.ms[TC_DEFER_UPLOAD] == one);
    tc_deferred_free(&d);
    release(&u);
    release(&bare);
}

/* A store that is full reads what it holds before it keeps more: after TC_DEFERRED_MAX + 3
 * keeps it holds 3, and the rest are in its sums; cleared, it gives every reference back
 * unread and its sums are 0. */
static void a_full_store_reads_what_it_holds(void **state)
{
    (void)state;
    unprofiled u = finished_write_on(CL_QUEUE_PROFILING_ENABLE);
    tc_deferred d = {0};
    tc_msg m = {""};
    double one = 0.0, sum = 0.0;
    assert_int_equal(tc_stat_ms(u.e, &one, &m), TC_OK);
    const cl_uint before = references(u.e);
    for (int i = 0; i < TC_DEFERRED_MAX + 3; i++) {
        cl_event e = u.e;
        assert_int_equal(clRetainEvent(e), CL_SUCCESS);
        assert_int_equal(tc_deferred_keep(&d, &e, TC_DEFER_DOWNLOAD, &m), TC_OK);
        assert_true(d.count <= TC_DEFERRED_MAX);
    }
    for (int i = 0; i < TC_DEFERRED_MAX; i++)
        sum += one;
    assert_int_equal((int)d.count, 3);
    assert_true(d.ms[TC_DEFER_DOWNLOAD] == sum);
    assert_int_equal(references(u.e), before + 3);
    tc_deferred_clear(&d);
    assert_int_equal((int)d.count, 0);
    assert_true(d.ms[TC_DEFER_DOWNLOAD] == 0.0);
    assert_int_equal(references(u.e), before);
    tc_deferred_free(&d);
    release(&u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_transfer_without_counters_takes_no_time),
        cmocka_unit_test(a_ring_retires_it_without_a_span),
        cmocka_unit_test(kept_times_are_read_when_asked),
        cmocka_unit_test(a_full_store_reads_what_it_holds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
