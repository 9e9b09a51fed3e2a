/*
 * proc_runq.h — the traced process tree's run-queue delay: how long its
 * threads were runnable but waited for a CPU (proc_tree_runq_ns).
 *
 * Owns: the per-thread run-queue delay of every thread of the tree (the
 * second field of /proc/PID/task/TID/schedstat, ns) and its total, kept
 * monotonic across threads that come and go, and the cadence of the passes
 * that read it.
 *
 * Why per thread: /proc/PID/schedstat is not a sum over the process's
 * threads, it is the thread-group leader's own line (a Python process whose
 * worker thread spun 830 ms showed the leader's 34 ms there), and an exited
 * thread's delay is folded into nothing (unlike its CPU time, which the
 * kernel keeps in the process's signal struct). So the delay is read per
 * thread and summed as increments: a thread seen in two passes adds its
 * growth, a new thread adds all it has (it was born since the last pass), a
 * thread gone adds nothing more. Lost: what a thread waited after the last
 * pass before it exited (at most one pass interval of one thread).
 */
#ifndef FLINCH_PROC_RUNQ_H
#define FLINCH_PROC_RUNQ_H

#include <stdint.h>
#include <sys/types.h>

struct runq_thread { pid_t tid; int64_t ns; };

struct proc_runq {
    struct runq_thread *thr, *next;   /* last pass, sorted by tid; scratch */
    int nthr, cap;
    int64_t total_ns;                 /* summed delay so far (never decreases) */
    int64_t next_pass_ns;             /* no pass before this (the cost bound) */
    int passes, unavailable;          /* passes made; schedstat missing (no CONFIG_SCHED_INFO) */
};

/* Reads the delay of every thread of the processes pids[0..n) at now_ns
 * (CLOCK_MONOTONIC), unless the last pass was too recent for its cost: a
 * pass is repeated no sooner than 50 times its own duration after it, so
 * reading costs at most 2% of a core whatever the thread count (a handful
 * of threads: every tick; a thousand: every few hundred ms). 1 with
 * *total_ns set when a pass was made; 0 when skipped; -1 when schedstat
 * cannot be read at all (the column stays empty). */
int proc_runq_read(struct proc_runq *q, const pid_t *pids, int n, int64_t now_ns, int64_t *total_ns);
void proc_runq_free(struct proc_runq *q);

#endif
