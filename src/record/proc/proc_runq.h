/*
 * proc_runq.h — the traced process tree's run-queue delay: how long its
 * threads were runnable but waited for a CPU (proc_tree_runq_ns).
 *
 * Owns: the per-thread run-queue delay of every thread of the tree (the
 * second field of /proc/PID/task/TID/schedstat, ns), the wait a thread is
 * in the middle of (inferred from its state, see proc_runq_read), their
 * total, kept monotonic across threads that come and go, and the cadence of
 * the passes that read them.
 *
 * Why per thread: /proc/PID/schedstat is not a sum over the process's
 * threads, it is the thread-group leader's own line (a Python process whose
 * worker thread spun 830 ms showed the leader's 34 ms there), and an exited
 * thread's delay is folded into nothing (unlike its CPU time, which the
 * kernel keeps in the process's signal struct). So the delay is read per
 * thread and summed as increments: a thread seen in two passes adds its
 * growth, a new thread adds all it has (it was born since the last pass), a
 * thread gone adds nothing more. Lost: what a thread waited after the last
 * pass before it exited, beyond what its state showed (below).
 */
#ifndef FLINCH_PROC_RUNQ_H
#define FLINCH_PROC_RUNQ_H

#include <stdint.h>
#include <sys/types.h>

struct runq_thread {
    pid_t tid;
    char runnable;          /* state R at the pass */
    int64_t delay_ns;       /* schedstat: run-queue delay the kernel has reported */
    int64_t exec_ns;        /* schedstat: time on a CPU */
    int64_t slices;         /* schedstat: times put on a CPU */
    int64_t ticks;          /* stat: utime + stime (clock ticks) */
    int64_t held_since_ns;  /* runnable and not run since (real CLOCK_MONOTONIC); 0: not held */
    int64_t counted_ns;     /* what this thread has added to the total */
    int64_t base_ns;        /* its delay before the recording (first pass), not counted */
};

struct proc_runq {
    struct runq_thread *thr, *next;   /* last pass, sorted by tid; scratch */
    int nthr, cap;
    int64_t total_ns;                 /* summed delay so far (never decreases) */
    int64_t next_pass_ns;             /* no pass before this (the cost bound) */
    int passes, unavailable;          /* passes made; schedstat missing (no CONFIG_SCHED_INFO) */
};

/* Threads held runnable for less than this are not inferred to be waiting:
 * longer than a scheduler tick at the slowest CONFIG_HZ (100), so a thread
 * that ran all along has had its CPU time brought up to date at least once. */
#define RUNQ_HOLD_MIN_NS 12000000LL

/* Reads the delay of every thread of the processes pids[0..n) at now_ns
 * (the recorder's clock), unless the last pass was too recent for its cost:
 * a pass is repeated no sooner than 50 times the CPU time it took, so
 * reading costs at most 2% of a core whatever the thread count (a handful
 * of threads: every tick; a thousand: every few hundred ms). 1 with
 * *total_ns set when a pass was made; 0 when skipped; -1 when schedstat
 * cannot be read at all (the column stays empty). */
int proc_runq_read(struct proc_runq *q, const pid_t *pids, int n, int64_t now_ns, int64_t *total_ns);
void proc_runq_free(struct proc_runq *q);

/* One thread's next record from its previous one (prev NULL: not seen in
 * the last pass; first: this is the first pass, the base) and what the pass
 * read into cur (tid, runnable, delay, exec, slices, ticks) at real time
 * now_ns; returns what it adds to the total (>= 0). Exposed for the tests. */
int64_t proc_runq_step(const struct runq_thread *prev, int first, struct runq_thread *cur, int64_t now_ns);

#endif
