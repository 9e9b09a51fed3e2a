/* csv_writer.c — CSV formatting and crash-safe appends; see csv_writer.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_writer.h"
#include "diag.h"

int csv_cell_needs_quotes(const char *cell)
{
    size_t n = strlen(cell);
    if (n == 0)
        return 0;
    if (cell[0] == ' ' || cell[0] == '\t' || cell[n - 1] == ' ' || cell[n - 1] == '\t')
        return 1;
    return strpbrk(cell, ",\"\r\n") != NULL;
}

size_t csv_format_row(char *buf, size_t cap, const char *const *cells, int ncells)
{
    size_t len = 0;
    for (int i = 0; i < ncells; i++) {
        if (i > 0) {
            if (len + 1 >= cap)
                return 0;
            buf[len++] = ',';
        }
        const char *c = cells[i];
        if (!c)
            continue;
        int quote = csv_cell_needs_quotes(c);
        if (quote) {
            if (len + 1 >= cap)
                return 0;
            buf[len++] = '"';
        }
        for (; *c; c++) {
            if (len + 2 >= cap)
                return 0;
            if (*c == '"')
                buf[len++] = '"';
            buf[len++] = *c;
        }
        if (quote) {
            if (len + 1 >= cap)
                return 0;
            buf[len++] = '"';
        }
    }
    if (len + 1 >= cap)
        return 0;
    buf[len++] = '\n';
    buf[len] = '\0';
    return len;
}

/* Reads the first line of an existing trace (without its newline) into
 * line. Returns 0, or -1 when the file has no complete first line. */
static int read_first_line(int fd, char *line, size_t cap)
{
    size_t got = 0;
    while (got + 1 < cap) {
        ssize_t n = pread(fd, line + got, cap - 1 - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        line[got] = '\0';
        char *nl = memchr(line, '\n', got);
        if (nl) {
            *nl = '\0';
            if (nl > line && nl[-1] == '\r')
                nl[-1] = '\0';
            return 0;
        }
    }
    return -1;
}

/* Writes all of buf; on a short write takes the partial row back out of
 * the file so that it still ends on a whole row. */
static int write_whole(struct csv_out *o, const char *buf, size_t len)
{
    size_t done = 0;
    for (;;) {
        ssize_t n = write(o->fd, buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0) {
            done += (size_t)n;
            if (done == len)
                return 0;
            continue;          /* short write: the next one says why */
        }
        int err = n < 0 ? errno : ENOSPC;
        struct stat st;
        if (done > 0 && fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode) &&
            st.st_size >= (off_t)done)
            if (ftruncate(o->fd, st.st_size - (off_t)done) != 0) { /* keep err */ }
        errno = err;
        return -1;
    }
}

int csv_out_open(struct csv_out *o, const char *path, const char *header)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    pthread_mutex_init(&o->lock, NULL);
    snprintf(o->path, sizeof o->path, "%s", path);

    /* O_NONBLOCK only for the open itself: opening a FIFO with no reader
     * would otherwise block here before the check below can refuse it. */
    const int flags = O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
    int fd = open(path, O_RDWR | flags, 0644);
    if (fd < 0 && (errno == EACCES || errno == EISDIR))
        fd = open(path, O_WRONLY | flags, 0644);
    if (fd < 0) {
        if (errno == ELOOP)
            diag_error("%s: is a symbolic link; refusing to follow it (give the real path)", path);
        else
            diag_error("%s: cannot open for writing: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        diag_error("%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    /* A FIFO or socket at the trace's path (planted in /tmp, or a typo)
     * would block the recorder in write(2) for good once its buffer fills,
     * deaf to SIGTERM, and hand the trace to whoever reads it. */
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
        diag_error("%s: is a FIFO or socket, not a file; refusing to write the trace there", path);
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    o->fd = fd;
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        char line[CSV_ROW_MAX];
        size_t hlen = strlen(header);
        if (read_first_line(fd, line, sizeof line) != 0) {
            diag_error("%s: exists but its first line is not a trace header; "
                       "refusing to append (use another --out)", path);
            csv_out_close(o);
            return -1;
        }
        if (strlen(line) + 1 != hlen || strncmp(line, header, hlen - 1) != 0) {
            diag_error("%s: exists with a different header (recorded with other columns, "
                       "e.g. other RAPL domains); refusing to append (use another --out)", path);
            csv_out_close(o);
            return -1;
        }
        return 0;
    }
    if (write_whole(o, header, strlen(header)) != 0) {
        diag_error("%s: cannot write header: %s", path, strerror(errno));
        csv_out_close(o);
        return -1;
    }
    o->wrote_header = 1;
    return 0;
}

int csv_out_write(struct csv_out *o, const char *row, size_t len)
{
    int rc = -1;
    pthread_mutex_lock(&o->lock);
    if (!o->failed && o->fd >= 0) {
        if (write_whole(o, row, len) == 0) {
            o->rows++;
            rc = 0;
        } else {
            o->failed = 1;
            diag_error("%s: write failed: %s; recording stopped (%lld rows written)",
                       o->path, strerror(errno), o->rows);
        }
    }
    pthread_mutex_unlock(&o->lock);
    return rc;
}

int csv_out_write_cells(struct csv_out *o, const char *const *cells, int ncells)
{
    char buf[CSV_ROW_MAX];
    size_t len = csv_format_row(buf, sizeof buf, cells, ncells);
    if (len == 0) {
        diag_warn("%s: row longer than %d bytes not written", o->path, CSV_ROW_MAX);
        return -1;
    }
    return csv_out_write(o, buf, len);
}

int csv_out_failed(struct csv_out *o)
{
    pthread_mutex_lock(&o->lock);
    int f = o->failed;
    pthread_mutex_unlock(&o->lock);
    return f;
}

long long csv_out_rows(struct csv_out *o)
{
    pthread_mutex_lock(&o->lock);
    long long n = o->rows;
    pthread_mutex_unlock(&o->lock);
    return n;
}

void csv_out_close(struct csv_out *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
}
