/* atomic_file.c - temporary file in the target's folder, then rename(). */
#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file mode that fopen() would give a new file: 0666 less the umask (0644 under the usual
 * umask 022). umask() can only be read by setting it, so it is set back at once; the tool writes
 * from one thread. */
static mode_t default_file_mode(void)
{
    mode_t mask = umask(022);
    umask(mask);
    return (mode_t)(0666 & ~mask);
}

int atomic_file_open(atomic_file *af, const char *path, char *err, size_t err_size)
{
    struct stat st;
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    size_t tmp_len = strlen(path) + sizeof "..XXXXXX";
    int fd;

    af->path = path;
    af->tmp = NULL;
    af->f = NULL;
    if (!path[dir_len]) {
        snprintf(err, err_size, "%s: names a folder, not a file", path);
        return -1;
    }
    /* rename() would replace a device node (say /dev/null) or a folder's entry with a regular
     * file; only a regular file or a new name may be replaced. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, err_size, "%s: not a regular file, refusing to replace it", path);
        return -1;
    }
    af->tmp = malloc(tmp_len);
    if (!af->tmp) {
        snprintf(err, err_size, "%s: out of memory", path);
        return -1;
    }
    /* The temporary lives in the target's folder, so that rename() stays on one file system
     * and is atomic: a reader sees the old file or the new one, never a partial one. */
    snprintf(af->tmp, tmp_len, "%.*s.%s.XXXXXX", (int)dir_len, path, path + dir_len);
    fd = mkstemp(af->tmp);
    if (fd < 0) {
        snprintf(err, err_size, "%s: cannot create a temporary file: %s", path, strerror(errno));
        free(af->tmp);
        af->tmp = NULL;
        return -1;
    }
    /* mkstemp makes the file 0600; the result should have the mode any new file gets. */
    if (fchmod(fd, default_file_mode()) != 0 || !(af->f = fdopen(fd, "wb"))) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        close(fd);
        atomic_file_discard(af);
        return -1;
    }
    return 0;
}

int atomic_file_close(atomic_file *af, char *err, size_t err_size)
{
    return atomic_file_finish(af, 1, err, err_size);
}

int atomic_file_finish(atomic_file *af, int sync, char *err, size_t err_size)
{
    FILE *f = af->f;
    af->f = NULL;
    /* Synced before the rename, so that the name never points at data not yet on disk; fclose
     * reports errors that delayed writes hit (a full disk) and closes whatever it returns. */
    int ok = fflush(f) == 0 && (!sync || fsync(fileno(f)) == 0);
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        snprintf(err, err_size, "%s: write error: %s", af->path, strerror(saved));
        return -1;
    }
    return 0;
}

int atomic_file_commit(atomic_file *af, char *err, size_t err_size)
{
    if (rename(af->tmp, af->path) != 0) {
        snprintf(err, err_size, "%s: cannot rename the temporary file into place: %s", af->path,
                 strerror(errno));
        return -1;
    }
    free(af->tmp); /* the temporary is the target now */
    af->tmp = NULL;
    return 0;
}

void atomic_file_discard(atomic_file *af)
{
    if (af->f) {
        fclose(af->f);
        af->f = NULL;
    }
    if (af->tmp) {
        unlink(af->tmp);
        free(af->tmp);
        af->tmp = NULL;
    }
}
