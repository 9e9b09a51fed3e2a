/*
 * metrics_file.c — see metrics_file.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "metrics_file.h"

int metrics_file_check(const char *path)
{
    struct stat st;
    if (!*path) {
        diag_error("--metrics-file: empty path");
        return -1;
    }
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        diag_error("--metrics-file %s: exists and is not a regular file%s; refusing to replace it",
                   path, S_ISLNK(st.st_mode) ? " (a symlink)" : "");
        return -1;
    }
    if (strlen(path) > 4000) {
        diag_error("--metrics-file %s: path too long", path);
        return -1;
    }
    /* Every write makes a temporary file beside PATH: a directory that is
     * missing (or not ours to write) would fail them all, silently but for
     * one warning, so it is refused now. */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    int e = 0;
    if (stat(dir, &st) != 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0)
        e = errno;
    if (e) {
        diag_error("--metrics-file %s: cannot write in its directory %s: %s", path, dir, strerror(e));
        return -1;
    }
    return 0;
}

/* Whether the latest write failed: set on the hub thread, read once it
 * has been joined (the recording's exit status). */
static int last_failed;

int metrics_file_last_failed(void)
{
    return __atomic_load_n(&last_failed, __ATOMIC_RELAXED);
}

static int write_file(const char *path, const char *text, size_t len);

int metrics_file_write(const char *path, const char *text, size_t len)
{
    int rc = write_file(path, text, len);
    __atomic_store_n(&last_failed, rc != 0, __ATOMIC_RELAXED);
    return rc;
}

static int write_file(const char *path, const char *text, size_t len)
{
    char tmp[4096 + 64];
    const char *slash = strrchr(path, '/');
    int dlen = slash ? (int)(slash - path + 1) : 0;
    snprintf(tmp, sizeof tmp, "%.*s.%s.tmp.%ld", dlen, path, slash ? slash + 1 : path,
             (long)getpid());
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        errno = EEXIST;
        return -1;
    }
    unlink(tmp);                          /* a leftover of ours (same pid) */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    int err = done == len ? 0 : (errno ? errno : EIO);
    if (!err && fchmod(fd, 0644) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err) {
        unlink(tmp);
        errno = err;
        return -1;
    }
    return 0;
}
