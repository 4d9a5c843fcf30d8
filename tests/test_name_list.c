/* test_name_list.c - the --files-from list reader (src/files/name_list.c): names, line ends, and the
 * refusals at the line that breaks a cap, from short lists and from endless streams. */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

#include "name_list.h"

/* Reads text (len bytes, NULs allowed) with caps; returns the reader's status. */
static int read_text(const char *text, size_t len, const name_list_caps *caps, name_list *l,
                     char *err, size_t err_size)
{
    FILE *f = fmemopen((void *)text, len, "r");
    assert_non_null(f);
    const int rc = name_list_read(f, caps, l, err, err_size);
    fclose(f);
    return rc;
}

/* Text (len bytes) is read without caps into l, which holds these count names in this order
 * and no more; `what` names the case in a failure. */
static void expect_names(const char *what, const char *text, size_t len, name_list *l,
                         const char *const *want, int count)
{
    char err[256] = "";
    if (read_text(text, len, NULL, l, err, sizeof err) != 0)
        fail_msg("%s: refused: %s", what, err);
    if (l->count != count)
        fail_msg("%s: %d names, expected %d", what, l->count, count);
    const char *name = NULL;
    for (int i = 0; i < count; i++) {
        name = name_list_next(l, name);
        if (!name || strcmp(name, want[i]) != 0) /* the lengths show a CR kept or dropped */
            fail_msg("%s: name %d is \"%s\" (%zu bytes), expected \"%s\" (%zu)", what, i,
                     name ? name : "(none)", name ? strlen(name) : 0, want[i], strlen(want[i]));
    }
    if (name_list_next(l, name))
        fail_msg("%s: more than %d names", what, count);
}

/* Reading text (len bytes) with caps refuses it at a line (2) with this message, and leaves
 * no list behind. */
static void expect_refused(const char *text, size_t len, const name_list_caps *caps,
                           const char *want)
{
    name_list l;
    char err[256] = "";
    assert_int_equal(read_text(text, len, caps, &l, err, sizeof err), 2);
    assert_string_equal(err, want);
    assert_null(l.text);
    assert_int_equal(l.count, 0);
}

/* Lists read whole: the names in order, each case's line ends taken as its comment says; the
 * list holds the names and their NULs, nothing else; freeing it twice is safe. */
static void test_names(void **state)
{
    (void)state;
    static const struct {
        const char *what, *text;
        int count;
        const char *want[4];
    } cases[] = {
        {"empty lines skipped, CR LF and a missing last line end taken",
         "a.bmp\n\nb c.png\r\n\r\n./d/e.jpg\n\n\nlast", 4,
         {"a.bmp", "b c.png", "./d/e.jpg", "last"}},
        /* A Windows line end: a name that ends in another CR keeps it (issue found by an
         * attack run: every one was dropped). */
        {"one carriage return dropped at a line's end", "a.bmp\r\r\nb.png\r\n\r\r\nc.jpg\r\r\r",
         4, {"a.bmp\r", "b.png", "\r", "c.jpg\r\r"}},
        {"only empty lines: no names", "\n\r\n\n", 0, {NULL}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        name_list l;
        size_t size = 0;
        expect_names(cases[c].what, cases[c].text, strlen(cases[c].text), &l, cases[c].want,
                     cases[c].count);
        for (int i = 0; i < cases[c].count; i++)
            size += strlen(cases[c].want[i]) + 1;
        if (l.size != size)
            fail_msg("%s: %zu bytes held, expected %zu", cases[c].what, l.size, size);
        name_list_free(&l);
        assert_null(l.text);
        name_list_free(&l); /* twice is safe */
    }
}

/* A NUL byte is refused at its line, whatever comes before it on the line. */
static void test_nul(void **state)
{
    (void)state;
    static const char text[] = "a\n\nb\nc\0d\ne\n";
    expect_refused(text, sizeof text - 1, NULL,
                   "line 4: a NUL byte (a list is text, one name a line)");
    expect_refused("\0", 1, NULL, "line 1: a NUL byte (a list is text, one name a line)");
}

/* A name of NAME_LIST_MAX_NAME bytes is taken (with a CR after it too); one byte more is not,
 * whether the line ends or the list does. */
static void test_long_lines(void **state)
{
    (void)state;
    static char text[2 * PATH_MAX + 16];
    name_list l;
    char err[256] = "", want[256];
    const size_t n = NAME_LIST_MAX_NAME;
    memset(text, 'n', sizeof text);
    text[0] = 'x';
    text[1] = '\n';
    memcpy(text + 2 + n, "\r\n", 2);
    assert_int_equal(read_text(text, 2 + n + 2, NULL, &l, err, sizeof err), 0);
    assert_int_equal(l.count, 2);
    assert_int_equal(strlen(name_list_next(&l, name_list_next(&l, NULL))), n);
    name_list_free(&l);

    snprintf(want, sizeof want, "line 2: longer than %d bytes, more than a path can have "
                                "(PATH_MAX)", NAME_LIST_MAX_NAME);
    text[2 + n] = 'n'; /* n + 1 bytes, then a line end */
    expect_refused(text, 2 + n + 3, NULL, want);
    expect_refused(text, 2 + n + 1, NULL, want); /* no line end */
    expect_refused(text, sizeof text, NULL, want);
}

/* The caps: the names one past the cap and the byte one past it refuse the line they are on. */
static void test_caps(void **state)
{
    (void)state;
    static const char text[] = "a\n\nb\nc\nd\n";
    const name_list_caps three = {3, 1 << 20}, ten_bytes = {100, 10};
    name_list l;
    char err[256] = "";
    assert_int_equal(read_text(text, 7, &three, &l, err, sizeof err), 0); /* "a\n\nb\nc\n" */
    assert_int_equal(l.count, 3);
    name_list_free(&l);
    expect_refused(text, sizeof text - 1, &three,
                   "line 5: more than 3 names, the most a list may hold");

    assert_int_equal(read_text("abc\ndefgh\n", 10, &ten_bytes, &l, err, sizeof err), 0);
    assert_int_equal(l.count, 2);
    name_list_free(&l);
    expect_refused("abc\ndefgh\nx", 11, &ten_bytes,
                   "line 3: the list passes 10 bytes, the most it may hold");
    expect_refused("abc\ndefghij", 11, &ten_bytes,
                   "line 2: the list passes 10 bytes, the most it may hold");
}

/* Endless lists end at the cap they pass: `yes x` by its names, `yes ''` (empty lines, no
 * name) by its bytes, /dev/zero at its first byte. */
static void test_endless(void **state)
{
    (void)state;
    const name_list_caps names = {1000, (size_t)1 << 30}, bytes = {1L << 30, 1 << 20};
    name_list l;
    char err[256] = "";
    FILE *f = popen("yes x", "r");
    assert_non_null(f);
    assert_int_equal(name_list_read(f, &names, &l, err, sizeof err), 2);
    pclose(f);
    assert_string_equal(err, "line 1001: more than 1000 names, the most a list may hold");
    f = popen("yes ''", "r");
    assert_non_null(f);
    assert_int_equal(name_list_read(f, &bytes, &l, err, sizeof err), 2);
    pclose(f);
    assert_string_equal(err, "line 1048577: the list passes 1048576 bytes, the most it may hold");
    f = fopen("/dev/zero", "r");
    assert_non_null(f);
    assert_int_equal(name_list_read(f, NULL, &l, err, sizeof err), 2);
    fclose(f);
    assert_string_equal(err, "line 1: a NUL byte (a list is text, one name a line)");
}

/* A read error (a folder opened as a file) is 1, not a list refused. */
static void test_read_error(void **state)
{
    (void)state;
    name_list l;
    char err[256] = "";
    FILE *f = fopen("/", "r");
    assert_non_null(f);
    assert_int_equal(name_list_read(f, NULL, &l, err, sizeof err), 1);
    fclose(f);
    assert_string_equal(err, "read error: Is a directory");
    assert_null(l.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),      cmocka_unit_test(test_nul),
        cmocka_unit_test(test_long_lines), cmocka_unit_test(test_caps),
        cmocka_unit_test(test_endless),   cmocka_unit_test(test_read_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
