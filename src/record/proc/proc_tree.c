/*
 * proc_tree.c — see proc_tree.h. Everything is read from /proc per tick;
 * no descriptor is kept open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "proc_tree.h"
#include "proc_watch.h"

#define SCAN_EVERY_NS (1000 * 1000000LL)
#define THREADS_EVERY_NS (100 * 1000000LL)

static ssize_t read_file(const char *path, char *buf, size_t size)
{
    return proc_read_small_file(AT_FDCWD, path, buf, size);
}

struct pstat {
    char state;
    pid_t ppid;
    unsigned long long utime, stime, cutime, cstime, start;
};

/* /proc/PID/stat, fields after the last ')' (comm may hold anything).
 * 0; -1 when the process is gone; -2 when the file could not be read for
 * another reason (out of descriptors: EMFILE, ENFILE), which says nothing
 * about the process. */
static int read_pstat(pid_t pid, struct pstat *s)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    ssize_t n = read_file(path, buf, sizeof buf);
    if (n < 0 && errno != ENOENT && errno != ESRCH)
        return -2;
    if (n <= 0)
        return -1;
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return -1;
    p += 2;
    unsigned long long f[21];     /* fields 3..22 */
    s->state = *p;
    p++;
    for (int i = 4; i <= 22; i++) {
        char *end;
        f[i - 3] = strtoull(p, &end, 10);
        if (end == p)
            return -1;
        p = end;
    }
    s->ppid = (pid_t)f[4 - 3];
    s->utime = f[14 - 3];
    s->stime = f[15 - 3];
    s->cutime = f[16 - 3];
    s->cstime = f[17 - 3];
    s->start = f[22 - 3];
    return 0;
}

static int64_t tick_ns(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? NS_PER_SEC / hz : 10000000;
}

static int64_t rusage_children_ns(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
        return 0;
    return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NS_PER_SEC
           + ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static int find(const struct proc_tree *t, pid_t pid)
{
    for (int i = 0; i < t->nmember; i++)
        if (t->member[i].pid == pid)
            return i;
    return -1;
}

static void add_member(struct proc_tree *t, pid_t pid)
{
    if (pid <= 0 || t->nmember == PROC_TREE_MAX || find(t, pid) >= 0)
        return;
    struct proc_member *m = &t->member[t->nmember++];
    memset(m, 0, sizeof *m);
    m->pid = pid;
}

/* Children of each member's main thread (CONFIG_PROC_CHILDREN). */
static void discover_children(struct proc_tree *t)
{
    for (int i = 0; i < t->nmember; i++) {
        char path[80], buf[4096];
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)t->member[i].pid,
                 (int)t->member[i].pid);
        if (read_file(path, buf, sizeof buf) <= 0)
            continue;
        for (char *p = buf; *p;) {
            char *end;
            long c = strtol(p, &end, 10);
            if (end == p)
                break;
            add_member(t, (pid_t)c);
            p = end;
        }
    }
}

/* Every process whose parent is a member (children forked by other threads). */
static void discover_scan(struct proc_tree *t)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
        struct pstat s;
        if (find(t, pid) < 0 && read_pstat(pid, &s) == 0 && find(t, s.ppid) >= 0)
            add_member(t, pid);
    }
    closedir(d);
}

int proc_tree_open(struct proc_tree *t, pid_t pid, int own_children)
{
    memset(t, 0, sizeof *t);
    t->root = pid;
    t->own_children = own_children;
    t->top_cores = NAN;
    struct pstat s;
    if (read_pstat(pid, &s) != 0) {
        errno = ESRCH;
        return -1;
    }
    add_member(t, pid);
    t->member[0].start_ticks = s.start;
    t->rusage_base_ns = own_children ? rusage_children_ns() : 0;
    t->last_scan_ns = INT64_MIN;
    return 0;
}

static int64_t process_cpu_ns(pid_t pid, const struct pstat *s, int64_t tk)
{
    clockid_t clk;
    struct timespec ts;
    if (clock_getcpuclockid(pid, &clk) == 0 && clock_gettime(clk, &ts) == 0)
        return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
    return (int64_t)(s->utime + s->stime) * tk;
}

static int cmp_tid(const void *a, const void *b)
{
    const struct thread_cpu *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The busiest thread since the previous pass: per-thread run time from
 * /proc/PID/task/TID/schedstat (ns). */
static void thread_pass(struct proc_tree *t, int64_t now_ns)
{
    if (!t->thr) {
        t->thr = calloc(PROC_TREE_THREADS_MAX, sizeof *t->thr);
        t->thr_next = calloc(PROC_TREE_THREADS_MAX, sizeof *t->thr_next);
        if (!t->thr || !t->thr_next)
            return;
    }
    int n = 0;
    for (int i = 0; i < t->nmember && n < PROC_TREE_THREADS_MAX; i++) {
        char path[80];
        snprintf(path, sizeof path, "/proc/%d/task", (int)t->member[i].pid);
        DIR *d = opendir(path);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL && n < PROC_TREE_THREADS_MAX) {
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            char p2[300], buf[128];
            snprintf(p2, sizeof p2, "/proc/%d/task/%s/schedstat", (int)t->member[i].pid, e->d_name);
            if (read_file(p2, buf, sizeof buf) <= 0)
                continue;
            t->thr_next[n].tid = (pid_t)strtol(e->d_name, NULL, 10);
            t->thr_next[n].ns = strtoll(buf, NULL, 10);
            n++;
        }
        closedir(d);
    }
    qsort(t->thr_next, (size_t)n, sizeof *t->thr_next, cmp_tid);
    if (t->thr_t_ns > 0 && now_ns > t->thr_t_ns) {
        int64_t best = -1;
        pid_t best_tid = 0;
        for (int i = 0, j = 0; i < n; i++) {
            while (j < t->nthr && t->thr[j].tid < t->thr_next[i].tid)
                j++;
            /* a thread born since the last pass counts from 0 */
            int64_t prev = j < t->nthr && t->thr[j].tid == t->thr_next[i].tid ? t->thr[j].ns : 0;
            int64_t dlt = t->thr_next[i].ns - prev;
            if (dlt > best) {
                best = dlt;
                best_tid = t->thr_next[i].tid;
            }
        }
        if (best >= 0) {
            t->top_cores = (double)best / (double)(now_ns - t->thr_t_ns);
            char path[64], comm[32];
            snprintf(path, sizeof path, "/proc/%d/comm", (int)best_tid);   /* any TID resolves */
            if (read_file(path, comm, sizeof comm) <= 0)
                snprintf(comm, sizeof comm, "?");
            comm[strcspn(comm, "\n")] = '\0';
            snprintf(t->top_name, sizeof t->top_name, "%d %s", (int)best_tid, comm);
        }
    }
    struct thread_cpu *sw = t->thr;
    t->thr = t->thr_next;
    t->thr_next = sw;
    t->nthr = n;
    t->thr_t_ns = now_ns;
}

void proc_tree_read(struct proc_tree *t, int64_t now_ns, int64_t *cpu_ns, int *procs)
{
    (void)now_ns;
    discover_children(t);
    int64_t tk = tick_ns(), sum = 0;
    pid_t self = getpid();
    /* Parents come before their children (found through them), so a child
     * reaped during this loop is counted in neither or in its parent's
     * cutime only after its own reading is gone: never twice. */
    for (int i = 0; i < t->nmember; i++) {
        struct proc_member *m = &t->member[i];
        struct pstat s;
        int rc = read_pstat(m->pid, &s);
        if (rc == -2) {
            m->seen = 1;               /* unread, not gone: its last reading counts */
            sum += m->own_ns + m->reaped_ns;
            continue;
        }
        m->seen = rc == 0 && (m->start_ticks == 0 || s.start == m->start_ticks);
        if (!m->seen)
            continue;
        m->start_ticks = s.start;
        m->ppid = s.ppid;
        m->own_ns = process_cpu_ns(m->pid, &s, tk);
        m->reaped_ns = (int64_t)(s.cutime + s.cstime) * tk;
        sum += m->own_ns + m->reaped_ns;
    }
    /* A member gone with its parent outside the tree took its time there:
     * keep its last reading. */
    for (int i = 0; i < t->nmember; i++) {
        const struct proc_member *m = &t->member[i];
        if (m->seen)
            continue;
        int parent = find(t, m->ppid);
        int parent_in = (parent >= 0 && t->member[parent].seen) || (t->own_children && m->ppid == self);
        if (!parent_in)
            t->departed_ns += m->own_ns + m->reaped_ns;
    }
    int kept = 0;
    for (int i = 0; i < t->nmember; i++)
        if (t->member[i].seen)
            t->member[kept++] = t->member[i];
    t->nmember = kept;
    int64_t total = t->departed_ns + sum;
    if (t->own_children)
        total += rusage_children_ns() - t->rusage_base_ns;
    if (total > t->total_ns)
        t->total_ns = total;
    *cpu_ns = t->total_ns;
    *procs = t->nmember;
}

void proc_tree_slow(struct proc_tree *t, int64_t now_ns)
{
    if (t->last_scan_ns == INT64_MIN || now_ns - t->last_scan_ns >= SCAN_EVERY_NS) {
        discover_scan(t);
        t->last_scan_ns = now_ns;
    }
    if (t->nmember > 0 && (t->thr_t_ns == 0 || now_ns - t->thr_t_ns >= THREADS_EVERY_NS))
        thread_pass(t, now_ns);
}

void proc_tree_close(struct proc_tree *t)
{
    free(t->thr);
    free(t->thr_next);
    t->thr = t->thr_next = NULL;
}
