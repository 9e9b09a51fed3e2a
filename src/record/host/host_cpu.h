/*
 * host_cpu.h — host CPU busy percentage from /proc/stat.
 *
 * Owns: parsing the aggregate "cpu" line and turning reads into a busy
 * percentage over the trailing HOST_CPU_SPAN_NS (all CPUs together: 100%
 * means every CPU was busy).
 *
 * Why a trailing span and not "since the previous tick": /proc/stat counts
 * in 10 ms jiffies, so between two 10 ms ticks most deltas are 0 or 1 jiffy
 * per CPU (a value of 0, 50 or 100% on a two-CPU host), and at 1 ms ticks
 * nothing moves at all. Measuring each tick against the reading ~100 ms
 * earlier gives every row a usable value at 1% resolution per CPU, at the
 * cost of 100 ms of smoothing, which the README states. busy = user+nice+system+irq+softirq+steal, total =
 * busy+idle+iowait; guest time is already counted in user. The path is
 * configurable so tests can feed a fake file.
 */
#ifndef FLINCH_HOST_CPU_H
#define FLINCH_HOST_CPU_H

#define HOST_CPU_DEFAULT_PATH "/proc/stat"

#define HOST_CPU_SPAN_NS 100000000LL /* 100 ms */
#define HOST_CPU_HISTORY 256          /* readings kept: 100 ms at 1 ms ticks fits */

struct host_cpu_reading {
    long long t_ns;
    unsigned long long busy, total;
};

struct host_cpu {
    int fd;
    char path[4096];
    struct host_cpu_reading history[HOST_CPU_HISTORY]; /* ring, newest at head-1 */
    int head, count;
    int warned;
};

/* Parses the "cpu ..." line at the start of text. Returns 0, or -1. */
int host_cpu_parse(const char *text, unsigned long long *busy, unsigned long long *total);

/* Opens path (NULL: /proc/stat) and takes the first reading at now_ns
 * (CLOCK_MONOTONIC). Returns 0, or -1 after a warning (the column then
 * stays empty). */
int host_cpu_open(struct host_cpu *h, const char *path, long long now_ns);

/* Busy % over [now_ns - HOST_CPU_SPAN_NS, now_ns], measured from the newest
 * earlier reading at least that old (the oldest one during the first
 * 100 ms). Returns 0, or -1 when unavailable (no file, unparsable, or the
 * counters have not moved since that reading). */
int host_cpu_read(struct host_cpu *h, long long now_ns, double *busy_pct);

void host_cpu_close(struct host_cpu *h);

#endif
