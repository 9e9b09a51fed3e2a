/* mark_fifo_lines.c — the marks FIFO's bytes into marks: splits what the
 * reader thread read into lines, parses each (plain marks and the CUDA
 * bridge's lines), queues them for the writer thread, and drops a line
 * that never gets its newline; see mark_fifo.h. mark_fifo.c owns the FIFO
 * itself and the threads. */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "clock.h"
#include "diag.h"
#include "json_escape.h"
#include "mark_fifo.h"

void mark_fifo_set_cuda(struct mark_fifo *f, mark_fifo_raw_fn raw_fn, mark_fifo_event_fn event_fn,
                        void *ctx)
{
    f->raw_fn = raw_fn;
    f->event_fn = event_fn;
    f->raw_ctx = ctx;
}

static void enqueue(struct mark_fifo *f, const struct mark_line *m, int64_t arrival_ns, int event)
{
    pthread_mutex_lock(&f->q_lock);
    while (f->q_len == MARK_FIFO_QUEUE)
        pthread_cond_wait(&f->q_space, &f->q_lock);
    f->queue[(f->q_head + f->q_len) % MARK_FIFO_QUEUE] = (struct mark_fifo_entry){ *m, arrival_ns,
                                                                                  event };
    f->q_len++;
    pthread_cond_signal(&f->q_ready);
    pthread_mutex_unlock(&f->q_lock);
}

/* A line of libflinch_cuda.so's (see MARK_FIFO_CUDA_PREFIX). */
static void handle_cuda_line(struct mark_fifo *f, const char *line, size_t len, int64_t arrival_ns)
{
    size_t plen = sizeof MARK_FIFO_CUDA_PREFIX - 1;
    struct mark_line m;
    memset(&m, 0, sizeof m);
    if (!f->raw_fn || !f->raw_fn(f->raw_ctx, line + plen, len - plen, m.label, sizeof m.label))
        return;
    if (!f->running) {
        if (f->event_fn)
            f->event_fn(f->raw_ctx, m.label, arrival_ns);
        return;
    }
    enqueue(f, &m, arrival_ns, 1);
}

static void handle_line(struct mark_fifo *f, const char *line, size_t len, int64_t arrival_ns)
{
    struct mark_line m;
    size_t plen = sizeof MARK_FIFO_CUDA_PREFIX - 1;
    if (len >= plen && memcmp(line, MARK_FIFO_CUDA_PREFIX, plen) == 0) {
        handle_cuda_line(f, line, len, arrival_ns);
        return;
    }
    enum mark_line_status st = mark_line_parse(line, len, &m);
    if (st == MARK_LINE_EMPTY)
        return;
    if (st != MARK_LINE_OK) {
        __atomic_add_fetch(&f->rejected, 1, __ATOMIC_RELAXED);
        diag_warn_repeat(f->path, 0, "marks FIFO %s: %s; mark ignored", f->path,
                         mark_line_status_str(st));
        return;
    }
    if (m.has_stamp && !mark_stamp_in_range(m.stamp_ns, arrival_ns)) {
        f->rejected++;
        diag_warn_repeat(f->path, 0, "marks FIFO %s: mark '%s' stamped %lld ns, more than a day "
                         "from the recorder's clock (%lld); mark ignored", f->path, m.label,
                         (long long)m.stamp_ns, (long long)arrival_ns);
        return;
    }
    f->accepted++;
    if (!f->running) {              /* unit tests feed without threads */
        mark_early_note(&f->early, &m, arrival_ns, f->path);
        f->fn(f->ctx, &m, arrival_ns);
        return;
    }
    enqueue(f, &m, arrival_ns, 0);
}

void mark_fifo_feed(struct mark_fifo *f, const char *data, size_t len, int64_t arrival_ns)
{
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t take = nl ? (size_t)(nl - data) : len;
        if (f->discarding) {
            if (nl)
                f->discarding = 0;
        } else if (f->used + take > sizeof f->buf) {
            f->used = 0;
            f->discarding = !nl;
            __atomic_add_fetch(&f->rejected, 1, __ATOMIC_RELAXED);
            diag_warn_repeat(f->path, 0, "marks FIFO %s: line longer than %zu bytes; mark ignored",
                             f->path, sizeof f->buf);
        } else {
            memcpy(f->buf + f->used, data, take);
            f->used += take;
            if (nl) {
                handle_line(f, f->buf, f->used, arrival_ns);
                f->used = 0;
            }
        }
        if (!nl && (f->used > 0 || f->discarding))
            f->fragment_ns = arrival_ns;
        if (!nl)
            break;
        len -= take + 1;
        data = nl + 1;
    }
}

/* Drops the bytes of a line that never got its newline, with a warning
 * that shows them (escaped, at most 64 bytes): a writer that died
 * mid-line, or one that writes a line in pieces. Returns 1 when there was
 * something to drop. */
int mark_fifo_drop_fragment(struct mark_fifo *f, const char *why)
{
    if (f->used == 0 && !f->discarding)
        return 0;
    if (f->used > 0) {
        char shown[512];
        size_t n = f->used < 64 ? f->used : 64;
        char raw[65];
        memcpy(raw, f->buf, n);
        raw[n] = '\0';
        for (size_t i = 0; i < n; i++)    /* a NUL would end the string early */
            if (raw[i] == '\0')
                raw[i] = '?';
        FILE *m = fmemopen(shown, sizeof shown, "w");
        if (m) {
            json_write_string(m, raw);
            fclose(m);
        } else {
            snprintf(shown, sizeof shown, "(%zu bytes)", f->used);
        }
        diag_warn("marks FIFO %s: incomplete line %s%s (%s); dropped", f->path, shown,
                  f->used > 64 ? "..." : "", why);
    } else {
        diag_warn("marks FIFO %s: the rest of an overlong line never got its newline (%s); "
                  "dropped", f->path, why);
    }
    f->rejected++;
    f->used = 0;
    f->discarding = 0;
    return 1;
}

/* A fragment whose writer has gone quiet for MARK_FIFO_FRAGMENT_NS, with
 * nothing else waiting in the pipe, is dropped: otherwise the next
 * writer's mark would be glued onto it. Returns the poll timeout (ms). */
int mark_fifo_expire_fragment(struct mark_fifo *f, int64_t now)
{
    if (f->used == 0 && !f->discarding)
        return 1000;
    int64_t left = f->fragment_ns + MARK_FIFO_FRAGMENT_NS - now;
    if (left > 0)
        return (int)(left / NS_PER_MS) + 1;
    int waiting = 0;
    if (ioctl(f->rfd, FIONREAD, &waiting) == 0 && waiting > 0)
        return 0;
    mark_fifo_drop_fragment(f, "no newline within 200 ms: a writer died mid-line, or wrote a line "
                     "in pieces");
    return 1000;
}
