/*
 * cgroup_cpu.h — CPU throttling of the traced process's cgroup (cgroup v2).
 *
 * Owns finding the cgroup of the process flinch watches (--pid, or the
 * command it wraps) from /proc/PID/cgroup's "0::PATH" line under the
 * cgroup2 mount (/proc/self/mountinfo; --cgroup-root for tests), and
 * reading its cpu.stat (usage_usec, nr_periods, nr_throttled,
 * throttled_usec) and cpu.max. A cgroup with a CPU limit (cpu.max QUOTA
 * PERIOD) whose quota runs out is throttled for the rest of each period:
 * its threads are runnable but get no CPU, which from /proc looks like
 * idling. The recorder writes the counters as EVENT rows (no new columns):
 * one at the start, then one whenever nr_throttled or throttled_usec moved
 * (checked every tick and at the stop), so each value holds until the next
 * row (README, "The process behind the pause").
 */
#ifndef FLINCH_CGROUP_CPU_H
#define FLINCH_CGROUP_CPU_H

#include <stddef.h>
#include <sys/types.h>

#include "trace_event.h"           /* EVENT_CGROUP_CPU */

struct cgroup_cpu {
    int fd;                       /* cpu.stat, kept open; -1 none */
    char path[512];               /* the cgroup, as in /proc/PID/cgroup ("/" the root) */
    char cpu_max[48];             /* "QUOTA/PERIOD" or "max/PERIOD"; "" unreadable */
    unsigned long long usage_usec, nr_periods, nr_throttled, throttled_usec;
    unsigned long long said_nr, said_usec;   /* last values written */
};

/* Finds pid's cgroup v2 and opens its cpu.stat. root: the cgroup2 mount
 * (NULL: found in /proc/self/mountinfo, else /sys/fs/cgroup). 0, or -1
 * when there is none with throttling counters (no cgroup v2, or its cpu
 * controller is off): nothing is recorded then. */
int cgroup_cpu_open(struct cgroup_cpu *c, pid_t pid, const char *root);
/* Reads cpu.stat. 1 when throttling moved since the last label (write
 * one), 0 when not, -1 when unreadable this time (a half-written test file). */
int cgroup_cpu_read(struct cgroup_cpu *c);
/* The EVENT label of the last reading; FIRST adds the cgroup and its limit. */
void cgroup_cpu_label(struct cgroup_cpu *c, int first, char *buf, size_t cap);
void cgroup_cpu_close(struct cgroup_cpu *c);

#endif
