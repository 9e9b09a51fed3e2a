/*
 * threads_out.c — see threads_out.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "threads_file.h"
#include "threads_out.h"

int threads_out_open(const char *path, int *empty)
{
    int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0) {
        diag_warn("%s: cannot open for writing: %s; no thread states recorded", path,
                  strerror(errno));
        return -1;
    }
    struct stat st;
    char head[sizeof THREADS_FILE_MAGIC];
    size_t mlen = strlen(THREADS_FILE_MAGIC);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_warn("%s: not a regular file; no thread states recorded", path);
        close(fd);
        return -1;
    }
    if (st.st_size > 0 && (pread(fd, head, mlen, 0) != (ssize_t)mlen ||
                           memcmp(head, THREADS_FILE_MAGIC, mlen) != 0)) {
        diag_warn("%s: exists and is not a flinch threads file; left alone, no thread states "
                  "recorded", path);
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    *empty = st.st_size == 0;
    return fd;
}
