/*
 * proc_watch.c — CPU time and scheduler state of one process (see
 * proc_watch.h). It owns nothing but the process's pid and its identity
 * (start time); it opens /proc files per read and keeps no descriptors, so
 * there is nothing to close.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fd_budget.h"
#include "proc_watch.h"

/* Reads a small /proc file whole into buf (NUL-terminated); path is
 * relative to dir_fd (or AT_FDCWD). -1 with errno. */
ssize_t proc_read_small_file(int dir_fd, const char *path, char *buf, size_t size)
{
    int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < size) {
        ssize_t n = read(fd, buf + got, size - 1 - got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

/*
 * /proc/PID/stat is "pid (comm) S ppid ...". comm is the process's own
 * choice of up to 16 bytes and may hold spaces and parentheses, so the
 * fields are found after the LAST ')'. Returns the state letter and the
 * start time (field 22, clock ticks since boot), or -1 with errno when the
 * process is gone (ENOENT/ESRCH).
 */
static int read_stat(pid_t pid, char *state, unsigned long long *start_ticks)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    ssize_t n = proc_read_small_file(AT_FDCWD, path, buf, sizeof buf);
    if (n < 0)
        return -1;
    char *paren = strrchr(buf, ')');
    if (n == 0 || !paren || paren[1] != ' ' || paren[2] == '\0') {
        errno = ESRCH;              /* torn down while we read it */
        return -1;
    }
    *state = paren[2];
    /* skip fields 3..21: state and the 18 after it */
    char *p = paren + 2;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p) {
            errno = ESRCH;
            return -1;
        }
        p++;
    }
    *start_ticks = strtoull(p, NULL, 10);
    return 0;
}

/*
 * Fallback when the process CPU clock is unavailable: the first field of
 * each thread's schedstat is its run time in ns (CONFIG_SCHEDSTATS-free
 * since 4.x; absent on some kernels, then this fails).
 */
static int read_schedstat_sum(pid_t pid, int64_t *cpu_ns)
{
    char dir_path[64];
    snprintf(dir_path, sizeof dir_path, "/proc/%d/task", (int)pid);
    DIR *dir = opendir(dir_path);
    if (!dir)
        return -1;
    int64_t sum = 0;
    int threads = 0;
    struct dirent *ent;
    while ((ent = readdir(dir)) != NULL) {
        if (ent->d_name[0] < '0' || ent->d_name[0] > '9')
            continue;
        char path[300], buf[128];
        snprintf(path, sizeof path, "%s/schedstat", ent->d_name);
        if (proc_read_small_file(dirfd(dir), path, buf, sizeof buf) <= 0)
            continue;               /* thread exited meanwhile */
        sum += strtoll(buf, NULL, 10);
        threads++;
    }
    closedir(dir);
    if (threads == 0) {
        errno = ESRCH;
        return -1;
    }
    *cpu_ns = sum;
    return 0;
}

static int read_cpu_ns(struct proc_watch *w, int64_t *cpu_ns)
{
    if (w->have_clock) {
        struct timespec ts;
        if (clock_gettime((clockid_t)w->clock_id, &ts) != 0)
            return -1;              /* EINVAL once the process is reaped */
        *cpu_ns = (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
        return 0;
    }
    return read_schedstat_sum(w->pid, cpu_ns);
}

int proc_watch_open(struct proc_watch *w, pid_t pid)
{
    memset(w, 0, sizeof *w);
    w->pid = pid;
    if (pid <= 0) {
        errno = ESRCH;
        return -1;
    }
    char state;
    if (read_stat(pid, &state, &w->start_ticks) != 0) {
        errno = ESRCH;
        return -1;
    }
    clockid_t clock;
    struct timespec ts;
    if (clock_getcpuclockid(pid, &clock) == 0 && clock_gettime(clock, &ts) == 0) {
        w->have_clock = 1;
        w->clock_id = (int)clock;
    }
    int64_t cpu_ns;
    if (read_cpu_ns(w, &cpu_ns) == 0)
        w->last_cpu_ns = cpu_ns;
    return 0;
}

/*
 * The CPU clock is read first and /proc/PID/stat second: if the stat file
 * still shows the same start time afterwards, the clock read was of the
 * process we opened (a pid is only reused after its process is reaped), so
 * a reused pid never leaks a stranger's CPU time into the column. A zombie
 * (exited, not yet reaped — typical for the command flinch record wraps) is
 * reported as exited, with the CPU time it ended with.
 */
int proc_watch_read(struct proc_watch *w, int64_t *cpu_ns, char *state)
{
    if (w->exited) {
        *cpu_ns = w->last_cpu_ns;
        *state = 'X';
        return 1;
    }
    int64_t now_cpu;
    int cpu_ok = read_cpu_ns(w, &now_cpu) == 0;
    int cpu_short = !cpu_ok && fd_budget_exhausted(errno);
    char now_state;
    unsigned long long start_ticks;
    int stat_rc = read_stat(w->pid, &now_state, &start_ticks);
    if (cpu_short || (stat_rc != 0 && errno != ENOENT && errno != ESRCH)) {
        /* not read (no descriptor left, or another error): nothing is
         * known this time, which is not an exit */
        *cpu_ns = w->last_cpu_ns;
        *state = '?';
        return -1;
    }
    int stat_ok = stat_rc == 0 && start_ticks == w->start_ticks;

    if (stat_ok && cpu_ok && now_cpu >= w->last_cpu_ns)
        w->last_cpu_ns = now_cpu;
    if (!stat_ok || !cpu_ok || now_state == 'Z' || now_state == 'X' || now_state == 'x') {
        w->exited = 1;
        *cpu_ns = w->last_cpu_ns;
        *state = 'X';
        return 1;
    }
    *cpu_ns = w->last_cpu_ns;
    *state = now_state;
    return 0;
}
