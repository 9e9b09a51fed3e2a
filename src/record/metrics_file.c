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
    return 0;
}

int metrics_file_write(const char *path, const char *text, size_t len)
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
