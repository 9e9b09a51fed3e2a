/*
 * thread_skips.c — see thread_skips.h.
 */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "thread_skips.h"
#include "trace_row.h"

static const struct { const char *name, *text; } reasons[SKIP_REASONS] = {
    [SKIP_FD_LIMIT] = { "fd_limit", "threads not sampled: no file descriptor left (ulimit -n); "
                                    "they keep their last state, counted in threads_skipped events" },
    [SKIP_MAX_THREADS] = { "max_threads", "threads not sampled: more in the tree than one sweep "
                                          "reads; counted in threads_skipped events" },
    [SKIP_UNREADABLE] = { "unreadable", "threads not sampled: their /proc files could not be read; "
                                        "counted in threads_skipped events" },
};

const char *thread_skip_name(enum thread_skip_reason r)
{
    return reasons[r].name;
}

const char *thread_skip_text(enum thread_skip_reason r)
{
    return reasons[r].text;
}

void thread_skips_init(struct thread_skips *k, struct csv_out *trace, int ncols, pid_t root)
{
    memset(k, 0, sizeof *k);
    k->trace = trace;
    k->ncols = ncols;
    k->root = root;
}

void thread_skips_begin(struct thread_skips *k)
{
    memset(k->now, 0, sizeof k->now);
}

void thread_skips_add(struct thread_skips *k, enum thread_skip_reason r)
{
    k->now[r]++;
}

static void write_row(struct thread_skips *k, enum thread_skip_reason r, int64_t now_ns)
{
    if (!k->trace)
        return;
    char label[96];
    snprintf(label, sizeof label, THREAD_SKIPS_EVENT " n=%ld reason=%s", k->now[r], reasons[r].name);
    struct trace_row row;
    trace_row_init(&row, k->ncols, now_ns, wall_ns() - (mono_ns() - now_ns), ROW_EVENT);
    trace_row_label(&row, label);
    trace_row_int(&row, COL_PROC_PID, k->root);
    trace_row_write(&row, k->trace);
}

unsigned thread_skips_end(struct thread_skips *k, int64_t now_ns, int final)
{
    unsigned first = 0;
    for (int r = 0; r < SKIP_REASONS; r++) {
        if (k->now[r] == k->said[r])
            continue;
        int edge = k->now[r] == 0 || k->said[r] == 0;
        if (!edge && !final && now_ns - k->said_ns[r] < THREAD_SKIPS_EVERY_MS * NS_PER_MS)
            continue;
        write_row(k, (enum thread_skip_reason)r, now_ns);
        k->said[r] = k->now[r];
        k->said_ns[r] = now_ns;
        if (k->now[r] > 0 && !(k->told & (1u << r))) {
            k->told |= 1u << r;
            first |= 1u << r;
        }
    }
    return first;
}
