/*
 * test_sha256.c - src/files/sha256.c against FIPS 180-4's examples and the system's sha256sum, whole
 * and fed in pieces of every awkward size (a block's 55, 56, 63, 64 bytes).
 */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

#include "sha256.h"

static void test_standard_examples(void **state)
{
    char hex[65];
    (void)state;
    sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* One million 'a', fed 1000 at a time. */
    char a[1000];
    sha256_ctx c;
    memset(a, 'a', sizeof a);
    sha256_init(&c);
    for (int i = 0; i < 1000; i++)
        sha256_update(&c, a, sizeof a);
    sha256_final(&c, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Every length around the block's edges, whole and in pieces, against sha256sum. */
static void test_against_sha256sum(void **state)
{
    static const size_t lengths[] = {1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 4099};
    unsigned char data[4099];
    (void)state;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 131 + 7);
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        const size_t n = lengths[k];
        char path[] = "/tmp/tiledconv-sha-XXXXXX", cmd[128], want[65] = "", whole[65], parts[65];
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        FILE *f = fdopen(fd, "wb");
        assert_int_equal(fwrite(data, 1, n, f), n);
        fclose(f);
        snprintf(cmd, sizeof cmd, "sha256sum %s", path);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        assert_int_equal(fscanf(p, "%64s", want), 1);
        pclose(p);
        remove(path);
        sha256_hex(data, n, whole);
        sha256_ctx c;
        sha256_init(&c);
        for (size_t at = 0; at < n; at += 7) /* pieces of 7: never on a block's edge */
            sha256_update(&c, data + at, n - at < 7 ? n - at : 7);
        sha256_final(&c, parts);
        assert_string_equal(whole, want);
        assert_string_equal(parts, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standard_examples),
        cmocka_unit_test(test_against_sha256sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
