/* test_outputs.c - the tool's output files (src/files/outputs.c): the --raw float32 file, the image
 * in every format and depth, the depth rule, and standard output (-o -); how every output is
 * written (src/io/atomic_file.c): without a name until complete, synced before it is named, its
 * folder synced after, a replaced file's mode kept; the temporary names removed on SIGINT,
 * SIGTERM and SIGHUP (src/io/signals.c); read-only outputs and unwritable folders refused
 * before any work. */
#define _GNU_SOURCE /* syscall() */
#include "test_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"
#include "image.h"
#include "option_parse.h"
#include "outputs.h"
#include "signals.h"

/* The file-system calls atomic_file.c makes, recorded in order: this program's fsync, linkat
 * and rename take the place of the C library's for the objects linked into it, and pass each
 * call on to the kernel. */
static char events[16][300];
static int n_events;

static void record(const char *what, const char *name)
{
    if (n_events < 16)
        snprintf(events[n_events++], sizeof events[0], "%s %s", what, name);
}

int fsync(int fd)
{
    struct stat st;
    record("fsync", fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ? "folder" : "file");
    return (int)syscall(SYS_fsync, fd);
}

int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
    const char *base = strrchr(newpath, '/');
    record("link", base ? base + 1 : newpath);
    return (int)syscall(SYS_linkat, olddirfd, oldpath, newdirfd, newpath, flags);
}

int rename(const char *oldpath, const char *newpath)
{
    const char *base = strrchr(newpath, '/');
    record("rename to", base ? base + 1 : newpath);
    return (int)syscall(SYS_renameat2, AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

/* The options of `tiledconv --no-output --raw PATH`: only the raw file is written. */
static void raw_options(tc_options *o, char *path)
{
    char *argv[] = {"tiledconv", "--no-output", "--raw", path, NULL};
    assert_int_equal(cli_parse(4, argv, o, stderr), 0);
    assert_int_equal(o->write_output, 0);
    assert_ptr_equal(o->raw_output, path);
}

/* A new folder from the template dir (mkdtemp's), and path (size bytes) the name in it. */
static void in_new_folder(char *dir, char *path, size_t size, const char *name)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, size, "%s/%s", dir, name);
}

/* --raw: width * height little-endian float32 per plane, planes one after another. */
static void test_raw_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/tiledconv-raw.XXXXXX", path[64], err[256];
    float a[6] = {0.0f, 1.0f, -2.5f, 3.25f, 1e10f, 255.0f}, b[6] = {7, 7, 7, 7, 7, 7};
    tc_plane planes[2] = {{3, 2, a}, {3, 2, b}};
    const tc_roi roi = {0, 0, 0, 0, 3, 2};
    tc_options o;
    unsigned char bytes[64];
    in_new_folder(dir, path, sizeof path, "out.raw");
    raw_options(&o, path);
    assert_int_equal(outputs_write(&o, planes, 2, &roi, 8, err, sizeof err), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    assert_int_equal(n, 48);
    /* -2.5f is 0xc0200000: little-endian bytes 00 00 20 c0. */
    assert_int_equal(bytes[8], 0x00);
    assert_int_equal(bytes[10], 0x20);
    assert_int_equal(bytes[11], 0xc0);
    /* 7.0f is 0x40e00000, the first float of the second plane. */
    assert_int_equal(bytes[24 + 2], 0xe0);
    assert_int_equal(bytes[24 + 3], 0x40);
    /* A folder is not replaced, and no temporary file is left behind. */
    raw_options(&o, dir);
    assert_int_equal(outputs_write(&o, planes, 1, &roi, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a regular file"));
    char missing[96];
    snprintf(missing, sizeof missing, "%s/no/such/out.raw", dir);
    raw_options(&o, missing);
    assert_int_equal(outputs_write(&o, planes, 1, &roi, 8, err, sizeof err), -1);
    assert_int_equal(remove(path), 0);
    assert_int_equal(remove(dir), 0); /* fails if anything else is in it */
}

/* The options of `tiledconv ARGS...` (NULL-terminated), asserted to parse. */
static void options_of(tc_options *o, char **args)
{
    char *argv[16] = {"tiledconv"};
    int argc = 1;
    while (args[argc - 1])
        argv[argc] = args[argc - 1], argc++;
    argv[argc] = NULL;
    assert_int_equal(cli_parse(argc, argv, o, stderr), 0);
}

/* A file decoded by the codec layer (asserted to decode). */
static void decode_file(const char *path, io_image *img)
{
    char err[256];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t buf[1 << 16];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (io_decode(buf, n, 0, IO_MAX_PIXELS_PER_BYTE, img, err, sizeof err))
        fail_msg("%s: %s", path, err);
}

/* The planes written by outputs_write to dir/name at this depth, with one more option where
 * `option` is not NULL, and the file read back into img. */
static void written(const char *dir, const char *name, const char *option, const char *value,
                    const tc_plane *planes, int count, const tc_roi *roi, int depth,
                    io_image *img)
{
    char path[96], err[256];
    tc_options o;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    options_of(&o, (char *[]){"-o", path, (char *)option, (char *)value, NULL});
    assert_int_equal(outputs_write(&o, planes, count, roi, depth, err, sizeof err), 0);
    decode_file(path, img);
}

/* 16 bits kept where the format holds them, unless --depth says otherwise. */
static void test_depth_rule(void **state)
{
    (void)state;
    tc_options o;
    options_of(&o, (char *[]){"-o", "x.png", NULL});
    assert_int_equal(outputs_depth(&o, 1), 16);
    assert_int_equal(outputs_depth(&o, 0), 8);
    options_of(&o, (char *[]){"-o", "x.pgm", NULL});
    assert_int_equal(outputs_depth(&o, 1), 16);
    options_of(&o, (char *[]){"-o", "x.bmp", NULL});
    assert_int_equal(outputs_depth(&o, 1), 8);
    options_of(&o, (char *[]){"-o", "x.jpg", NULL});
    assert_int_equal(outputs_depth(&o, 1), 8);
    options_of(&o, (char *[]){"-o", "x.png", "--depth", "8", NULL});
    assert_int_equal(outputs_depth(&o, 1), 8);
    options_of(&o, (char *[]){"-o", "x.ppm", "--depth", "16", NULL});
    assert_int_equal(outputs_depth(&o, 0), 16);
    char what[64];
    outputs_describe(IO_FORMAT_PNG, 16, 1, what, sizeof what);
    assert_string_equal(what, "16-bit grayscale PNG");
    outputs_describe(IO_FORMAT_PNM, 8, 3, what, sizeof what);
    assert_string_equal(what, "8-bit colour PPM");
    assert_string_equal(outputs_name("-"), "standard output");
    assert_string_equal(outputs_name("a.png"), "a.png");
}

/* The image in each format and depth, read back through the codecs: the 8- and 16-bit
 * conversions of image.c, the mapping inside the target ROI only, the staged file renamed. */
static void test_image_formats(void **state)
{
    (void)state;
    char dir[] = "/tmp/tiledconv-img.XXXXXX", path[96], err[256];
    float a[6] = {0.0f, 1.0f, 127.5f, 254.6f, 300.0f, -2.0f}, b[6] = {10, 20, 30, 40, 50, 60};
    const tc_plane gray[1] = {{3, 2, a}}, rgb[3] = {{3, 2, a}, {3, 2, b}, {3, 2, a}};
    const tc_roi roi = {0, 0, 1, 0, 2, 2}; /* target: columns 1 and 2 */
    io_image img;
    assert_non_null(mkdtemp(dir));

    /* 16-bit gray PNG, --scale 2 inside the ROI: column 0 only converted. */
    written(dir, "g.png", "--scale", "2", gray, 1, &roi, 16, &img);
    assert_int_equal(img.depth, 16);
    assert_int_equal(img.channels, 1);
    const uint16_t *w = img.pixels;
    /* (0, 1) is outside: 254.6 * 65535 / 255 = 65432.2, unmapped */
    const uint16_t want16[6] = {0, 2 * 257, 65535, 65432, 65535, 0};
    assert_memory_equal(w, want16, sizeof want16);
    io_image_free(&img);

    /* 8-bit RGB PPM, no mapping. */
    written(dir, "c.ppm", NULL, NULL, rgb, 3, &roi, 8, &img);
    assert_int_equal(img.depth, 8);
    assert_int_equal(img.channels, 3);
    assert_int_equal(img.maxval, 255);
    const uint8_t *p8 = img.pixels;
    const uint8_t want8[9] = {0, 10, 0, 1, 20, 1, 128, 30, 128};
    assert_memory_equal(p8, want8, sizeof want8);
    io_image_free(&img);

    /* 16-bit RGB PGM/PPM keeps maxval 65535; JPEG at a quality; BMP through io_encode. */
    written(dir, "c16.pnm", NULL, NULL, rgb, 3, &roi, 16, &img);
    assert_int_equal(img.maxval, 65535);
    assert_int_equal(((const uint16_t *)img.pixels)[3 * 2 + 1], 30 * 257);
    io_image_free(&img);
    written(dir, "q.jpg", "--quality", "100", gray, 1, &roi, 8, &img);
    assert_int_equal(img.width, 3);
    assert_int_equal(img.channels, 1);
    io_image_free(&img);
    written(dir, "b.bmp", NULL, NULL, gray, 1, &roi, 8, &img);
    assert_int_equal(((const uint8_t *)img.pixels)[3 * 3], 255); /* 254.6 -> 255 */
    io_image_free(&img);

    /* outputs_put_image: 8-bit rows as the batch's lanes make them. */
    snprintf(path, sizeof path, "%s/p.png", dir);
    uint8_t rows[6] = {1, 2, 3, 4, 5, 6};
    const io_image mine = {3, 2, 1, 8, 255, rows, NULL};
    assert_int_equal(outputs_put_image(path, IO_FORMAT_PNG, &mine, 95, 0, err, sizeof err), 0);
    decode_file(path, &img);
    assert_memory_equal(img.pixels, rows, sizeof rows);
    io_image_free(&img);

    const char *names[] = {"g.png", "c.ppm", "c16.pnm", "q.jpg", "b.bmp", "p.png"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(remove(path), 0);
    }
    assert_int_equal(remove(dir), 0); /* fails if a temporary file was left */
}

/* Runs fn in a child process with descriptor 1 on out_fd and 2 on err_fd; its exit status. */
static int in_child(void (*fn)(void), int out_fd, int err_fd)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(out_fd, STDOUT_FILENO);
        dup2(err_fd, STDERR_FILENO);
        fn();
        _exit(99); /* fn exits itself */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void claim_and_write(void)
{
    char err[256];
    if (outputs_claim_stdout(err, sizeof err))
        _exit(1);
    printf("a report\n"); /* after the claim: to standard error */
    fflush(stdout);
    const uint8_t image[5] = {'I', 'M', 'A', 'G', 'E'};
    _exit(outputs_put_bytes("-", image, sizeof image, 1, err, sizeof err) ? 2 : 0);
}

static void write_to_closed_pipe(void)
{
    char err[256];
    if (outputs_claim_stdout(err, sizeof err))
        _exit(1);
    static uint8_t image[1 << 20]; /* more than a pipe holds */
    const int rc = outputs_put_bytes("-", image, sizeof image, 1, err, sizeof err);
    /* Alive (SIGPIPE ignored), failed, and said why. */
    _exit(rc == -1 && strstr(err, "-o -: broken pipe") ? 0 : 2);
}

static void write_unclaimed(void)
{
    char err[256];
    const uint8_t byte = 0;
    const int rc = outputs_put_bytes("-", &byte, 1, 1, err, sizeof err);
    _exit(rc == -1 && strstr(err, "not claimed") ? 0 : 2);
}

/* -o -: the image alone on standard output, every report on standard error; a reader that
 * has gone away is a failed write with its reason, not a silent death by SIGPIPE. */
static void test_standard_output(void **state)
{
    (void)state;
    FILE *out = tmpfile(), *errs = tmpfile();
    char buf[64] = "";
    assert_non_null(out);
    assert_non_null(errs);
    assert_int_equal(in_child(claim_and_write, fileno(out), fileno(errs)), 0);
    rewind(out);
    assert_int_equal(fread(buf, 1, sizeof buf, out), 5);
    assert_memory_equal(buf, "IMAGE", 5);
    rewind(errs);
    memset(buf, 0, sizeof buf);
    assert_non_null(fgets(buf, sizeof buf, errs));
    assert_string_equal(buf, "a report\n");
    fclose(out);
    fclose(errs);

    int p[2];
    assert_int_equal(pipe(p), 0);
    close(p[0]); /* the reader is gone before anything is written */
    assert_int_equal(in_child(write_to_closed_pipe, p[1], STDERR_FILENO), 0);
    close(p[1]);
    assert_int_equal(in_child(write_unclaimed, STDOUT_FILENO, STDERR_FILENO), 0);
}

/* Writes "data" through atomic_file to path: 0, or -1 with err filled. */
static int write_atomically(const char *path, atomic_file *af, char *err, size_t size)
{
    if (atomic_file_open(af, path, err, size) != 0)
        return -1;
    fputs("data", af->f);
    int rc = atomic_file_close(af, err, size) == 0 && atomic_file_commit(af, err, size) == 0;
    atomic_file_discard(af);
    return rc ? 0 : -1;
}

/* A new output has no name until it is complete and synced (so a kill -9 at any moment leaves
 * nothing); then it is linked under its own name in one step, and the folder is synced. */
static void test_new_output_unnamed_until_linked(void **state)
{
    (void)state;
    char dir[] = "/tmp/tiledconv-atomic.XXXXXX", path[64], err[256] = "";
    atomic_file af = ATOMIC_FILE_INIT;
    in_new_folder(dir, path, sizeof path, "new.bmp");
    n_events = 0;
    assert_int_equal(atomic_file_open(&af, path, err, sizeof err), 0);
    fputs("data", af.f);
    assert_int_equal(count_entries(dir), 0); /* written, and nothing in the folder */
    assert_int_equal(atomic_file_close(&af, err, sizeof err), 0);
    assert_int_equal(count_entries(dir), 0);
    assert_int_equal(atomic_file_commit(&af, err, sizeof err), 0);
    atomic_file_discard(&af);
    assert_int_equal(count_entries(dir), 1);
    assert_int_equal(n_events, 3);
    assert_string_equal(events[0], "fsync file");
    assert_string_equal(events[1], "link new.bmp");
    assert_string_equal(events[2], "fsync folder");
    struct stat st;
    mode_t mask = umask(022);
    umask(mask);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
    assert_int_equal(st.st_size, 4);

    /* Discarded before the commit: nothing is left, not even a temporary name. */
    snprintf(path, sizeof path, "%s/dropped.bmp", dir);
    assert_int_equal(atomic_file_open(&af, path, err, sizeof err), 0);
    fputs("data", af.f);
    assert_int_equal(atomic_file_close(&af, err, sizeof err), 0);
    atomic_file_discard(&af);
    assert_int_equal(count_entries(dir), 1);
    snprintf(path, sizeof path, "%s/new.bmp", dir);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Replacing a file: the complete file is linked to a temporary name and renamed over the old
 * one at once, then the folder is synced; the old file's mode is kept (0600 stays 0600), less
 * its setuid and setgid bits (04755 becomes 0755). */
static void test_replace_keeps_mode(void **state)
{
    (void)state;
    char dir[] = "/tmp/tiledconv-atomic.XXXXXX", path[64], err[256] = "";
    atomic_file af = ATOMIC_FILE_INIT;
    in_new_folder(dir, path, sizeof path, "old.bmp");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("old contents", f);
    assert_int_equal(fclose(f), 0);
    static const mode_t modes[][2] = {{0600, 0600}, {0640, 0640}, {04755, 0755},
                                      {02750, 0750}, {06711, 0711}, {01644, 01644}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        const mode_t mode = modes[m][1];
        assert_int_equal(chmod(path, modes[m][0]), 0);
        n_events = 0;
        assert_int_equal(write_atomically(path, &af, err, sizeof err), 0);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, mode);
        assert_int_equal(st.st_size, 4);
        assert_int_equal(count_entries(dir), 1);
        assert_int_equal(n_events, 4);
        assert_string_equal(events[0], "fsync file");
        assert_int_equal(strncmp(events[1], "link .old.bmp.", 14), 0);
        assert_string_equal(events[2], "rename to old.bmp");
        assert_string_equal(events[3], "fsync folder");
    }
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* The child of test_signals_remove_temporaries, run as a fresh process (this program with
 * --signal-child SIG IGNORED PATH), so that the handlers are installed as in the tool: on the
 * first registration, with the dispositions the process started with. */
static int signal_child(int sig, int ignored, const char *path)
{
    if (ignored)
        signal(sig, SIG_IGN); /* as nohup, or a background job, would have left it */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || signals_remember(path) < 0)
        return 3;
    raise(sig);
    return ignored ? 0 : 4; /* only the ignored signal gets here */
}

/* A registered temporary name is removed by SIGINT, SIGTERM and SIGHUP, and the signal then
 * ends the process as it would have (the shell sees 128 + the signal); a signal ignored when
 * the process started stays ignored. */
static void test_signals_remove_temporaries(void **state)
{
    (void)state;
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    char dir[] = "/tmp/tiledconv-signals.XXXXXX", path[64];
    in_new_folder(dir, path, sizeof path, ".out.bmp.abcdef");
    for (int i = 0; i < 4; i++) {
        const int ignored = i == 3, sig = ignored ? SIGHUP : sigs[i];
        char sig_text[8];
        snprintf(sig_text, sizeof sig_text, "%d", sig);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            signal(sig, SIG_DFL);
            execl("/proc/self/exe", "test_outputs", "--signal-child", sig_text,
                  ignored ? "1" : "0", path, (char *)NULL);
            _exit(5);
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (ignored) {
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            assert_int_equal(count_entries(dir), 1);
            assert_int_equal(unlink(path), 0);
        } else {
            if (!WIFSIGNALED(status))
                fail_msg("signal %d: the child exited with %d", sig, WEXITSTATUS(status));
            assert_int_equal(WTERMSIG(status), sig);
            assert_int_equal(count_entries(dir), 0);
        }
    }
    assert_int_equal(rmdir(dir), 0);
}

/* An existing read-only output is refused before any work unless --force; so is an output
 * whose folder cannot take new files. */
static void test_read_only_and_unwritable(void **state)
{
    (void)state;
    char dir[] = "/tmp/tiledconv-ro.XXXXXX", path[64], err[256] = "";
    tc_options o;
    in_new_folder(dir, path, sizeof path, "ro.bmp");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, 0444), 0);
    char *argv[] = {"tiledconv", "-g", "8x8", "-o", path, NULL, NULL};
    assert_int_equal(cli_parse(5, argv, &o, stderr), 0);
    assert_int_equal(outputs_check_all(&o, err, sizeof err), -1);
    char want[160];
    snprintf(want, sizeof want, "-o %s: the file is read-only; refusing to replace it (--force "
                                "replaces it)", path);
    assert_string_equal(err, want);
    argv[5] = "--force";
    assert_int_equal(cli_parse(6, argv, &o, stderr), 0);
    assert_int_equal(outputs_check_all(&o, err, sizeof err), 0);
    assert_int_equal(remove(path), 0);
    assert_int_equal(rmdir(dir), 0);

    char *proc[] = {"tiledconv", "-g", "8x8", "-o", "/proc/out.bmp", NULL};
    assert_int_equal(cli_parse(5, proc, &o, stderr), 0);
    assert_int_equal(outputs_check_all(&o, err, sizeof err), -1);
    assert_non_null(strstr(err, "-o /proc/out.bmp: cannot create files in the folder /proc"));
}

/* The batch's writers sync each file but leave its folder to the batch's one sync at the end
 * (OUTPUTS_SYNC_FILE); a single file syncs both; --no-sync neither. */
static void test_put_sync_modes(void **state)
{
    (void)state;
    char dir[] = "/tmp/tiledconv-put.XXXXXX", path[64], err[256] = "";
    static const uint8_t data[4] = {1, 2, 3, 4};
    const io_image img = {2, 2, 1, 8, 255, (void *)data, NULL};
    /* bytes: through outputs_put_bytes (else outputs_put_image in fmt); events: how many, and
     * those of them checked (NULL: not). */
    static const struct {
        const char *name;
        int bytes;
        io_format fmt;
        int sync, events;
        const char *event[3];
    } cases[] = {
        {"a.bmp", 1, IO_FORMAT_BMP, OUTPUTS_SYNC_FILE, 2, {"fsync file", "link a.bmp", NULL}},
        {"b.png", 0, IO_FORMAT_PNG, OUTPUTS_SYNC_ALL, 3, {NULL, NULL, "fsync folder"}},
        {"c.pgm", 0, IO_FORMAT_PNM, OUTPUTS_SYNC_NONE, 1, {"link c.pgm", NULL, NULL}},
    };
    assert_non_null(mkdtemp(dir));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
        n_events = 0;
        if (cases[i].bytes)
            assert_int_equal(outputs_put_bytes(path, data, sizeof data, cases[i].sync, err,
                                               sizeof err), 0);
        else
            assert_int_equal(outputs_put_image(path, cases[i].fmt, &img, 0, cases[i].sync, err,
                                               sizeof err), 0);
        assert_int_equal(n_events, cases[i].events);
        for (int e = 0; e < 3; e++)
            if (cases[i].event[e])
                assert_string_equal(events[e], cases[i].event[e]);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
        assert_int_equal(remove(path), 0);
    }
    assert_int_equal(rmdir(dir), 0);
}

/* Two outputs of one run that are one file, and an output that is an input, whatever their
 * names: ./x and x, a folder reached through a link, hard and symbolic links; standard output
 * and absent outputs are no files; the message names both, the first given first. */
static void test_distinct_outputs(void **state)
{
    (void)state;
    char dir[] = "/tmp/tiledconv-same.XXXXXX", p[16][128], err[512] = "";
    assert_non_null(mkdtemp(dir));
    const char *names[] = {"x.bmp", "hard.bmp", "sym.bmp", "sub", "sublink", "dangling.bmp",
                           "t.bmp"};
    for (int i = 0; i < 7; i++)
        snprintf(p[i], sizeof p[i], "%s/%s", dir, names[i]);
    FILE *f = fopen(p[0], "wb");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(link(p[0], p[1]), 0);
    assert_int_equal(symlink("x.bmp", p[2]), 0);
    assert_int_equal(mkdir(p[3], 0755), 0);
    assert_int_equal(symlink("sub", p[4]), 0);
    assert_int_equal(symlink("t.bmp", p[5]), 0); /* t.bmp does not exist */
    snprintf(p[7], sizeof p[7], "%s/./x.bmp", dir);
    snprintf(p[8], sizeof p[8], "%s/sub/new.bmp", dir);
    snprintf(p[9], sizeof p[9], "%s/sublink/new.bmp", dir);
    snprintf(p[10], sizeof p[10], "%s/sub/other.bmp", dir);
    char want[512];
    const struct {
        outputs_named a, b;
        int same;
    } cases[] = {
        {{"-o", p[0]}, {"--class-map", p[7]}, 1},   /* one existing file, two names */
        {{"-o", p[0]}, {"--raw", p[1]}, 1},         /* a hard link */
        {{"-O", p[2]}, {"-O", p[1]}, 1},            /* a symbolic link to the other's file */
        {{"-o", p[8]}, {"--class-map", p[9]}, 1},   /* a new name, its folder through a link */
        {{"-o", p[8]}, {"--raw", p[10]}, 0},        /* two new names in one folder */
        {{"-o", p[5]}, {"--raw", p[6]}, 0},         /* a dangling link is replaced, not its target */
        {{"-o", "-"}, {"--raw", "-"}, 0},           /* standard output is no file */
        {{"-o", NULL}, {"--raw", NULL}, 0},
        {{"-O", p[8]}, {NULL, p[9]}, 2},            /* an output that is an input */
        {{NULL, p[0]}, {NULL, p[1]}, 0},            /* two inputs: nothing is written */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const outputs_named files[3] = {cases[i].a, {"--raw", NULL}, cases[i].b};
        const int rc = outputs_check_distinct(files, 3, err, sizeof err);
        if (cases[i].same == 0) {
            assert_int_equal(rc, 0);
            continue;
        }
        assert_int_equal(rc, -1);
        if (cases[i].same == 1)
            snprintf(want, sizeof want, "%s %s and %s %s are the same file; give each its own "
                     "name", cases[i].a.flag, cases[i].a.path, cases[i].b.flag, cases[i].b.path);
        else
            snprintf(want, sizeof want, "%s %s would replace the input %s; refusing",
                     cases[i].a.flag, cases[i].a.path, cases[i].b.path);
        assert_string_equal(err, want);
    }
    /* Many names: the pair is found among them, whatever their order. */
    outputs_named many[200];
    char many_names[200][64];
    for (int i = 0; i < 200; i++) {
        snprintf(many_names[i], sizeof many_names[i], "%s/sub/n%03d.bmp", dir, i);
        many[i] = (outputs_named){i % 2 ? "--raw" : "-O", many_names[i]};
    }
    assert_int_equal(outputs_check_distinct(many, 200, err, sizeof err), 0);
    snprintf(many_names[150], sizeof many_names[150], "%s/sublink/n%03d.bmp", dir, 17);
    assert_int_equal(outputs_check_distinct(many, 200, err, sizeof err), -1);
    snprintf(want, sizeof want, "--raw %s/sub/n017.bmp and -O %s/sublink/n017.bmp are the same "
             "file; give each its own name", dir, dir);
    assert_string_equal(err, want);
    for (int i = 5; i >= 0; i--) /* t.bmp never existed */
        if (i == 3)
            assert_int_equal(rmdir(p[i]), 0);
        else
            assert_int_equal(unlink(p[i]), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* outputs_check_all refuses o's outputs: flag1's file1 and flag2's file2, one file. */
static void refused_as_one_file(const tc_options *o, const char *flag1, const char *file1,
                                const char *flag2, const char *file2)
{
    char err[512] = "", want[512];
    assert_int_equal(outputs_check_all(o, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s %s and %s %s are the same file; give each its own name",
             flag1, file1, flag2, file2);
    assert_string_equal(err, want);
}

/* The options' outputs: -o, --raw and --class-map, any two of them one file. */
static void test_check_all_distinct(void **state)
{
    (void)state;
    char dir[] = "/tmp/tiledconv-same.XXXXXX", a[96], b[96], err[512] = "";
    in_new_folder(dir, a, sizeof a, "out.png");
    snprintf(b, sizeof b, "%s/./out.png", dir);
    tc_options o;
    memset(&o, 0, sizeof o);
    o.write_output = 1;
    o.output = a;
    o.class_map = b;
    refused_as_one_file(&o, "-o", a, "--class-map", b);
    o.class_map = NULL;
    o.raw_output = b;
    assert_int_equal(outputs_check_all(&o, err, sizeof err), -1);
    o.write_output = 0; /* --no-output: -o's name is not written */
    o.class_map = a;
    refused_as_one_file(&o, "--raw", b, "--class-map", a);
    o.class_map = NULL;
    assert_int_equal(outputs_check_all(&o, err, sizeof err), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--signal-child") == 0)
        return signal_child(atoi(argv[2]), atoi(argv[3]), argv[4]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_file),
        cmocka_unit_test(test_depth_rule),
        cmocka_unit_test(test_image_formats),
        cmocka_unit_test(test_standard_output),
        cmocka_unit_test(test_new_output_unnamed_until_linked),
        cmocka_unit_test(test_replace_keeps_mode),
        cmocka_unit_test(test_signals_remove_temporaries),
        cmocka_unit_test(test_read_only_and_unwritable),
        cmocka_unit_test(test_put_sync_modes),
        cmocka_unit_test(test_distinct_outputs),
        cmocka_unit_test(test_check_all_distinct),
    };
    return cmocka_run_group_tests_name("outputs", tests, NULL, NULL);
}
