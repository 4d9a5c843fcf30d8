/* test_plan.c - plan_check's refusals for the device's fixed limits (src/files/plan.c): a plane
 * larger than the device's largest buffer, a run larger than its memory, each with exit 2 and
 * its message to the byte. The device is made up, so that no test depends on the machine's;
 * the host's memory, which plan_check reads as it is now, is checked only after these. */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

#include "plan.h"

static tc_device_info small_device(void)
{
    tc_device_info dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "a small device");
    dev.max_alloc_bytes = 64000000; /* MB: 10^6 bytes */
    dev.global_mem_bytes = 256000000;
    return dev;
}

/* One plane over the largest buffer: refused first, even when the run is also over the
 * device's memory; then planes that each fit in a run that does not. */
static void test_device_limits(void **state)
{
    (void)state;
    static const struct {
        unsigned long long plane, device;
        const char *what, *message;
    } cases[] = {
        {64000001, 300000000, "in.png",
         "in.png: one plane needs 64.0 MB on the device, more than the 64.0 MB a small device "
         "allows in one buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE)"},
        {64000000, 384000000, "-g 8192x2048",
         "-g 8192x2048: the run needs 384.0 MB of device memory, more than the 256.0 MB a small "
         "device has (CL_DEVICE_GLOBAL_MEM_SIZE)"},
    };
    const tc_device_info dev = small_device();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_plan p = {0};
        char err[512] = "";
        p.plane = cases[i].plane;
        p.device = cases[i].device;
        assert_int_equal(plan_check(&p, &dev, cases[i].what, err, sizeof err), 2);
        assert_string_equal(err, cases[i].message);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
