/* mark_early.c — early=1 on plain marks that arrived before `begin`; see mark_early.h. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "mark_early.h"
#include "mark_fifo.h"

/* the first pass waits this long for writers, on a FIFO that existed before
 * the recorder only */
#define EARLY_GRACE_MS 20

void mark_early_begin(struct mark_early *e, int64_t begin_ns)
{
    e->begin_ns = begin_ns;
    e->known = 1;
}

void mark_early_note(struct mark_early *e, struct mark_line *m, int64_t arrival_ns, const char *path)
{
    m->attrs.early = 0;
    if (!e->known)
        return;
    if (arrival_ns >= e->begin_ns) {
        mark_early_say(e, path);           /* the early ones came first: all counted */
        return;
    }
    if (m->has_stamp || (m->has_attrs && m->attrs.has_dropped))
        return;
    m->attrs.early = 1;
    if (e->count++ == 0)
        snprintf(e->first, sizeof e->first, "%s", m->label);
}

void mark_early_say(struct mark_early *e, const char *path)
{
    if (e->said || e->count == 0)
        return;
    e->said = 1;
    diag_warn("marks FIFO %s: %lld mark%s written before the recording began (first '%s'): "
              "%s time is %s arrival, not when %s written", path, e->count,
              e->count == 1 ? "" : "s", e->first, e->count == 1 ? "its" : "their",
              e->count == 1 ? "its" : "their", e->count == 1 ? "it was" : "they were");
}

void mark_fifo_first_pass(struct mark_fifo *f, char *chunk, size_t cap)
{
    /* A FIFO we just made had no writer waiting in open(2); on an older one,
     * the woken writers are given EARLY_GRACE_MS to write (a shell's `echo
     * x > FIFO` took 6 ms on a loaded host), else their marks would read
     * as written after `begin` */
    int64_t until = mono_ns() + (f->created ? 0 : EARLY_GRACE_MS * 1000000LL);
    for (;;) {
        int n = 0;
        if (ioctl(f->rfd, FIONREAD, &n) != 0)
            break;
        if (n == 0) {
            int64_t left = until - mono_ns();
            struct pollfd p = { f->rfd, POLLIN, 0 };
            if (left <= 0 || poll(&p, 1, (int)((left + 999999) / 1000000)) <= 0)
                break;
            continue;
        }
        ssize_t got = read(f->rfd, chunk, cap);     /* n > 0: does not block */
        int64_t arrival = mono_ns();
        if (got <= 0)
            break;
        mark_fifo_feed(f, chunk, (size_t)got, arrival);
    }
    pthread_mutex_lock(&f->q_lock);
    f->first_pass = 1;
    pthread_cond_broadcast(&f->first_done);
    pthread_mutex_unlock(&f->q_lock);
}

void mark_fifo_wait_first_pass(struct mark_fifo *f)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);   /* the condition variable's clock */
    until.tv_nsec += (EARLY_GRACE_MS + 100) * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&f->q_lock);
    while (!f->first_pass && pthread_cond_timedwait(&f->first_done, &f->q_lock, &until) == 0) {
    }
    pthread_mutex_unlock(&f->q_lock);
}
