/* test_bytes.c - --max-memory's values (src/files/bytes.c): digits and binary multiples, and every
 * other text refused, without wrapping past 2^64. */
#include "test_util.h"

#include "bytes.h"

static void test_accepted(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        unsigned long long bytes;
    } cases[] = {{"1", 1ULL},
                 {"1024", 1024ULL},
                 {"1K", 1024ULL},
                 {"1k", 1024ULL},
                 {"300M", 300ULL << 20},
                 {"1G", 1ULL << 30},
                 {"1g", 1ULL << 30},
                 {"2T", 2ULL << 40},
                 {"18446744073709551615", 18446744073709551615ULL},
                 {"16777215T", 16777215ULL << 40}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned long long b = 0;
        assert_int_equal(bytes_parse(cases[i].text, &b), 0);
        assert_true(b == cases[i].bytes);
    }
}

static void test_refused(void **state)
{
    (void)state;
    static const char *const texts[] = {"", "0", "0G", "-1", "+1", " 1", "1 ", "1.5G", "1GB",
                                        "1KiB", "G", "1x", "18446744073709551616", "16777216T",
                                        "99999999999999999999999", "1Q"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        unsigned long long b = 77;
        if (bytes_parse(texts[i], &b) != -1)
            fail_msg("'%s' accepted as %llu", texts[i], b);
        assert_true(b == 77); /* untouched */
    }
    assert_int_equal(bytes_parse(NULL, NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
