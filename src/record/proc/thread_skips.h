/*
 * thread_skips.h — the threads a sweep of the thread sampler could not
 * sample, and why, made visible: an EVENT row in the trace
 * (`threads_skipped n=N reason=R`, the process tree's root in proc_pid)
 * when a reason's count changes, and one line in the threads file and on
 * stderr the first time each reason happens.
 *
 * A skipped thread is not a thread gone: a thread known from the last
 * sweep keeps its last state in the threads file (no X line); one never
 * seen appears once it can be read. n is the number of threads the latest
 * sweep did not read, so every thread of the tree is in the threads file
 * or was counted in a threads_skipped row. A changed count is written at
 * once when it starts or ends (0 to n, n to 0), else at most once every
 * THREAD_SKIPS_EVERY_MS, and the last sweep writes any change still
 * unwritten.
 */
#ifndef FLINCH_THREAD_SKIPS_H
#define FLINCH_THREAD_SKIPS_H

#include <stdint.h>
#include <sys/types.h>

#define THREAD_SKIPS_EVERY_MS 1000
#define THREAD_SKIPS_EVENT "threads_skipped"

enum thread_skip_reason {
    SKIP_FD_LIMIT,      /* no file descriptor left to read it (EMFILE, ENFILE) */
    SKIP_MAX_THREADS,   /* beyond THREAD_SAMPLER_MAX_THREADS in one sweep */
    SKIP_UNREADABLE,    /* another read error (not ENOENT/ESRCH: those mean gone) */
    SKIP_REASONS
};

struct csv_out;

struct thread_skips {
    long now[SKIP_REASONS];       /* this sweep's */
    long said[SKIP_REASONS];      /* the last written in a row */
    int64_t said_ns[SKIP_REASONS];
    unsigned told;                /* reasons said in the threads file and on stderr */
    struct csv_out *trace;        /* NULL: no rows */
    int ncols;
    pid_t root;
};

/* trace: the recording's trace (rows go in with its own lock), ncols its
 * columns; NULL for none. */
void thread_skips_init(struct thread_skips *k, struct csv_out *trace, int ncols, pid_t root);
/* Starts a sweep's count. */
void thread_skips_begin(struct thread_skips *k);
void thread_skips_add(struct thread_skips *k, enum thread_skip_reason r);
/* Ends a sweep at now_ns: writes the rows due (final: every change).
 * Returns the reasons happening for the first time, as 1 << reason bits,
 * for the caller's once-said lines (thread_skip_text). */
unsigned thread_skips_end(struct thread_skips *k, int64_t now_ns, int final);
/* The reason's name in the rows ("fd_limit"), and its sentence. */
const char *thread_skip_name(enum thread_skip_reason r);
const char *thread_skip_text(enum thread_skip_reason r);

#endif
