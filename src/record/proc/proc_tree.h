/*
 * proc_tree.h — CPU time of a process and all its descendants (--pid, or
 * the command flinch record wraps), and its busiest thread.
 *
 * Owns: the set of processes in the tree (found through
 * /proc/PID/task/PID/children every tick and a full /proc scan every
 * second for children forked by other threads; a member stays one when it
 * is re-parented, so orphans stay counted), their summed CPU time without
 * double counting, and the busiest thread's share of a core.
 *
 * Accounting: the tree's CPU time is the sum over live members of their
 * own CPU time plus the CPU time of the children they reaped (cutime +
 * cstime, which the kernel moves into the parent when it reaps a child), plus
 * what flinch itself reaped (getrusage RUSAGE_CHILDREN: the wrapped command,
 * and the orphans re-parented to flinch as PR_SET_CHILD_SUBREAPER), plus the
 * last reading of every member that left the tree with a parent outside it
 * (its time goes to a process we do not watch). What is lost (README,
 * "process tree"): a member whose parent is outside the tree loses the CPU
 * it used after our last reading (at most one interval); a process that is
 * born and dies between two readings with a parent outside the tree is never
 * seen; reaped children count in 10 ms clock ticks (cutime).
 */
#ifndef FLINCH_PROC_TREE_H
#define FLINCH_PROC_TREE_H

#include <stdint.h>
#include <sys/types.h>

#define PROC_TREE_MAX 1024          /* processes followed at once */
#define PROC_TREE_THREADS_MAX 16384 /* threads compared for the busiest one */

struct proc_member {
    pid_t pid, ppid;
    unsigned long long start_ticks;
    int64_t own_ns, reaped_ns;      /* last reading */
    int seen;                       /* found this tick */
};

struct thread_cpu { pid_t tid; int64_t ns; };

struct proc_tree {
    pid_t root;
    int own_children;               /* flinch is the root's parent (-- CMD) */
    int nmember;
    struct proc_member member[PROC_TREE_MAX];
    int64_t departed_ns;            /* members gone to a parent outside the tree */
    int64_t rusage_base_ns;         /* flinch's RUSAGE_CHILDREN at open */
    int64_t total_ns;               /* last value reported (never decreases) */
    int64_t last_scan_ns;           /* last full /proc scan */
    /* busiest thread */
    struct thread_cpu *thr, *thr_next;
    int nthr;
    int64_t thr_t_ns;               /* time of the thread pass thr holds */
    double top_cores;               /* NAN until two passes */
    char top_name[40];              /* "TID comm" */
};

/* Starts following pid's tree. own_children: pid is flinch's child. 0, or -1
 * with errno. */
int proc_tree_open(struct proc_tree *t, pid_t pid, int own_children);
/* Reads the tree at now_ns: CPU time (ns, never decreasing) and live
 * processes. Quick: the known members and their main threads' children. */
void proc_tree_read(struct proc_tree *t, int64_t now_ns, int64_t *cpu_ns, int *procs);
/* The slower part, for after the GPU reads: a full /proc scan for new
 * members every second, the busiest thread every 100 ms. */
void proc_tree_slow(struct proc_tree *t, int64_t now_ns);
void proc_tree_close(struct proc_tree *t);

#endif
