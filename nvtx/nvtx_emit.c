/* nvtx_emit.c — mark lines, the FIFO descriptor and drop counts of the NVTX bridge; see nvtx_emit.h. */
#include "flinch_mark.h"        /* first: it sets the POSIX level it needs */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "nvtx_emit.h"
#include "nvtx_writer.h"

/* The drop reports' label: "nvtx pid=..."; libflinch_cuda.so, which
 * reuses this channel, builds it with NVTX_EMIT_SOURCE "cuda". */
#ifndef NVTX_EMIT_SOURCE
#define NVTX_EMIT_SOURCE "nvtx"
#endif

#define RETRY_NS 200000000LL            /* reconnect attempts: at most every 200 ms */
#define REPORT_NS 1000000000LL          /* drop reports: at most once a second */

static char fifo_path[4096];
static int fifo_default;                /* no $FLINCH_MARKS: the default path's rules */
static atomic_int fifo_fd = -1;         /* never closed once set: see reconnect() */
static dev_t fifo_dev;                  /* what fifo_fd was opened on */
static ino_t fifo_ino;
static atomic_int fifo_broken;          /* the last write found no reader */
static atomic_llong next_try_ns;
static pthread_mutex_t connect_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_llong drops[NVTX_DROP_COUNT];
static atomic_llong last_report_ns;
static long long cached_pid;
static _Thread_local long long cached_tid;
static _Thread_local int in_writer;     /* this is the writer thread */

static const char *const drop_reason[NVTX_DROP_COUNT] = { "filter", "rate", "depth", "undelivered",
                                                              "queue" };

static int reconnect(int64_t now);

/* Connects now, in the first thread that calls NVTX (the others wait in
 * NVTX's own init meanwhile), so threads starting together do not race
 * for the first connect and lose marks to it. */
void nvtx_emit_init(void)
{
    snprintf(fifo_path, sizeof fifo_path, "%s", flinch_mark_fifo_path());
    fifo_default = flinch_mark_fifo_is_default();
    cached_pid = getpid();
    int saved_errno = errno;
    reconnect(nvtx_now_ns());
    nvtx_writer_init();
    errno = saved_errno;
}

void nvtx_emit_after_fork(void)
{
    cached_pid = getpid();
    cached_tid = 0;
    pthread_mutex_init(&connect_lock, NULL);    /* another thread may have held it */
    for (int i = 0; i < NVTX_DROP_COUNT; i++)
        atomic_store(&drops[i], 0);             /* the parent reports its own */
    nvtx_writer_after_fork();
}

void nvtx_emit_in_writer_thread(void) { in_writer = 1; }

int64_t nvtx_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

long long nvtx_tid(void)
{
    if (!cached_tid)
        cached_tid = (long long)syscall(SYS_gettid);
    return cached_tid;
}

long long nvtx_pid(void) { return cached_pid; }

/* Length of the longest prefix of s[0..len) that ends on a UTF-8 character
 * boundary and is at most max bytes. */
static size_t utf8_cut(const unsigned char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && (s[n] & 0xC0) == 0x80)      /* s[n] continues a character: back off */
        n--;
    return n;
}

static void finish_label(char *dst, size_t n, size_t max, int truncated, int space_ok)
{
    if (truncated) {
        n = utf8_cut((const unsigned char *)dst, n, max - 3);
        memcpy(dst + n, "...", 3);
        n += 3;
    }
    dst[n] = '\0';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)dst[i];
        if (c < 0x20 || c == 0x7f || (!space_ok && c == ' '))
            dst[i] = '_';
    }
    size_t i = 0;
    while (i < n && dst[i] == ' ')
        i++;
    if (i == n)
        strcpy(dst, "(unnamed)");
}

static void copy_name(char *dst, const char *src, size_t max, int space_ok)
{
    size_t n = 0;
    if (src)
        while (n <= max && src[n])
            n++;
    memcpy(dst, src ? src : "", n > max ? max + 1 : n);
    finish_label(dst, n > max ? max + 1 : n, max, n > max, space_ok);
}

void nvtx_label(char *dst, const char *src) { copy_name(dst, src, MARK_LABEL_MAX, 1); }

void nvtx_domain_name(char *dst, const char *src) { copy_name(dst, src, MARK_DOMAIN_MAX, 0); }

/* UTF-8 of one code point (invalid ones as U+FFFD) into out; its length. */
static size_t utf8_put(unsigned long c, char *out)
{
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        c = 0xFFFD;
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

void nvtx_label_w(char *dst, const wchar_t *src)
{
    size_t n = 0;
    int truncated = 0;
    for (size_t i = 0; src && src[i]; i++) {
        char enc[4];
        size_t k = utf8_put((unsigned long)src[i], enc);
        if (n + k > MARK_LABEL_MAX) {
            truncated = 1;
            break;
        }
        memcpy(dst + n, enc, k);
        n += k;
    }
    finish_label(dst, n, MARK_LABEL_MAX, truncated, 1);
}

/*
 * Opens the FIFO as flinch_mark.h does (a regular file or a device at the
 * path is never even opened; at the default path no symbolic link is
 * followed and another user's FIFO is refused, each silently: the marks
 * count as undelivered) and makes fifo_fd refer to it. Once fifo_fd holds a
 * number it is never closed: another thread may be about to write to it,
 * and a closed number can be reused by the application for one of its own
 * files. A reconnect therefore dup2()s the new FIFO onto the same number,
 * which swaps the open file atomically — unless the number no longer
 * refers to the FIFO we opened (the application closed it and reused the
 * number: it is then left alone and forgotten). Only one thread tries at
 * a time (trylock: the others count their mark as undelivered instead of
 * waiting).
 */
static int reconnect(int64_t now)
{
    if (now < atomic_load(&next_try_ns) || pthread_mutex_trylock(&connect_lock) != 0)
        return -1;
    int rc = -1;
    struct stat st;
    atomic_store(&next_try_ns, now + RETRY_NS);
    int fd = flinch_mark_open_fifo(fifo_path, fifo_default);
    if (fd < 0)
        goto out;                       /* ENXIO: nobody reading */
    if (fstat(fd, &st) != 0) {
        close(fd);
        goto out;
    }
    int old = atomic_load(&fifo_fd);
    struct stat old_st;
    if (old >= 0 && fstat(old, &old_st) == 0 && old_st.st_dev == fifo_dev &&
        old_st.st_ino == fifo_ino && S_ISFIFO(old_st.st_mode)) {
        dup2(fd, old);
        close(fd);
    } else {
        atomic_store(&fifo_fd, fd);
    }
    fifo_dev = st.st_dev;
    fifo_ino = st.st_ino;
    atomic_store(&fifo_broken, 0);
    rc = 0;
out:
    pthread_mutex_unlock(&connect_lock);
    return rc;
}

/* The writer thread's write: every signal is blocked there, so a write
 * into a FIFO nobody reads fails with EPIPE and its SIGPIPE waits on this
 * thread only; it is consumed so it never piles up. */
static int write_unguarded(int fd, const char *buf, size_t len)
{
    ssize_t n;
    do
        n = write(fd, buf, len);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EPIPE) {
        sigset_t pipe_set;
        sigemptyset(&pipe_set);
        sigaddset(&pipe_set, SIGPIPE);
        struct timespec zero = { 0, 0 };
        sigtimedwait(&pipe_set, NULL, &zero);
        errno = EPIPE;
    }
    if (n >= 0 && (size_t)n != len)
        errno = EIO;                    /* cannot happen at <= PIPE_BUF */
    return n == (ssize_t)len ? 0 : -1;
}

/* One write; SIGPIPE cannot kill the application: in the writer thread,
 * where it is blocked, a plain write; where it is ignored (as in every
 * Python process) too, else flinch_mark.h's guarded one. */
static int write_line(int fd, const char *line, size_t len)
{
    if (in_writer)
        return write_unguarded(fd, line, len);
    struct sigaction sa;
    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) {
        ssize_t n;
        do
            n = write(fd, line, len);
        while (n < 0 && errno == EINTR);
        return n == (ssize_t)len ? 0 : -1;
    }
    return flinch_mark_write_nosigpipe(fd, line, len);
}

/* The writer thread checks, once per batch, that fifo_fd still is the
 * FIFO it opened: an application may close descriptors it did not open
 * and reuse the number for a file of its own, which must never get our
 * lines. (Without the writer thread that check would cost every mark a
 * system call; it is not made.) */
static int still_ours(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_dev == fifo_dev && st.st_ino == fifo_ino && S_ISFIFO(st.st_mode))
        return 1;
    atomic_store(&fifo_fd, -1);         /* forget the number, never close it */
    return 0;
}

/* 0, or -1 with errno: EAGAIN when the pipe is full. */
static int deliver_errno(const char *line, size_t len, int64_t now)
{
    int fd = atomic_load(&fifo_fd);
    if (fd >= 0 && in_writer && !still_ours(fd))
        fd = -1;
    if (fd < 0 || atomic_load(&fifo_broken)) {
        if (reconnect(now) != 0) {
            errno = ENXIO;
            return -1;
        }
        fd = atomic_load(&fifo_fd);
    }
    int rc = write_line(fd, line, len);
    if (rc != 0 && errno != EAGAIN)
        atomic_store(&fifo_broken, 1);  /* EPIPE: the recorder went away */
    return rc;
}

static int deliver(const char *line, size_t len, int64_t now)
{
    int saved_errno = errno;            /* the application's errno is not ours to change */
    int rc = deliver_errno(line, len, now);
    errno = saved_errno;
    return rc;
}

int nvtx_emit_send(const char *buf, size_t len, int64_t now) { return deliver_errno(buf, len, now); }

static size_t put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return n;
}

static size_t put_u64(char *p, unsigned long long v)
{
    char d[20];
    size_t n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while (v /= 10);
    for (size_t i = 0; i < n; i++)
        p[i] = d[n - 1 - i];
    return n;
}

/* "\nLABEL\tT\tATTRS\n"; attrs_fn fills ATTRS. */
static size_t format_head(char *line, const char *label, int64_t t)
{
    size_t n = 0;
    line[n++] = '\n';
    n += put_str(line + n, label);
    line[n++] = '\t';
    n += put_u64(line + n, (unsigned long long)t);
    line[n++] = '\t';
    return n;
}

static void report_drops(int64_t now)
{
    for (int i = 0; i < NVTX_DROP_COUNT; i++) {
        long long k = atomic_exchange(&drops[i], 0);
        if (k <= 0)
            continue;
        char line[160], label[64];
        snprintf(label, sizeof label, NVTX_EMIT_SOURCE " pid=%lld reason=%s", cached_pid, drop_reason[i]);
        size_t n = format_head(line, label, now);
        n += put_str(line + n, "dropped=");
        n += put_u64(line + n, (unsigned long long)k);
        line[n++] = '\n';
        if (deliver(line, n, now) != 0)
            atomic_fetch_add(&drops[i], k); /* try again next time */
    }
}

static void maybe_report(int64_t now)
{
    long long last = atomic_load(&last_report_ns);
    if (now - last < REPORT_NS)
        return;
    int any = 0;
    for (int i = 0; i < NVTX_DROP_COUNT; i++)
        any |= atomic_load(&drops[i]) != 0;
    if (any && atomic_compare_exchange_strong(&last_report_ns, &last, now))
        report_drops(now);
}

void nvtx_emit_mark(const char *label, int64_t t, enum mark_edge edge, uint64_t n,
                    const char *domain, const struct nvtx_extra *x)
{
    char line[NVTX_LINE_MAX];
    size_t len = format_head(line, label, t);
    if (edge != MARK_EDGE_NONE) {
        len += put_str(line + len, edge == MARK_EDGE_START ? "start=" : "end=");
        len += put_u64(line + len, (unsigned long long)cached_pid);
        line[len++] = '.';
        len += put_u64(line + len, n);
        line[len++] = ' ';
    }
    len += put_str(line + len, "tid=");
    len += put_u64(line + len, (unsigned long long)nvtx_tid());
    if (domain[0]) {
        len += put_str(line + len, " domain=");
        len += put_str(line + len, domain);
    }
    if (x && x->category[0]) {
        len += put_str(line + len, " category=");
        len += put_str(line + len, x->category);
    }
    if (x && x->payload[0]) {
        len += put_str(line + len, " payload=");
        len += put_str(line + len, x->payload);
    }
    line[len++] = '\n';
    switch (nvtx_writer_enqueue(line, len)) {
    case NVTX_QUEUED:
        return;
    case NVTX_QUEUE_FULL:
        atomic_fetch_add(&drops[NVTX_DROP_QUEUE], 1);
        return;
    case NVTX_QUEUE_OFF:
        break;
    }
    if (deliver(line, len, t) != 0) {
        atomic_fetch_add(&drops[NVTX_DROP_UNDELIVERED], 1);
        return;
    }
    maybe_report(t);
}

void nvtx_emit_drop(enum nvtx_drop why)
{
    long long k = atomic_fetch_add(&drops[why], 1) + 1;
    if ((k & 4095) == 0 && !nvtx_writer_running())  /* a stream of drops and no mark */
        maybe_report(nvtx_now_ns());
}

void nvtx_emit_count(enum nvtx_drop why, long long n) { atomic_fetch_add(&drops[why], n); }

void nvtx_emit_report_due(int64_t now) { maybe_report(now); }

void nvtx_emit_flush_drops(void)
{
    report_drops(nvtx_now_ns());
}
