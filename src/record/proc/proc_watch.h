/*
 * proc_watch.h — CPU time and state of one process (--pid, or the command
 * flinch record wraps), read each tick.
 *
 * CPU time is the sum over all threads in ns (clock_getcpuclockid, falling
 * back to /proc/PID/task/STAR/schedstat), not the 10 ms tick counters of
 * /proc/PID/stat, so a 724 ms window sees the real number of core-ms.
 */
#ifndef FLINCH_PROC_WATCH_H
#define FLINCH_PROC_WATCH_H

#include <stdint.h>
#include <sys/types.h>

struct proc_watch {
    pid_t pid;
    int exited;        /* set once the process is gone; stays set */
    /* private */
    int have_clock;
    int clock_id;      /* clockid_t, kept as int to keep <time.h> out */
    int64_t last_cpu_ns;            /* last good read, reported after exit */
    unsigned long long start_ticks; /* /proc/PID/stat starttime: spots pid reuse */
};

/* Reads a small /proc file whole into buf (NUL-terminated); path is
 * relative to dir_fd (or AT_FDCWD). Bytes read, or -1 with errno. */
ssize_t proc_read_small_file(int dir_fd, const char *path, char *buf, size_t size);

/* 0 on success; -1 with errno (ESRCH: no such process). */
int proc_watch_open(struct proc_watch *w, pid_t pid);

/* Reads CPU time (ns, all threads) and state ('R', 'S', 'D', 'Z'...).
 * Returns 0, or 1 when the process has exited (state 'X', cpu_ns unchanged
 * from the last good read, w->exited set), or -1 when it could not be read
 * this time for another reason than its being gone (out of descriptors:
 * EMFILE, ENFILE; only ENOENT/ESRCH mean gone): nothing is known, the
 * process is not taken for exited. */
int proc_watch_read(struct proc_watch *w, int64_t *cpu_ns, char *state);

#endif
