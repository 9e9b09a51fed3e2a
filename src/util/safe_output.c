/* safe_output.c — see safe_output.h. */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_output.h"

static int failure(char *err, size_t errlen, const char *path, const char *what)
{
    snprintf(err, errlen, "%s: %s", path, what);
    return -1;
}

/* The same file as one of the inputs (a hard link, or the path itself). */
static const char *same_as_input(const struct stat *out, const char *const *inputs, int n)
{
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (strcmp(inputs[i], "-") == 0 || stat(inputs[i], &st) != 0)
            continue;
        if (st.st_dev == out->st_dev && st.st_ino == out->st_ino)
            return inputs[i];
    }
    return NULL;
}

int safe_output_open(struct safe_output *o, const char *path, const char *const *inputs,
                     int ninputs, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->held_at = -1;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    struct stat st;
    int exists = lstat(path, &st) == 0;
    if (!exists && errno != ENOENT)
        return failure(err, errlen, path, strerror(errno));
    if (exists) {
        char what[600];
        const char *in = same_as_input(&st, inputs, ninputs);
        if (in) {
            snprintf(what, sizeof what, "is the same file as the input %s: refusing to overwrite it", in);
            return failure(err, errlen, path, what);
        }
        if (S_ISLNK(st.st_mode))
            return failure(err, errlen, path, "is a symbolic link: refusing to write through it "
                           "(remove it, or name the file it points to)");
        if (S_ISDIR(st.st_mode))
            return failure(err, errlen, path, "is a directory");
        if (!S_ISREG(st.st_mode)) {
            /* /dev/null, a FIFO, a terminal: written in place, never replaced */
            int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
            struct stat fst;
            if (fd < 0)
                return failure(err, errlen, path, strerror(errno));
            if (fstat(fd, &fst) != 0 || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
                close(fd);
                return failure(err, errlen, path, "changed while being opened");
            }
            o->f = fdopen(fd, "w");
            if (!o->f) {
                close(fd);
                return failure(err, errlen, path, strerror(errno));
            }
            return 0;
        }
    }
    /* a temporary file beside it: the rename stays within one file system */
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    o->tmp_path = malloc(n + 16);
    if (!o->tmp_path)
        return failure(err, errlen, path, "out of memory");
    snprintf(o->tmp_path, n + 16, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
    int fd = mkostemp(o->tmp_path, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        free(o->tmp_path);
        o->tmp_path = NULL;
        return failure(err, errlen, path, strerror(e));
    }
    /* the mode a plain creat() would give (mkstemp's is 0600), or the old file's */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(o->tmp_path);
        free(o->tmp_path);
        o->tmp_path = NULL;
        return failure(err, errlen, path, strerror(e));
    }
    return 0;
}

/* Where standard output's writes will begin, when it is a regular file
 * they would only add to (its end: opened for appending, or positioned
 * there), so that cutting it back there takes them back; else -1 (a
 * pipe, a device, or writes over bytes already in the file). */
static long long stdout_end(void)
{
    struct stat st;
    int flags = fcntl(1, F_GETFL);
    if (fstat(1, &st) != 0 || !S_ISREG(st.st_mode) || flags < 0)
        return -1;
    if (flags & O_APPEND)
        return st.st_size;
    off_t at = lseek(1, 0, SEEK_CUR);
    return at == st.st_size ? at : -1;
}

int safe_output_can_hold(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0)
        return stdout_end() >= 0;
    return lstat(path, &st) != 0 ? errno == ENOENT : S_ISREG(st.st_mode);
}

int safe_output_hold(struct safe_output *o, char *err, size_t errlen)
{
    if (o->tmp_path)
        return 0;                  /* a temporary file beside it: renamed at commit only */
    o->held_at = o->f == stdout ? stdout_end() : -1;
    if (o->held_at < 0)
        return failure(err, errlen, o->path, "cannot be taken back (not a regular file)");
    return 0;
}

/* Back to where the output began: the temporary file's start, or where
 * standard output stood. 0, or -1 with errno. */
static int take_back(struct safe_output *o)
{
    off_t at = o->tmp_path ? 0 : (off_t)o->held_at;
    if (fflush(o->f) != 0 || ftruncate(fileno(o->f), at) != 0 || fseeko(o->f, at, SEEK_SET) != 0)
        return -1;
    return 0;
}

int safe_output_restart(struct safe_output *o, char *err, size_t errlen)
{
    if ((!o->tmp_path && o->held_at < 0) || take_back(o) != 0)
        return failure(err, errlen, o->path, strerror(errno));
    return 0;
}

void safe_output_abort(struct safe_output *o)
{
    if (o->f == stdout && o->held_at >= 0)
        take_back(o);              /* standard output held: what was written goes */
    if (o->f && o->f != stdout)
        fclose(o->f);
    if (o->tmp_path) {
        unlink(o->tmp_path);
        free(o->tmp_path);
    }
    o->f = NULL;
    o->tmp_path = NULL;
}

int safe_output_commit(struct safe_output *o, char *err, size_t errlen)
{
    int bad = ferror(o->f);
    int rc = o->f == stdout ? fflush(o->f) : fclose(o->f);
    int e = errno;
    if (o->f == stdout && o->held_at >= 0 && (bad || rc != 0))
        take_back(o);
    o->f = NULL;
    if (bad || rc != 0) {
        safe_output_abort(o);
        snprintf(err, errlen, "%s: write failed: %s", o->path, strerror(bad && !rc ? EIO : e));
        return -1;
    }
    if (o->tmp_path && rename(o->tmp_path, o->path) != 0) {
        e = errno;
        safe_output_abort(o);
        return failure(err, errlen, o->path, strerror(e));
    }
    free(o->tmp_path);
    o->tmp_path = NULL;
    return 0;
}
