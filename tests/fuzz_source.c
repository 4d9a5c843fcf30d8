/*
 * fuzz_source.c - libFuzzer harness for the tool's input reader, src/files/source.c (make fuzz,
 * tests/fuzz-readers.sh), seeded with the fixtures of every format behind each way in.
 *
 * The input's first byte chooses how the rest reaches the reader, so that every path of
 * source.c is driven by the same bytes:
 *   0  a regular file, opened header first (source_reader_open) and decoded
 *   1  standard input, a pipe fed by a thread (the stream path, stream_bounds.h)
 *   2  a FIFO named as the input, fed the same way
 *   3  the whole-input calls (source_read, source_decode)
 *   4  a character device, /dev/null or /dev/zero (refused by its kind whatever it holds)
 *   5  a file that shrinks between its header and its decoding, to a length the next two bytes
 *      choose (the reader reads, never maps, so that this is a refusal, not a SIGBUS)
 * What libFuzzer cannot do (a file shrinking while a decoder is inside it, a terminal, a
 * socket) the end-to-end tests do. The reader runs with the tool's limits (the default pixel
 * limit, the bomb ratio) and the harness asserts its contract: a refusal is one non-empty line
 * that starts with the input's name ("standard input: ..."), and leaves nothing open; what it
 * accepts decodes to the size its header gave, or is refused in the same way; a stream is
 * never held beyond its own bytes.
 */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], file_path[96], fifo_path[96];
static int saved_stdin = -1;

static void cleanup(void)
{
    unlink(file_path);
    unlink(fifo_path);
    rmdir(dir);
}

static void setup(void)
{
    if (dir[0])
        return;
    snprintf(dir, sizeof dir, "/tmp/tiledconv-fuzz-source.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    snprintf(file_path, sizeof file_path, "%s/in", dir);
    snprintf(fifo_path, sizeof fifo_path, "%s/fifo", dir);
    if (mkfifo(fifo_path, 0600) != 0 || (saved_stdin = dup(STDIN_FILENO)) < 0)
        abort();
    signal(SIGPIPE, SIG_IGN); /* a reader that stops early makes the writer's write fail */
    atexit(cleanup);
}

static void write_file(const uint8_t *data, size_t size)
{
    int fd = open(file_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            abort();
        done += (size_t)n;
    }
    close(fd);
}

/* A writer thread: the bytes into fd (or into the FIFO, once a reader has opened it), then
 * the end of the stream. It stops when the reader goes away (EPIPE) or gives up (done). */
typedef struct {
    const uint8_t *data;
    size_t size;
    int fd;            /* -1: open the FIFO */
    atomic_int done;   /* the reader has finished */
} feed;

static void *writer(void *arg)
{
    feed *f = arg;
    int fd = f->fd;
    while (fd < 0 && !atomic_load(&f->done)) {
        fd = open(fifo_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC); /* ENXIO until a reader */
        if (fd < 0)
            nanosleep(&(struct timespec){0, 50000}, NULL);
    }
    if (fd < 0)
        return NULL;
    fcntl(fd, F_SETFL, 0);
    for (size_t done = 0; done < f->size;) {
        ssize_t n = write(fd, f->data + done, f->size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(fd);
    return NULL;
}

/* The contract of a refusal: one non-empty line, starting with the input's name. */
static void check_refusal(const char *err, const char *name)
{
    const size_t n = strlen(name);
    if (!err[0] || strchr(err, '\n') || strncmp(err, name, n) != 0 || strncmp(err + n, ": ", 2))
        abort();
}

/* Opens path through the header-first reader, decodes what it accepts, and checks both. */
static void read_one(const char *path, const char *name, size_t size, int shrink_to)
{
    source_reader r;
    io_image img;
    char err[1024] = "";
    if (source_reader_open(path, NULL, &r, err, sizeof err) != 0) {
        check_refusal(err, name);
        if (r.fd >= 0 && !r.from_stdin)
            abort(); /* nothing left open */
        return;
    }
    if (r.head.width < 1 || r.head.height < 1 || (r.head.channels != 1 && r.head.channels != 3))
        abort();
    /* A stream is held no further than its own bytes (a BMP's count is what its header says
     * will be read). */
    if (r.from_stdin && r.format != IO_FORMAT_BMP && r.held > size)
        abort();
    if (shrink_to >= 0 && truncate(file_path, shrink_to) != 0)
        abort();
    if (source_reader_decode(&r, &img, err, sizeof err) == 0) {
        if (img.width != r.head.width || img.height != r.head.height || !img.pixels)
            abort();
        io_image_free(&img);
    } else {
        check_refusal(err, name);
    }
    source_reader_close(&r);
}

/* The same bytes as standard input or a FIFO, fed by a thread. */
static void read_streamed(const uint8_t *data, size_t size, int fifo)
{
    int p[2] = {-1, -1};
    feed f = {data, size, -1, 0};
    pthread_t t;
    if (!fifo) {
        if (pipe(p) != 0 || dup2(p[0], STDIN_FILENO) < 0)
            abort();
        close(p[0]);
        f.fd = p[1];
    }
    if (pthread_create(&t, NULL, writer, &f) != 0)
        abort();
    read_one(fifo ? fifo_path : "-", fifo ? fifo_path : "standard input", size, -1);
    atomic_store(&f.done, 1); /* a writer still waiting for a reader gives up */
    if (!fifo) /* the read end closed: a writer still writing gets EPIPE */
        dup2(saved_stdin, STDIN_FILENO);
    pthread_join(t, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    setup();
    const int mode = data[0] % 6;
    const uint8_t *body = data + 1;
    const size_t n = size - 1;
    switch (mode) {
    case 0:
        write_file(body, n);
        read_one(file_path, file_path, n, -1);
        break;
    case 1:
        read_streamed(body, n, 0);
        break;
    case 2:
        read_streamed(body, n, 1);
        break;
    case 3: {
        source s;
        io_image img;
        char err[1024] = "";
        write_file(body, n);
        if (source_read(file_path, &s, err, sizeof err) != 0) {
            check_refusal(err, file_path);
            break;
        }
        if (s.size != n)
            abort();
        if (source_decode(&s, "in", 0, IO_MAX_PIXELS_PER_BYTE, &img, err, sizeof err) == 0)
            io_image_free(&img);
        else
            check_refusal(err, "in");
        source_free(&s);
        break;
    }
    case 4: {
        const char *dev = n > 0 && body[0] & 1 ? "/dev/zero" : "/dev/null";
        source_reader r;
        char err[1024] = "";
        if (source_reader_open(dev, NULL, &r, err, sizeof err) == 0)
            abort(); /* no character device is an image */
        check_refusal(err, dev);
        break;
    }
    default: {
        const int shrink = n >= 2 ? (body[0] | body[1] << 8) : -1;
        const uint8_t *rest = n >= 2 ? body + 2 : body;
        const size_t m = n >= 2 ? n - 2 : n;
        write_file(rest, m);
        read_one(file_path, file_path, m, shrink >= 0 ? (int)((size_t)shrink % (m + 1)) : -1);
        break;
    }
    }
    return 0;
}
