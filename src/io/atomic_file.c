/* atomic_file.c - complete files given their names in one step (atomic_file.h). */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH */
#include "atomic_file.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "signals.h"
#include "text.h"

/* The stdio buffer of an output being written: a JPEG of a 1080p photo in two or three writes,
 * and little beside each worker's open output (a memory budget's margin holds it). */
#define ATOMIC_FILE_BUFFER (256 * 1024)

static pthread_once_t umask_once = PTHREAD_ONCE_INIT;
static mode_t process_umask = 022;

/* The process's umask, from the Umask line of /proc/self/status (Linux 4.7 on), which reading
 * leaves alone; without it from umask() itself, which can only be read by setting it: set and
 * set back once (atomic_file_read_umask, before any thread), since a umask set by one thread
 * for a moment is the umask of every file another creates meanwhile. */
static void read_umask(void)
{
    char line[128];
    unsigned mask = 0;
    int found = 0;
    FILE *f = fopen("/proc/self/status", "re");
    while (f && !found && fgets(line, sizeof line, f))
        found = sscanf(line, "Umask: %o", &mask) == 1;
    if (f)
        fclose(f);
    if (found) {
        process_umask = (mode_t)(mask & 0777);
    } else {
        process_umask = umask(022);
        umask(process_umask);
    }
}

void atomic_file_read_umask(void)
{
    pthread_once(&umask_once, read_umask);
}

/* The file mode that fopen() would give a new file: 0666 less the umask (0644 under the usual
 * umask 022). */
static mode_t default_file_mode(void)
{
    atomic_file_read_umask();
    return (mode_t)(0666 & ~process_umask);
}

/* The folder part of path into a new string ("." for a bare name); NULL when out of memory. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t len = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(len + 1);
    if (dir) {
        memcpy(dir, slash ? path : ".", len);
        dir[len] = '\0';
    }
    return dir;
}

/* The longest name a file system takes (Linux: 255 bytes). */
#ifndef NAME_MAX
#define NAME_MAX 255
#endif
/* Of the target's name, what a temporary name keeps: ".NAME.XXXXXX" stays within NAME_MAX
 * however long NAME is (a name of 248 bytes or more would make one too long, and the output
 * fail after all the work). */
#define TEMPORARY_NAME_KEEPS (NAME_MAX - (int)sizeof "..XXXXXX" + 1)

/* A fresh ".NAME.XXXXXX" beside path (6 letters or digits from a cheap generator: uniqueness
 * comes from the O_EXCL or link that uses the name, which the callers retry), NAME cut to
 * TEMPORARY_NAME_KEEPS bytes. */
static void temporary_name(const char *path, char *out, size_t size)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static unsigned long state;
    const char *slash = strrchr(path, '/');
    const size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    char suffix[7];
    if (!state)
        state = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16) ^ (unsigned long)out;
    for (int i = 0; i < 6; i++) {
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        suffix[i] = letters[(state >> 33) % (sizeof letters - 1)];
    }
    suffix[6] = '\0';
    snprintf(out, size, "%.*s.%.*s.%s", (int)dir_len, path, TEMPORARY_NAME_KEEPS, path + dir_len,
             suffix);
}

/* A named temporary beside the target, registered for the signal handler in the same step
 * (signals blocked in between, so no signal can find it unregistered). -1 with errno. */
static int create_named(atomic_file *af, size_t tmp_size, mode_t mode)
{
    sigset_t old;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        temporary_name(af->path, af->tmp, tmp_size);
        signals_block(&old);
        fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0) {
            af->tmp_exists = 1;
            af->slot = signals_remember(af->tmp);
        }
        signals_restore(&old);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    return fd;
}

/* Keeps a replaced file's permission bits, and its owner and group where we may (root, or our
 * own). Not its setuid and setgid bits: new contents must not inherit a program's privileges
 * (a setuid file replaced by an image would stay setuid for whatever is written there next),
 * as cp and install drop them and the kernel clears them on a write by anyone but root. */
static int keep_attributes(int fd, const struct stat *st)
{
    if (fchown(fd, st->st_uid, st->st_gid) != 0 && fchown(fd, (uid_t)-1, st->st_gid) != 0) {
        /* Not ours to give away: the mode is still kept. */
    }
    return fchmod(fd, st->st_mode & 01777 & ~(mode_t)(S_ISUID | S_ISGID));
}

int atomic_file_open(atomic_file *af, const char *path, char *err, size_t err_size)
{
    struct stat st;
    text_shown shown;
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    const size_t tmp_size = strlen(path) + sizeof "..XXXXXX";
    char *dir = NULL;
    int fd = -1;

    af->path = path;
    af->tmp = NULL;
    af->f = NULL;
    af->fd = -1;
    af->unnamed = 0;
    af->replace = 0;
    af->slot = -1;
    af->tmp_exists = 0;
    af->sync_folder = 1;
    af->buffer = NULL;
    if (!path[dir_len]) {
        snprintf(err, err_size, "%s: names a folder, not a file", text_show(path, &shown));
        return -1;
    }
    /* rename() would replace a device node (say /dev/null) or a folder's entry with a regular
     * file; only a regular file or a new name may be replaced. */
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, err_size, "%s: not a regular file, refusing to replace it",
                     text_show(path, &shown));
            return -1;
        }
        af->replace = 1;
    }
    af->tmp = malloc(tmp_size);
    dir = folder_of(path);
    if (!af->tmp || !dir) {
        snprintf(err, err_size, "%s: out of memory", text_show(path, &shown));
        goto fail;
    }
    /* The file lives in the target's folder, so that the link or rename stays on one file
     * system and is atomic. Without a name first; where the file system cannot do that, under
     * the temporary name. */
    fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, default_file_mode());
    if (fd >= 0)
        af->unnamed = 1;
    else if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT)
        fd = create_named(af, tmp_size, default_file_mode());
    if (fd < 0) {
        snprintf(err, err_size, "%s: cannot create a temporary file: %s", text_show(path, &shown),
                 strerror(errno));
        goto fail;
    }
    if (af->replace && keep_attributes(fd, &st) != 0) {
        snprintf(err, err_size, "%s: %s", text_show(path, &shown), strerror(errno));
        goto fail;
    }
    if (!(af->f = fdopen(fd, "wb"))) {
        snprintf(err, err_size, "%s: %s", text_show(path, &shown), strerror(errno));
        goto fail;
    }
    /* Writers that stream (libjpeg's 4 KB at a time, the rows of BMP and PNM) reach the file
     * in a few large writes rather than one a few KB; a whole image written at once is not
     * copied through it (stdio writes a large block straight). glibc takes a size only with a
     * buffer; without memory for one, stdio's own. */
    if ((af->buffer = malloc(ATOMIC_FILE_BUFFER)) &&
        setvbuf(af->f, af->buffer, _IOFBF, ATOMIC_FILE_BUFFER) != 0) {
        free(af->buffer);
        af->buffer = NULL;
    }
    free(dir);
    return 0;
fail:
    if (fd >= 0 && !af->f)
        close(fd);
    free(dir);
    atomic_file_discard(af);
    return -1;
}

int atomic_file_close(atomic_file *af, char *err, size_t err_size)
{
    return atomic_file_finish(af, 1, err, err_size);
}

int atomic_file_finish(atomic_file *af, int sync, char *err, size_t err_size)
{
    FILE *f = af->f;
    text_shown shown;
    af->f = NULL;
    /* Synced before it gets its name, so that the name never points at data not yet on disk;
     * fclose reports errors that delayed writes hit (a full disk) and closes whatever it
     * returns. An unnamed file keeps a descriptor of its own, for the link. */
    int ok = fflush(f) == 0 && (!sync || fsync(fileno(f)) == 0);
    if (!sync)
        af->sync_folder = 0;
    int saved = errno;
    if (ok && af->unnamed && (af->fd = dup(fileno(f))) < 0) {
        ok = 0;
        saved = errno;
    }
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    free(af->buffer);
    af->buffer = NULL;
    if (!ok) {
        snprintf(err, err_size, "%s: write error: %s", text_show(af->path, &shown),
                 strerror(saved));
        return -1;
    }
    return 0;
}

/* Links the unnamed file to `name`: through /proc/self/fd, which needs no privilege, or, where
 * /proc is missing, AT_EMPTY_PATH. 0, or -1 with errno. */
static int link_unnamed(int fd, const char *name)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
        return 0;
    if (errno != ENOENT)
        return -1;
    return linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
}

/* Syncs the folder of path, so that a new name in it survives a crash. File systems that
 * cannot sync a folder (EINVAL) have nothing more to do. */
static int sync_folder(const char *path)
{
    char *dir = folder_of(path);
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    int rc = 0;
    if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL && errno != EROFS))
        rc = -1;
    if (fd >= 0)
        close(fd);
    free(dir);
    return rc;
}

/* The complete unnamed file under a temporary name (registered for the signal handler). */
static int link_temporary(atomic_file *af)
{
    const size_t tmp_size = strlen(af->path) + sizeof "..XXXXXX";
    sigset_t old;
    for (int attempt = 0; attempt < 100; attempt++) {
        temporary_name(af->path, af->tmp, tmp_size);
        signals_block(&old);
        int rc = link_unnamed(af->fd, af->tmp);
        if (rc == 0) {
            af->tmp_exists = 1;
            af->slot = signals_remember(af->tmp);
        }
        signals_restore(&old);
        if (rc == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

int atomic_file_commit(atomic_file *af, char *err, size_t err_size)
{
    text_shown shown;
    sigset_t old;
    if (af->unnamed && !af->replace) {
        /* A new output: the complete file appears under its name in one step. Should the name
         * have been taken since the file was opened, it is replaced as below. */
        if (link_unnamed(af->fd, af->path) == 0)
            goto linked;
        if (errno != EEXIST) {
            snprintf(err, err_size, "%s: cannot link the file into place: %s",
                     text_show(af->path, &shown), strerror(errno));
            return -1;
        }
    }
    if (af->unnamed && link_temporary(af) != 0) {
        snprintf(err, err_size, "%s: cannot link the temporary file: %s",
                 text_show(af->path, &shown), strerror(errno));
        return -1;
    }
    /* Renamed and forgotten as one step for the signal handler: it must never remove the
     * name once it is the target's. */
    signals_block(&old);
    int rc = rename(af->tmp, af->path);
    int saved = errno;
    if (rc == 0) {
        signals_forget(af->slot);
        af->slot = -1;
        af->tmp_exists = 0;
        free(af->tmp);
        af->tmp = NULL;
    }
    signals_restore(&old);
    if (rc != 0) {
        snprintf(err, err_size, "%s: cannot rename the temporary file into place: %s",
                 text_show(af->path, &shown), strerror(saved));
        return -1;
    }
linked:
    if (af->fd >= 0) {
        close(af->fd);
        af->fd = -1;
    }
    af->unnamed = 0;
    if (af->sync_folder && sync_folder(af->path) != 0) {
        snprintf(err, err_size, "%s: written, but its folder could not be synced: %s",
                 text_show(af->path, &shown), strerror(errno));
        return -1;
    }
    return 0;
}

void atomic_file_discard(atomic_file *af)
{
    if (af->f) {
        fclose(af->f);
        af->f = NULL;
    }
    free(af->buffer);
    af->buffer = NULL;
    if (af->unnamed && af->fd >= 0) { /* an unnamed file vanishes with its last descriptor */
        close(af->fd);
        af->fd = -1;
    }
    if (af->tmp) {
        sigset_t old;
        signals_block(&old);
        if (af->tmp_exists)
            unlink(af->tmp);
        af->tmp_exists = 0;
        signals_forget(af->slot);
        af->slot = -1;
        signals_restore(&old);
        free(af->tmp);
        af->tmp = NULL;
    }
}

int atomic_file_folder_writable(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return 1;
    }
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return 0;
    /* No O_TMPFILE here: a named probe, registered while it exists. */
    const size_t size = strlen(dir) + sizeof "/.tiledconv-probe.XXXXXX";
    char *name = malloc(size);
    sigset_t old;
    int slot = -1, ok = 0;
    if (!name)
        return 0;
    snprintf(name, size, "%s/.tiledconv-probe.XXXXXX", dir);
    signals_block(&old);
    fd = mkstemp(name);
    if (fd >= 0)
        slot = signals_remember(name);
    signals_restore(&old);
    if (fd >= 0) {
        int saved = errno;
        close(fd);
        signals_block(&old);
        unlink(name);
        signals_forget(slot);
        signals_restore(&old);
        errno = saved;
        ok = 1;
    }
    free(name);
    return ok;
}
