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
 * The default path lies in a directory everybody may write to, so another
 * user can create it first: a FIFO of theirs collects the marks, a symbolic
 * link there sends them wherever its owner likes. At the default path (no
 * $FLINCH_MARKS) a symbolic link is therefore never followed and a FIFO is
 * written only when it belongs to this user (effective uid) or root. A
 * path given explicitly ($FLINCH_MARKS, flinch_mark_to) is the caller's
 * choice and is followed as given.
 *
 * Returns 0, or -1 with errno:
 *   ENXIO   no recorder has the FIFO open (the call never blocks on open)
 *   ENOENT  no FIFO at that path
 *   ENOTSUP the path exists but is not a FIFO (nothing is written to it)
 *   ELOOP   the default path is a symbolic link (refused, not followed)
 *   EPERM   the default path is a FIFO owned by another user, not root
 *           (refused: nothing is written to it)
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

/* A test may define it first (to an expression naming a path it made), to
 * exercise the default path's rules without touching /tmp/flinch_marks. */
#ifndef FLINCH_MARK_DEFAULT_FIFO
#define FLINCH_MARK_DEFAULT_FIFO "/tmp/flinch_marks"
#endif
#define FLINCH_MARK_LABEL_MAX 256

/* The FIFO marks go to: $FLINCH_MARKS when set and non-empty, else the default. */
static inline const char *flinch_mark_fifo_path(void)
{
    const char *path = getenv("FLINCH_MARKS");
    return (path && path[0]) ? path : FLINCH_MARK_DEFAULT_FIFO;
}

/* 1 when flinch_mark_fifo_path() is the default path (no $FLINCH_MARKS),
 * which gets the default path's rules (above). */
static inline int flinch_mark_fifo_is_default(void)
{
    const char *path = getenv("FLINCH_MARKS");
    return !(path && path[0]);
}

/* 0 when st is a FIFO the default path's rules allow writing to, else -1
 * with errno (ELOOP, ENOTSUP, EPERM); default_rules 0: any FIFO. */
static inline int flinch_mark_fifo_ok(const struct stat *st, int default_rules)
{
    if (default_rules && S_ISLNK(st->st_mode)) {
        errno = ELOOP;
        return -1;
    }
    if (!S_ISFIFO(st->st_mode)) {
        errno = ENOTSUP;
        return -1;
    }
    if (default_rules && st->st_uid != geteuid() && st->st_uid != 0) {
        errno = EPERM;
        return -1;
    }
    return 0;
}

/*
 * Opens the FIFO at fifo_path to write, non-blocking (ENXIO at once when
 * nobody reads); the descriptor (close-on-exec), or -1 with errno. The path
 * is looked at first (a regular file or a device is never even opened) and
 * the open descriptor again (the path may have been replaced in between).
 * default_rules: the default path's rules, checked on both; O_NOFOLLOW
 * makes a link swapped in between fail the open with ELOOP.
 */
static inline int flinch_mark_open_fifo(const char *fifo_path, int default_rules)
{
    struct stat st;
    if ((default_rules ? lstat(fifo_path, &st) : stat(fifo_path, &st)) != 0)
        return -1;
    if (flinch_mark_fifo_ok(&st, default_rules) != 0)
        return -1;
    int fd = open(fifo_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | (default_rules ? O_NOFOLLOW : 0));
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || flinch_mark_fifo_ok(&st, default_rules) != 0) {
        int saved_errno = errno;
        close(fd);
        errno = saved_errno;
        return -1;
    }
    return fd;
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

/* Writes one mark to the FIFO at fifo_path, with the default path's rules
 * when default_rules is set (`flinch mark` decides which). */
static inline int flinch_mark_send(const char *fifo_path, int default_rules, const char *label,
                                   long long t_mono_ns)
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

    int fd = flinch_mark_open_fifo(fifo_path, default_rules);
    if (fd < 0)
        return -1;                  /* ENXIO: nobody reading */
    /* still O_NONBLOCK: a full pipe is EAGAIN, never a wait (a write of
     * at most PIPE_BUF bytes is all or nothing either way) */
    int rc = flinch_mark_write_nosigpipe(fd, line, len);
    int saved_errno = errno;
    close(fd);
    errno = saved_errno;
    return rc;
}

/* Writes one mark to the FIFO at fifo_path, an explicit path: followed as
 * given (flinch_mark_at without the environment lookup). */
static inline int flinch_mark_to(const char *fifo_path, const char *label, long long t_mono_ns)
{
    return flinch_mark_send(fifo_path, 0, label, t_mono_ns);
}

/* Marks LABEL at t_mono_ns (CLOCK_MONOTONIC ns) in $FLINCH_MARKS' FIFO,
 * else the default path's (with its rules). */
static inline int flinch_mark_at(const char *label, long long t_mono_ns)
{
    return flinch_mark_send(flinch_mark_fifo_path(), flinch_mark_fifo_is_default(), label,
                            t_mono_ns);
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
