/* csv_writer.c — CSV formatting and crash-safe appends; see csv_writer.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_writer.h"
#include "diag.h"
#include "trace_append.h"

/* The bytes that make a cell need quotes wherever they are. */
static const unsigned char quote_anywhere[256] = { [','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1 };

/* One pass over CELL: its length, and whether it needs quotes (a byte of
 * quote_anywhere, or a space or tab at either end). */
static size_t scan_cell(const char *cell, int *needs_quotes)
{
    unsigned special = 0;
    size_t n = 0;
    for (; cell[n]; n++)
        special |= quote_anywhere[(unsigned char)cell[n]];
    *needs_quotes = n > 0 && (special || cell[0] == ' ' || cell[0] == '\t' ||
                              cell[n - 1] == ' ' || cell[n - 1] == '\t');
    return n;
}

int csv_cell_needs_quotes(const char *cell)
{
    int q;
    scan_cell(cell, &q);
    return q;
}

size_t csv_format_row(char *buf, size_t cap, const char *const *cells, int ncells)
{
    return csv_format_row_quoting(buf, cap, cells, ncells, -1);
}

/* A cell without quotes is copied whole; one with quotes byte by byte,
 * doubling its '"'. The room checks are the same either way: every byte
 * written needs one more free after it for the row's newline. */
size_t csv_format_row_quoting(char *buf, size_t cap, const char *const *cells, int ncells,
                              int always_quote)
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
        int quote;
        size_t n = scan_cell(c, &quote);
        if (i == always_quote && n > 0)
            quote = 1;
        if (!quote) {
            if (n > 0 && len + n + 1 >= cap)
                return 0;
            memcpy(buf + len, c, n);
            len += n;
            continue;
        }
        if (len + 1 >= cap)
            return 0;
        buf[len++] = '"';
        for (; *c; c++) {
            if (len + 2 >= cap)
                return 0;
            if (*c == '"')
                buf[len++] = '"';
            buf[len++] = *c;
        }
        if (len + 1 >= cap)
            return 0;
        buf[len++] = '"';
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

/* Opens an existing path without creating it, or creates it exclusively,
 * so that we know whether the file is ours to remove on a failed start. */
static int open_or_create(struct csv_out *o, const char *path)
{
    /* O_NONBLOCK only for the open itself: opening a FIFO with no reader
     * would otherwise block here before the check below can refuse it. */
    const int flags = O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
    for (int tries = 0; tries < 4; tries++) {
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | flags, 0644);
        if (fd >= 0) {
            o->created = 1;
            return fd;
        }
        if (errno != EEXIST)
            return -1;
        fd = open(path, O_RDWR | flags);
        if (fd < 0 && (errno == EACCES || errno == EISDIR))
            fd = open(path, O_WRONLY | flags);
        if (fd >= 0 || errno != ENOENT)
            return fd;
        /* removed between the two opens: try again */
    }
    return -1;
}

/* An existing file that another user owns, or that anyone may write, may
 * have been planted (a 0666 file in /tmp): whoever planted it reads the
 * trace and can add MARK rows of their own. Group-writable is normal
 * under umask 002 and allowed. */
static int check_owner(const struct csv_out *o, const struct stat *st, int force_append)
{
    if (force_append)
        return 0;
    if (st->st_uid != geteuid()) {
        diag_error("%s: owned by uid %u, not by us; refusing to append to it (whoever owns it "
                   "can read the trace and add rows); use another --out, or --force-append",
                   o->path, (unsigned)st->st_uid);
        return -1;
    }
    if (st->st_mode & S_IWOTH) {
        diag_error("%s: writable by others (mode %04o); refusing to append to it (anyone can "
                   "add rows); use another --out, chmod o-w it, or --force-append",
                   o->path, (unsigned)(st->st_mode & 07777));
        return -1;
    }
    return 0;
}

/* Index of column `name` in a header line, or -1. */
static int header_index(const char *header, const char *name)
{
    size_t n = strlen(name);
    int col = 0;
    for (const char *p = header;; col++) {
        size_t len = strcspn(p, ",\n");
        if (len == n && memcmp(p, name, n) == 0)
            return col;
        if (p[len] != ',')
            return -1;
        p += len + 1;
    }
}

/* The end of an existing trace, before anything is appended: a NUL byte
 * (a crash or power loss left blocks unwritten) is refused, since the
 * readers would stop there anyway; a last row without its newline (kill -9
 * mid-row on an old version, a disk that filled) is cut away, so the new
 * rows do not continue it. Notes what is there for the recorder's
 * "appending to" line. */
static int check_tail(struct csv_out *o, const char *header, off_t size)
{
    struct trace_scan sc;
    if (trace_scan_file(o->fd, size, header_index(header, "arrival_mono_ns"), &sc) != 0) {
        diag_error("%s: cannot read it before appending: %s", o->path, strerror(errno));
        csv_out_abandon(o);
        return -1;
    }
    if (sc.nul_at >= 0) {
        diag_error("%s: holds NUL bytes from byte %lld (line %lld), left by a crash or power "
                   "loss; refusing to append: record into a new file (if the damage is only "
                   "at the end, 'truncate -s %lld %s' cuts it off)", o->path,
                   (long long)sc.nul_at, sc.nul_line, (long long)sc.nul_at, o->path);
        csv_out_abandon(o);
        return -1;
    }
    if (sc.whole_end < size) {
        if (ftruncate(o->fd, sc.whole_end) != 0) {
            diag_error("%s: its last row is cut short and cannot be removed: %s; refusing to "
                       "append", o->path, strerror(errno));
            csv_out_abandon(o);
            return -1;
        }
        diag_warn("%s: its last row was cut short (%lld bytes without a newline: a crash or a "
                  "full disk); removed them before appending", o->path,
                  (long long)(size - sc.whole_end));
    }
    o->start_size = sc.whole_end;
    o->prior_rows = sc.rows;
    o->prior_recordings = sc.recordings;
    o->prior_last_mono_ns = sc.last_mono_ns;
    return 0;
}

int csv_out_open(struct csv_out *o, const char *path, const char *header, int force_append)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->prior_last_mono_ns = -1;
    pthread_mutex_init(&o->lock, NULL);
    snprintf(o->path, sizeof o->path, "%s", path);

    int fd = open_or_create(o, path);
    if (fd < 0) {
        if (errno == ELOOP)
            diag_error("%s: is a symbolic link; refusing to follow it (give the real path)", path);
        else
            diag_error("%s: cannot open for writing: %s", path, strerror(errno));
        return -1;
    }
    o->fd = fd;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        diag_error("%s: %s", path, strerror(errno));
        csv_out_abandon(o);
        return -1;
    }
    o->dev = st.st_dev;
    o->ino = st.st_ino;
    o->start_size = st.st_size;
    /* A FIFO or socket at the trace's path (planted in /tmp, or a typo)
     * would block the recorder in write(2) for good once its buffer fills,
     * deaf to SIGTERM, and hand the trace to whoever reads it. */
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
        diag_error("%s: is a FIFO or socket, not a file; refusing to write the trace there", path);
        csv_out_abandon(o);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (!o->created && S_ISREG(st.st_mode) && check_owner(o, &st, force_append) != 0) {
        csv_out_abandon(o);
        return -1;
    }
    /* One recorder per file, for the whole recording: two writing the same
     * trace would interleave their recordings into one unreadable file. */
    if (S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            diag_error("%s: another flinch record is writing it (locked); refusing to append "
                       "(use another --out)", path);
        else
            diag_error("%s: cannot lock: %s", path, strerror(errno));
        csv_out_abandon(o);
        return -1;
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        char line[CSV_ROW_MAX];
        size_t hlen = strlen(header);
        if (read_first_line(fd, line, sizeof line) != 0) {
            diag_error("%s: exists but its first line is not a trace header; "
                       "refusing to append (use another --out)", path);
            csv_out_abandon(o);
            return -1;
        }
        if (strlen(line) + 1 != hlen || strncmp(line, header, hlen - 1) != 0) {
            char want[CSV_ROW_MAX];
            snprintf(want, sizeof want, "%.*s", (int)(hlen - 1), header);
            diag_error("%s: exists with a different header (%s); refusing to append: record "
                       "into a new file (another --out)", path, trace_header_mismatch(line, want));
            csv_out_abandon(o);
            return -1;
        }
        return check_tail(o, header, st.st_size);
    }
    if (write_whole(o, header, strlen(header)) != 0) {
        diag_error("%s: cannot write header: %s", path, strerror(errno));
        csv_out_abandon(o);
        return -1;
    }
    o->wrote_header = 1;
    return 0;
}

void csv_out_abandon(struct csv_out *o)
{
    if (o->fd < 0)
        return;
    struct stat st;
    if (o->created) {
        /* only the file we made: not whatever may have been renamed there */
        if (lstat(o->path, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino)
            unlink(o->path);
    } else if (fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > o->start_size) {
        if (ftruncate(o->fd, o->start_size) != 0) { /* nothing more we can do */ }
    }
    csv_out_close(o);
}

int csv_out_write(struct csv_out *o, const char *row, size_t len)
{
    int rc = -1;
    pthread_mutex_lock(&o->lock);
    if (!o->failed && o->fd >= 0) {
        if (write_whole(o, row, len) == 0) {
            o->rows++;
            rc = 0;
            if (o->tee)
                o->tee(o->tee_arg, row, len);
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
    return csv_out_write_cells_quoting(o, cells, ncells, -1);
}

int csv_out_write_cells_quoting(struct csv_out *o, const char *const *cells, int ncells,
                                int always_quote)
{
    char buf[CSV_ROW_MAX];
    size_t len = csv_format_row_quoting(buf, sizeof buf, cells, ncells, always_quote);
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
