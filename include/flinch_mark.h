/*
 * flinch_mark.h — drop MARKs into a running `flinch record` from C or C++.
 * Header-only, no allocation, no dependencies beyond POSIX.
 *
 *     #include "flinch_mark.h"
 *     flinch_mark("infer_start");                 // stamped now
 *     ...
 *     flinch_mark_at("infer_end", t_mono_ns);     // stamped by you
 *     flinch_mark_to("/run/x.fifo", "l", t);      // explicit FIFO path
 *
 * Each call writes one line "\nLABEL<TAB>T_MONO_NS\n" to the recorder's FIFO
 * ($FLINCH_MARKS, else /tmp/flinch_marks) with a single write() of at most
 * 281 bytes (< PIPE_BUF), so marks from many threads and processes never
 * interleave. The leading newline ends any fragment a dying writer left in
 * the pipe, so that fragment cannot swallow this mark (the recorder ignores
 * the empty line it makes otherwise). T_MONO_NS is CLOCK_MONOTONIC in ns,
 * the clock of the trace's t_mono_ns column, so the mark lands at the
 * moment you stamped it however late the recorder reads it.
 *
 * Returns 0, or -1 with errno:
 *   ENXIO   no recorder has the FIFO open (the call never blocks on open)
 *   ENOENT  no FIFO at that path
 *   ENOTSUP the path exists but is not a FIFO (nothing is written to it)
 *   EINVAL  label empty, over 256 bytes, or with a control character
 *           (bytes < 0x20 or 0x7f), or t_mono_ns <= 0
 *   EPIPE   the recorder closed the FIFO before the write
 *   EAGAIN  the FIFO's buffer is full: the recorder holds it open but has
 *           stopped reading (SIGSTOP, a hung disk); the mark is not written
 * A vanished recorder never kills the caller with SIGPIPE: the signal is
 * blocked around the write and a SIGPIPE raised by that write is consumed.
 *
 * Never waits: the open and the write are both non-blocking.
 *
 * Build notes: needs POSIX.1-2008 declarations. gcc/clang's default
 * -std=gnu11 and g++ give them; under -std=c99/-std=c11 either include this
 * header before any system header or pass -D_POSIX_C_SOURCE=200809L. With
 * glibc older than 2.34 link with -pthread (pthread_sigmask).
 */
#ifndef FLINCH_MARK_H
#define FLINCH_MARK_H

#if !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE) \
    && !defined(_DEFAULT_SOURCE) && !defined(_BSD_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLINCH_MARK_DEFAULT_FIFO "/tmp/flinch_marks"
#define FLINCH_MARK_LABEL_MAX 256

/* The FIFO marks go to: $FLINCH_MARKS when set and non-empty, else the default. */
static inline const char *flinch_mark_fifo_path(void)
{
    const char *path = getenv("FLINCH_MARKS");
    return (path && path[0]) ? path : FLINCH_MARK_DEFAULT_FIFO;
}

/*
 * Writes buf[0..len) to fd in one write() with SIGPIPE blocked for this
 * thread. If the write raised SIGPIPE (reader gone: EPIPE) and no SIGPIPE
 * was pending before, that one is taken off the pending set with a zero
 * timeout sigtimedwait, so unblocking does not deliver it.
 */
static inline int flinch_mark_write_nosigpipe(int fd, const char *buf, size_t len)
{
    sigset_t pipe_set, old_set, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    if (pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set) != 0)
        return -1;
    sigemptyset(&pending);
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE) == 1;

    ssize_t n;
    do
        n = write(fd, buf, len);
    while (n < 0 && errno == EINTR);
    int saved_errno = errno;

    if (n < 0 && saved_errno == EPIPE && !was_pending) {
        struct timespec zero = { 0, 0 };
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    if (n < 0) {
        errno = saved_errno;
        return -1;
    }
    if ((size_t)n != len) {         /* cannot happen below PIPE_BUF; be honest */
        errno = EIO;
        return -1;
    }
    return 0;
}

/* Writes one mark to the FIFO at fifo_path (flinch_mark_at without the
 * environment lookup; `flinch mark --fifo` uses it). */
static inline int flinch_mark_to(const char *fifo_path, const char *label, long long t_mono_ns)
{
    /* newline + label + tab + 19 digits + newline */
    char line[FLINCH_MARK_LABEL_MAX + 24];
    size_t len = 1;

    if (!fifo_path || !label || t_mono_ns <= 0) {
        errno = EINVAL;
        return -1;
    }
    int only_spaces = 1;
    line[0] = '\n';
    for (; label[len - 1]; len++) {
        unsigned char c = (unsigned char)label[len - 1];
        if (len > FLINCH_MARK_LABEL_MAX || c < 0x20 || c == 0x7f) {
            errno = EINVAL;
            return -1;
        }
        if (c != ' ')
            only_spaces = 0;
        line[len] = (char)c;
    }
    if (len == 1 || only_spaces) {
        errno = EINVAL;
        return -1;
    }
    line[len++] = '\t';
    char digits[20];
    int ndigits = 0;
    for (unsigned long long v = (unsigned long long)t_mono_ns; v; v /= 10)
        digits[ndigits++] = (char)('0' + v % 10);
    while (ndigits)
        line[len++] = digits[--ndigits];
    line[len++] = '\n';

    /* stat first so a regular file or a device is never even opened */
    struct stat st;
    if (stat(fifo_path, &st) != 0)
        return -1;
    if (!S_ISFIFO(st.st_mode)) {
        errno = ENOTSUP;
        return -1;
    }
    int fd = open(fifo_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;                  /* ENXIO: nobody reading */
    int rc = -1;
    if (fstat(fd, &st) != 0)
        goto out;
    if (!S_ISFIFO(st.st_mode)) {    /* replaced between stat and open */
        errno = ENOTSUP;
        goto out;
    }
    /* still O_NONBLOCK: a full pipe is EAGAIN, never a wait (a write of
     * at most PIPE_BUF bytes is all or nothing either way) */
    rc = flinch_mark_write_nosigpipe(fd, line, len);
out:
    {
        int saved_errno = errno;
        close(fd);
        errno = saved_errno;
    }
    return rc;
}

/* Marks LABEL at t_mono_ns (CLOCK_MONOTONIC ns) in $FLINCH_MARKS' FIFO. */
static inline int flinch_mark_at(const char *label, long long t_mono_ns)
{
    return flinch_mark_to(flinch_mark_fifo_path(), label, t_mono_ns);
}

/* Marks LABEL at CLOCK_MONOTONIC now. */
static inline int flinch_mark(const char *label)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return -1;
    return flinch_mark_at(label, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

#ifdef __cplusplus
}
#endif

#endif
