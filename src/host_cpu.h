/*
 * host_cpu.h — host CPU busy percentage from /proc/stat.
 *
 * Owns: parsing the aggregate "cpu" line and turning two reads into a busy
 * percentage over the time between them (all CPUs together: 100% means
 * every CPU was busy). busy = user+nice+system+irq+softirq+steal, total =
 * busy+idle+iowait; guest time is already counted in user. The path is
 * configurable so tests can feed a fake file.
 */
#ifndef FLINCH_HOST_CPU_H
#define FLINCH_HOST_CPU_H

#define HOST_CPU_DEFAULT_PATH "/proc/stat"

struct host_cpu {
    int fd;
    char path[4096];
    unsigned long long prev_busy, prev_total;
    int have_prev;
    int warned;
};

/* Parses the "cpu ..." line at the start of text. Returns 0, or -1. */
int host_cpu_parse(const char *text, unsigned long long *busy, unsigned long long *total);

/* Opens path (NULL: /proc/stat) and takes the first reading. Returns 0, or
 * -1 after a warning (the column then stays empty). */
int host_cpu_open(struct host_cpu *h, const char *path);

/* Busy % since the previous read. Returns 0, or -1 when unavailable (no
 * file, unparsable, or no time has passed). */
int host_cpu_read(struct host_cpu *h, double *busy_pct);

void host_cpu_close(struct host_cpu *h);

#endif
