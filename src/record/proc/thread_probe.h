/*
 * thread_probe.h — what one thread of a traced process is doing now: its
 * scheduler state, the kernel function it sleeps in (wchan), the system
 * call it is in, and the kind of file behind that call's descriptor(s).
 *
 * Owns reading and parsing /proc/PID/task/TID/{stat,wchan,syscall},
 * /proc/PID/fd and /proc/PID/fdinfo, and nothing about time or files: the
 * thread sampler calls it for every thread on every sweep. Every text it
 * returns is one token (no spaces), ready for the threads file.
 */
#ifndef FLINCH_THREAD_PROBE_H
#define FLINCH_THREAD_PROBE_H

#include <sys/types.h>

#include "syscall_table.h"

#define THREAD_NAME_MAX 72   /* comm (15 bytes) escaped as \xHH at worst */
#define THREAD_TOKEN_MAX 48  /* wchan, call and fd kind tokens */

struct thread_state {
    char name[THREAD_NAME_MAX];   /* escaped comm: bytes outside ! to ~ and '\' as \xHH */
    char state;                   /* R S D T t Z X I P ... from stat */
    char wchan[THREAD_TOKEN_MAX]; /* kernel function, "-" when none or hidden */
    char call[THREAD_TOKEN_MAX];  /* syscall name, "sys_N", "-" none (running or a fault), "?" unreadable */
    char fd[THREAD_TOKEN_MAX];    /* socket pipe file nvidia dev tty eventfd timerfd signalfd
                                   * epoll anon other; "-" none; "?" unreadable */
};

/* The files of one thread the sampler keeps open between sweeps: pread on
 * an open /proc file costs a third of open+read+close. Only threads the
 * sampler's descriptor budget admits keep them (keep); for the others each
 * read opens the file by path, reads it and closes it. -1: not open. */
struct thread_files {
    int keep;                           /* 1: open files stay open between probes */
    int stat_fd, sched_fd, wchan_fd, sys_fd;
    unsigned long long run_ns, slices;  /* from schedstat at the last probe */
    int have_sched;
    int quiet_probes;                   /* probes since stat was last read */
    int ran;                            /* the last probe found it had run (or could not tell) */
};

void thread_files_init(struct thread_files *f);
void thread_files_close(struct thread_files *f);

/* What could not be read for a process; the sampler says each once. */
#define PROBE_NO_SYSCALL 0x1   /* syscall file refused (ptrace permission) */
#define PROBE_NO_FD      0x2   /* fd links refused (another user's process) */
#define PROBE_NO_WCHAN   0x4   /* wchan missing or always "0" */
#define PROBE_NO_SYSCALL_FILE 0x8 /* no syscall file (kernel without CONFIG_HAVE_ARCH_TRACEHOOK) */

/* thread_probe's answers other than 0. Only a missing file (ENOENT,
 * ESRCH, or an empty stat) means the thread is gone; a read that failed
 * for lack of descriptors or another error says nothing about it. */
#define THREAD_PROBE_GONE   (-1)
#define THREAD_PROBE_NO_FD  (-2)   /* EMFILE, ENFILE: nothing read */
#define THREAD_PROBE_FAILED (-3)   /* another read error: nothing read */

/* Reads thread tid of process pid under proc_root ("/proc"). *denied holds
 * PROBE_* bits already known for this process (files not tried again) and
 * gains those found now. prev: the thread's state at the last probe with
 * these files, or NULL.
 *
 * The cost is kept down by schedstat, the cheapest file: a thread that has
 * not run since the last probe (run time and slice count unchanged) cannot
 * have changed its wait channel, system call or descriptors, so only stat
 * is read again (for its state: it may have been woken and be waiting for
 * a CPU); and while it was asleep and has not run, not even stat, except
 * on every tenth probe. So a thread woken but kept off the CPUs may show
 * its old wait for up to ten sweeps; with a free CPU that lasts
 * microseconds. An idle thread costs one pread of schedstat.
 * 0 with *out filled, or a THREAD_PROBE_* code (then *out means nothing). */
int thread_probe(const char *proc_root, pid_t pid, pid_t tid, enum syscall_arch arch,
                 unsigned *denied, struct thread_files *files, const struct thread_state *prev,
                 struct thread_state *out);

/* Parsers, exposed for the unit tests. */
/* "TID (comm) S ..." -> escaped name and state; -1 when malformed. */
int thread_parse_stat(const char *buf, char *name, size_t cap, char *state);
/* "/proc/.../fd/N" link target -> kind token. */
const char *thread_fd_kind(const char *link);
/* "NR A0 A1 A2 A3 A4 A5 SP PC" -> 1 with nr and args; 0 for "running" or
 * "-1 SP PC" (not in a system call); -1 when malformed. */
int thread_parse_syscall(const char *buf, long *nr, unsigned long long args[6]);
/* The stronger of two kinds for a wait on several descriptors: socket,
 * nvidia, pipe (and eventfd, signalfd), file, timerfd, then the rest. */
const char *thread_fd_kind_max(const char *a, const char *b);

#endif
