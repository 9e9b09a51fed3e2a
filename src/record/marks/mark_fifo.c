/* mark_fifo.c — marks FIFO creation, checks and reader thread; see mark_fifo.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "json_escape.h"
#include "mark_fifo.h"

/* Opens the FIFO for reading without blocking (there is no writer yet),
 * then our own writer, then makes reads blocking again. O_NOFOLLOW and the
 * dev/ino comparison close the gap between the lstat check and the open;
 * every later check and change is made on the descriptor, never on the
 * path, so a symlink or another file swapped in meanwhile is never touched.
 *
 * The read end is locked (flock): a second recorder on the same FIFO would
 * silently take half the marks, so it is refused instead. The mode is set
 * with fchmod on the descriptor: to exactly --marks-mode on a FIFO we made
 * (mkfifo is subject to the umask), widened to it on an older FIFO of ours
 * that is narrower; an older FIFO that is wider than asked is refused, since
 * fchmod would not revoke a descriptor another user already holds. */
static int open_ends(struct mark_fifo *f, const struct stat *checked)
{
    f->rfd = open(f->path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (f->rfd < 0) {
        diag_error("%s: cannot open marks FIFO: %s", f->path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(f->rfd, &st) != 0 || !S_ISFIFO(st.st_mode) ||
        st.st_dev != checked->st_dev || st.st_ino != checked->st_ino) {
        diag_error("%s: changed while being opened; refusing it", f->path);
        goto fail;
    }
    if (st.st_uid != geteuid()) {
        diag_error("%s: FIFO belongs to uid %u, not to us; refusing it (remove it or pick "
                   "another --marks-fifo)", f->path, (unsigned)st.st_uid);
        goto fail;
    }
    if (flock(f->rfd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            diag_error("%s: another flinch record is reading this FIFO; refusing to share it "
                       "(pick another --marks-fifo)", f->path);
        else
            diag_error("%s: cannot lock the marks FIFO: %s", f->path, strerror(errno));
        goto fail;
    }
    mode_t have = st.st_mode & 07777;
    if (!f->created && (have & ~f->mode)) {
        diag_error("%s: existing FIFO has mode %04o, wider than the %04o asked for (others may "
                   "already hold it open); remove it, or pass --marks-mode %04o",
                   f->path, (unsigned)have, (unsigned)f->mode, (unsigned)have);
        goto fail;
    }
    if (have != f->mode && fchmod(f->rfd, f->mode) != 0) {
        diag_error("%s: cannot set the FIFO's mode to %04o: %s", f->path, (unsigned)f->mode,
                   strerror(errno));
        goto fail;
    }
    f->wfd = open(f->path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (f->wfd < 0) {
        diag_error("%s: cannot open marks FIFO: %s", f->path, strerror(errno));
        goto fail;
    }
    fcntl(f->rfd, F_SETFL, fcntl(f->rfd, F_GETFL) & ~O_NONBLOCK);
    /* Writers never wait (a full pipe is EAGAIN for them), so give a burst
     * of marks room: 1 MiB holds some 30,000 marks. Where the limit is
     * lower the kernel's default (64 KiB) stays. */
    if (fcntl(f->rfd, F_SETPIPE_SZ, MARK_FIFO_PIPE_SIZE) < 0) { /* keep the default */ }
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    return 0;
fail:
    close(f->rfd);
    f->rfd = -1;
    return -1;
}

/* Makes the FIFO (its mode is set on the descriptor, see open_ends). */
static int create_fifo(struct mark_fifo *f)
{
    if (mkfifo(f->path, f->mode & 0777) != 0)
        return -1;
    f->created = 1;
    return 0;
}

/* Removes the FIFO at f->path if it is still the one we made (the same
 * dev/ino as ST): a failed start leaves nothing behind, and never removes
 * what someone put in its place. */
static void remove_ours(struct mark_fifo *f, dev_t dev, ino_t ino)
{
    struct stat now;
    if (f->created && lstat(f->path, &now) == 0 && S_ISFIFO(now.st_mode) && now.st_dev == dev &&
        now.st_ino == ino)
        unlink(f->path);
    f->created = 0;
}

void mark_fifo_remove_created(struct mark_fifo *f)
{
    remove_ours(f, f->dev, f->ino);
}

int mark_fifo_open(struct mark_fifo *f, const char *path, mode_t mode)
{
    memset(f, 0, sizeof *f);
    f->rfd = f->wfd = f->stop_pipe[0] = f->stop_pipe[1] = -1;
    f->mode = mode;
    if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path) {
        diag_error("marks FIFO path too long");
        return -1;
    }
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT || create_fifo(f) != 0) {
            diag_error("%s: cannot create marks FIFO: %s", path, strerror(errno));
            return -1;
        }
        if (lstat(path, &st) != 0) {
            diag_error("%s: %s", path, strerror(errno));
            return -1;
        }
    }
    if (S_ISLNK(st.st_mode)) {
        diag_error("%s: is a symbolic link, not a FIFO; refusing to follow it", path);
        goto fail;
    }
    if (!S_ISFIFO(st.st_mode)) {
        diag_error("%s: exists but is not a FIFO; refusing to use it as the marks FIFO", path);
        goto fail;
    }
    if (open_ends(f, &st) != 0)
        goto fail;
    if (pipe2(f->stop_pipe, O_CLOEXEC) != 0) {
        diag_error("pipe: %s", strerror(errno));
        close(f->rfd);
        close(f->wfd);
        f->rfd = f->wfd = -1;
        goto fail;
    }
    return 0;
fail:
    remove_ours(f, st.st_dev, st.st_ino);
    return -1;
}


/* Called when poll times out: if someone deleted the FIFO, make a new one
 * at the path so `echo label > PATH` does not create a regular file there
 * and block nobody; if something else took its place, say so once. */
static void check_path(struct mark_fifo *f)
{
    struct stat st;
    if (lstat(f->path, &st) == 0) {
        if (st.st_dev == f->dev && st.st_ino == f->ino)
            return;
        if (!f->replaced_warned)
            diag_warn("%s: no longer the marks FIFO (replaced); marks written there are lost",
                      f->path);
        f->replaced_warned = 1;
        return;
    }
    if (errno != ENOENT || create_fifo(f) != 0 || lstat(f->path, &st) != 0)
        return;
    int old_r = f->rfd, old_w = f->wfd;
    if (open_ends(f, &st) != 0) {
        f->rfd = old_r;
        f->wfd = old_w;
        return;
    }
    /* what writers that still hold the removed FIFO left in it is read
     * before its read end closes (later writes to it get EPIPE) */
    char chunk[4096];
    ssize_t n;
    fcntl(old_r, F_SETFL, fcntl(old_r, F_GETFL) | O_NONBLOCK);
    while ((n = read(old_r, chunk, sizeof chunk)) > 0)
        mark_fifo_feed(f, chunk, (size_t)n, mono_ns());
    close(old_r);
    close(old_w);
    diag_warn("%s: marks FIFO was removed; created it again", f->path);
}

/* The last read, at stop. Every mark whose write() returned before the
 * recorder stops is recorded; a pipe cannot do better for a write racing
 * the close itself, so that window is kept as small as the kernel allows:
 * the bytes are only copied out (parsing and queueing them may wait on
 * the disk) until the pipe is found empty, and the read end is closed
 * right after that check, so every later write fails (EPIPE, or ENXIO on
 * open) instead of succeeding into a pipe nobody reads. Writers that
 * never pause would keep the pipe from ever being empty: what is read
 * after the stop is bounded (MARK_FIFO_PIPE_SIZE more than was waiting at
 * the stop), so the recorder always ends.
 *
 * stop_ns is taken before a check that found the pipe empty (else before
 * the FIONREAD at the stop): a write that returned before stop_ns had its
 * bytes in the pipe when that check ran, so they were read. */
#define DRAIN_READS 128
static void final_drain(struct mark_fifo *f, char *chunk, size_t size)
{
    fcntl(f->rfd, F_SETFL, fcntl(f->rfd, F_GETFL) | O_NONBLOCK);
    int64_t stop = mono_ns();
    int waiting = 0;
    if (ioctl(f->rfd, FIONREAD, &waiting) != 0 || waiting < 0)
        waiting = 0;
    size_t cap = (size_t)waiting + MARK_FIFO_PIPE_SIZE, used = 0;
    char *held = malloc(cap);
    size_t ends[DRAIN_READS];
    int64_t arrival[DRAIN_READS];
    int nreads = 0;
    while (held && nreads < DRAIN_READS && used < cap) {
        ssize_t n = read(f->rfd, held + used, cap - used);
        if (n > 0) {
            used += (size_t)n;
            ends[nreads] = used;
            arrival[nreads++] = mono_ns();
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        int64_t before = mono_ns();
        if (n < 0 && errno == EAGAIN && ioctl(f->rfd, FIONREAD, &waiting) == 0 && waiting > 0)
            continue;
        stop = before;
        break;
    }
    if (!held) {                     /* no memory: parse as we read, as before */
        ssize_t n;
        while ((n = read(f->rfd, chunk, size)) > 0)
            mark_fifo_feed(f, chunk, (size_t)n, mono_ns());
        stop = mono_ns();
    }
    close(f->rfd);
    f->rfd = -1;
    close(f->wfd);
    f->wfd = -1;
    f->stop_ns = stop;
    size_t from = 0;
    for (int i = 0; i < nreads; i++) {
        mark_fifo_feed(f, held + from, ends[i] - from, arrival[i]);
        from = ends[i];
    }
    free(held);
    mark_fifo_drop_fragment(f, "the last line had no newline when recording stopped");
}

static void *reader_main(void *arg)
{
    struct mark_fifo *f = arg;
    char chunk[65536];
    int64_t next_path_check = mono_ns() + 1000 * NS_PER_MS;
    mark_fifo_first_pass(f, chunk, sizeof chunk);
    for (;;) {
        struct pollfd p[2] = { { f->rfd, POLLIN, 0 }, { f->stop_pipe[0], POLLIN, 0 } };
        int n = poll(p, 2, mark_fifo_expire_fragment(f, mono_ns()));
        if (n < 0 && errno != EINTR)
            break;
        if (n == 0) {
            if (mono_ns() >= next_path_check) {
                check_path(f);
                next_path_check = mono_ns() + 1000 * NS_PER_MS;
            }
            continue;
        }
        if (p[0].revents & POLLIN) {
            ssize_t got = read(f->rfd, chunk, sizeof chunk);
            int64_t arrival = mono_ns();
            if (got > 0)
                mark_fifo_feed(f, chunk, (size_t)got, arrival);
        }
        if (p[1].revents)
            break;
    }
    final_drain(f, chunk, sizeof chunk);
    pthread_mutex_lock(&f->q_lock);
    f->reader_done = 1;
    pthread_cond_signal(&f->q_ready);
    pthread_mutex_unlock(&f->q_lock);
    return NULL;
}

/* Writes queued marks until the reader has finished and the queue is
 * empty, so every mark stamped before a stop is in the trace. */
static void *writer_main(void *arg)
{
    struct mark_fifo *f = arg;
    for (;;) {
        pthread_mutex_lock(&f->q_lock);
        while ((f->q_len == 0 || f->held) && !f->reader_done)
            pthread_cond_wait(&f->q_ready, &f->q_lock);
        if (f->q_len == 0) {
            pthread_mutex_unlock(&f->q_lock);
            return NULL;
        }
        struct mark_fifo_entry e = f->queue[f->q_head];
        f->q_head = (f->q_head + 1) % MARK_FIFO_QUEUE;
        f->q_len--;
        pthread_cond_signal(&f->q_space);
        pthread_mutex_unlock(&f->q_lock);
        if (e.event) {
            if (f->event_fn)
                f->event_fn(f->raw_ctx, e.m.label, e.arrival_ns);
            continue;
        }
        mark_early_note(&f->early, &e.m, e.arrival_ns, f->path);
        f->fn(f->ctx, &e.m, e.arrival_ns);
    }
}

int mark_fifo_start(struct mark_fifo *f, mark_fifo_fn fn, void *ctx)
{
    f->fn = fn;
    f->ctx = ctx;
    f->queue = calloc(MARK_FIFO_QUEUE, sizeof *f->queue);
    if (!f->queue) {
        diag_error("out of memory");
        return -1;
    }
    f->q_head = f->q_len = 0;
    f->reader_done = 0;
    f->held = 1;
    pthread_mutex_init(&f->q_lock, NULL);
    pthread_cond_init(&f->q_ready, NULL);
    pthread_cond_init(&f->q_space, NULL);
    pthread_cond_init(&f->first_done, NULL);
    /* Signals go to the sampling thread, whose sleep they must interrupt. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    f->running = 1;
    int rc = pthread_create(&f->writer, NULL, writer_main, f);
    if (rc == 0) {
        rc = pthread_create(&f->thread, NULL, reader_main, f);
        if (rc != 0) {              /* let the writer find an empty, finished queue */
            pthread_mutex_lock(&f->q_lock);
            f->reader_done = 1;
            pthread_cond_signal(&f->q_ready);
            pthread_mutex_unlock(&f->q_lock);
            pthread_join(f->writer, NULL);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        f->running = 0;
        free(f->queue);
        f->queue = NULL;
        diag_error("cannot start the marks reader: %s", strerror(rc));
        return -1;
    }
    mark_fifo_wait_first_pass(f);
    return 0;
}

void mark_fifo_release(struct mark_fifo *f, int64_t begin_ns)
{
    if (!f->running)
        return;
    pthread_mutex_lock(&f->q_lock);
    if (!f->created)                        /* only an older FIFO can have had writers */
        mark_early_begin(&f->early, begin_ns);  /* blocked in open(2); read after the lock */
    f->held = 0;
    pthread_cond_signal(&f->q_ready);
    pthread_mutex_unlock(&f->q_lock);
}

void mark_fifo_stop(struct mark_fifo *f)
{
    if (f->running) {
        if (write(f->stop_pipe[1], "x", 1) != 1) { /* the thread also stops on close */ }
        pthread_join(f->thread, NULL);
        pthread_join(f->writer, NULL);
        f->running = 0;
        pthread_mutex_destroy(&f->q_lock);
        pthread_cond_destroy(&f->q_ready);
        pthread_cond_destroy(&f->q_space);
        pthread_cond_destroy(&f->first_done);
        free(f->queue);
        f->queue = NULL;
    }
    mark_early_say(&f->early, f->path);     /* no mark after `begin` said it */
    if (f->path[0])
        diag_repeat_summary(f->path);
    int *fds[] = { &f->rfd, &f->wfd, &f->stop_pipe[0], &f->stop_pipe[1] };
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
}

long long mark_fifo_rejected(struct mark_fifo *f)
{
    return __atomic_load_n(&f->rejected, __ATOMIC_RELAXED);
}
