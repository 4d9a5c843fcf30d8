/* test_text.c - names and values made fit for one-line messages (src/io/text.c). */
#include "test_util.h"

#include <string.h>

#include "text.h"

/* Control characters are escaped, everything else (UTF-8 included) is kept. */
static void test_escapes(void **state)
{
    (void)state;
    text_shown s;
    assert_string_equal(text_show("plain.bmp", &s), "plain.bmp");
    assert_string_equal(text_show("a\nb", &s), "a\\nb");
    assert_string_equal(text_show("x\ry\tz", &s), "x\\ry\\tz");
    assert_string_equal(text_show("\x01\x1b[31m\x7f", &s), "\\x01\\x1b[31m\\x7f");
    assert_string_equal(text_show("caf\xc3\xa9.bmp", &s), "caf\xc3\xa9.bmp");
    assert_string_equal(text_show(NULL, &s), "(null)");
    assert_string_equal(text_show("", &s), "");
}

/* A long name keeps its first TEXT_SHOWN_HEAD bytes and its end, "..." between. */
static void test_shortens_in_the_middle(void **state)
{
    (void)state;
    char name[1001];
    text_shown s;
    memset(name, 'd', sizeof name);
    memcpy(name, "/first/", 7);
    strcpy(name + sizeof name - 13, "/picture.bmp"); /* 1000 bytes in all */
    const char *shown = text_show(name, &s);
    assert_int_equal(strlen(shown), TEXT_SHOWN_MAX);
    assert_memory_equal(shown, "/first/ddd", 10);
    assert_memory_equal(shown + TEXT_SHOWN_HEAD, "...", 3);
    assert_string_equal(shown + TEXT_SHOWN_MAX - 12, "/picture.bmp");
    /* Exactly TEXT_SHOWN_MAX bytes fit whole; one more is shortened. */
    name[TEXT_SHOWN_MAX] = '\0';
    assert_string_equal(text_show(name, &s), name);
    name[TEXT_SHOWN_MAX] = 'd';
    name[TEXT_SHOWN_MAX + 1] = '\0';
    assert_non_null(strstr(text_show(name, &s), "..."));
}

/* A cut never splits an escape or a UTF-8 character: such a unit is left out whole. */
static void test_cut_keeps_units_whole(void **state)
{
    (void)state;
    char line[16];
    /* "ab\n" shows as 4 bytes, then 8 'x': 12. Into 11 bytes, 7 are left beside "...": the
     * first 3 ("ab" and half of "\n", which is dropped) and the last 4. */
    text_escape_line("ab\nxxxxxxxx", line, 11, 3);
    assert_string_equal(line, "ab...xxxx");
    /* \xc3\xa9 is one character of 2 bytes: the second of the head straddles byte 3. */
    text_escape_line("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9zz", line, 11, 3);
    assert_string_equal(line, "\xc3\xa9...\xc3\xa9zz");
}

/* A whole message: the reason at its end survives any name in the middle. */
static void test_line_keeps_the_reason(void **state)
{
    (void)state;
    char msg[3000], line[512];
    memset(msg, 'p', sizeof msg);
    memcpy(msg, "tiledconv: -s ", 14);
    strcpy(msg + sizeof msg - 40, "\n: No such file or directory, see -h");
    text_escape_line(msg, line, sizeof line, 200);
    assert_int_equal(strlen(line), sizeof line - 1);
    assert_memory_equal(line, "tiledconv: -s ppp", 17);
    assert_non_null(strstr(line, "\\n: No such file or directory, see -h"));
    assert_null(strchr(line, '\n'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_shortens_in_the_middle),
        cmocka_unit_test(test_cut_keeps_units_whole),
        cmocka_unit_test(test_line_keeps_the_reason),
    };
    return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
