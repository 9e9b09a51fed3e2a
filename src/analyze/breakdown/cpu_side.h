/*
 * cpu_side.h — was the job on the CPU, or did it want to be? The CPU side
 * of the breakdown, one sample interval at a time.
 *
 * Owns: the decision that makes an idle-GPU instant host-cpu or waiting,
 * and the figures the evidence gives for it.
 *
 * With a traced process tree (--pid, -- CMD) only the tree's own time
 * counts: its CPU time (running) and its run-queue delay (runnable, kept off
 * a CPU: proc_tree_runq_ns). Running at >= proc_busy_cores cores is
 * CPU_ST_RUNNING; running plus waiting for a CPU at >= proc_busy_cores is
 * CPU_ST_STARVED; anything less (asleep, blocked) is idle, whatever the rest
 * of the host does: other processes saturating the machine do not make a
 * sleeping job host-cpu. A trace without proc_tree_runq_ns (an older
 * recorder) has no starved state. Without a traced tree the job's CPU is
 * unknown, and the whole host counts when saturated (host_cpu_busy_pct >=
 * cpu_busy_pct): CPU_ST_SATURATED.
 */
#ifndef FLINCH_CPU_SIDE_H
#define FLINCH_CPU_SIDE_H

#include "breakdown_internal.h"
#include "tape.h"

/* Timeline states of the CPU side beyond ST_BUSY (running) and ST_IDLE. */
enum { CPU_ST_STARVED = 4, CPU_ST_SATURATED = 5 };

/* The host_cpu_busy_pct figure is a trailing 100 ms mean (host_cpu.c): an
 * edge in it is known to no better than that. */
#define CPU_HOST_PCT_RES_MS 100.0

/* A starved stretch shorter than this between idle stretches is a
 * wake-up's wait for a CPU, not a job that wants one (see cpu_side_settle). */
#define CPU_STARVED_MIN_MS 100.0

struct cpu_interval {
    double cpu_cores;    /* the tree's CPU time over the interval / its length; NAN: unknown */
    double runq_cores;   /* its run-queue delay / the length; NAN: not recorded */
    double host_pct;     /* host_cpu_busy_pct; NAN: unknown */
};

/* The state of one interval: ST_BUSY (the job ran), CPU_ST_STARVED,
 * CPU_ST_SATURATED (no tree, host saturated) or ST_IDLE. tree_known: the
 * window has the tree's CPU time (a NAN rate in it is then idle, never the
 * host's). */
unsigned char cpu_side_decide(double proc_busy_cores, double cpu_busy_pct, int tree_known,
                              const struct cpu_interval *c);

/* The tree's run-queue delay as a rate (cores waiting) over each interval
 * (t[j-1], t[j]] of h: rate[j] of n (element 0 unused), NAN where the
 * trace has no reading around it. The kernel adds a thread's wait to schedstat only when the thread
 * gets a CPU, so a starved thread's delay arrives in jumps after long
 * flat stretches: a growth G seen at a reading is spread back over the
 * time since the previous growth, but no further back than G itself (each
 * thread's wait that ended there began at most G before). Readings the
 * recorder skipped (an empty cell) are bridged the same way. */
void cpu_side_runq_rates(const struct host_sample *h, long n, double *rate);

/* Settles the closed CPU-side timeline of a window: without a traced tree,
 * segments shorter than the host figure's 100 ms are merged (a host
 * hovering around the threshold flapped in 6-9 pieces); with one, a
 * starved stretch shorter than CPU_STARVED_MIN_MS with idle on each side,
 * each at least as long, becomes idle (segment_merge_isolated). */
void cpu_side_settle(struct timeline *tl, int tree_known);

/* 1 when the state makes the instant host-cpu (the GPU idle). */
int cpu_side_busy(unsigned char st);

/* The milliseconds of bd's host-cpu segments that cpu (a closed CPU-side
 * timeline over the same span) calls starved, and saturated. */
void cpu_side_overlap(const struct timeline *cpu, const struct breakdown *bd, double *starved_ms,
                      double *saturated_ms);

#endif
