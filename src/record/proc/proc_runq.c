/* proc_runq.c — the tree's run-queue delay from per-thread schedstat and state; see proc_runq.h. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proc_runq.h"
#include "proc_watch.h"

#define RUNQ_COST_FACTOR 50          /* a pass waits 50x its own CPU time: <= 2% of a core */
#define RUNQ_THREADS_MAX 16384       /* threads followed at once */

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts = { 0, 0 };
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_tid(const void *a, const void *b)
{
    const struct runq_thread *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

/* "RUN_NS WAIT_NS SLICES" into t. -1 when unreadable. */
static int read_schedstat(int dir_fd, const char *tid, struct runq_thread *t)
{
    char path[300], buf[128];
    snprintf(path, sizeof path, "%s/schedstat", tid);
    if (proc_read_small_file(dir_fd, path, buf, sizeof buf) <= 0)
        return -1;
    long long v[3];
    char *p = buf, *end;
    for (int i = 0; i < 3; i++) {
        v[i] = strtoll(p, &end, 10);
        if (end == p || v[i] < 0)
            return -1;
        p = end;
    }
    t->exec_ns = v[0];
    t->delay_ns = v[1];
    t->slices = v[2];
    return 0;
}

/* The state letter and utime + stime of /proc/.../TID/stat into t; not
 * runnable and no ticks (-1) when unreadable. */
static void read_stat(int dir_fd, const char *tid, struct runq_thread *t)
{
    char path[300], buf[1024];
    t->runnable = 0;
    t->ticks = -1;
    snprintf(path, sizeof path, "%s/stat", tid);
    if (proc_read_small_file(dir_fd, path, buf, sizeof buf) <= 0)
        return;
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ' || p[2] == '\0')
        return;
    char state = p[2];
    p += 2;
    for (int field = 3; field < 14 && p; field++) {   /* to field 14, utime */
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    char *end;
    long long ut = p ? strtoll(p, &end, 10) : -1;
    long long st = p && end != p ? strtoll(end, &p, 10) : -1;
    if (ut < 0 || st < 0)
        return;
    t->runnable = state == 'R';
    t->ticks = ut + st;
}

/* The threads of pids into q->next (unsorted); their count. */
static int gather(struct proc_runq *q, const pid_t *pids, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)pids[i]);
        DIR *d = opendir(path);
        if (!d)
            continue;                 /* gone since the tree was read */
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            if (m == q->cap) {
                int cap = q->cap ? q->cap * 2 : 64;
                if (cap > RUNQ_THREADS_MAX)
                    break;
                struct runq_thread *a = realloc(q->thr, sizeof *a * (size_t)cap);
                if (a)
                    q->thr = a;
                struct runq_thread *b = a ? realloc(q->next, sizeof *b * (size_t)cap) : NULL;
                if (!b)
                    break;
                q->next = b;
                q->cap = cap;
            }
            struct runq_thread *t = &q->next[m];
            memset(t, 0, sizeof *t);
            /* stat first: a thread runnable there and not run by the
             * schedstat read just after was runnable at that read too */
            read_stat(dirfd(d), e->d_name, t);
            if (read_schedstat(dirfd(d), e->d_name, t) != 0)
                continue;             /* exited meanwhile, or no schedstat */
            t->tid = (pid_t)strtol(e->d_name, NULL, 10);
            m++;
        }
        closedir(d);
    }
    return m;
}

/* A thread's wait, reported and in progress. The kernel adds a thread's
 * run-queue delay to schedstat only when the wait ends (the thread gets a
 * CPU, or moves to another CPU's queue), so a thread kept off the CPUs
 * shows nothing until it runs: a niced spinner on a saturated host waits
 * 100-300 ms between slices of a few ms, and its delay came in jumps that
 * analyze could only smear back over the time before them (3 starved
 * threads read as about 1 core waiting, in bursts). But a runnable thread
 * is either running, and its CPU time grows, or waiting: a thread in state
 * R at two passes whose CPU time (schedstat's, and stat's utime + stime)
 * and slice count did not move between them never ran in between, so it
 * waited the whole time (it cannot have slept: only a running thread goes
 * to sleep). Its reported delay must not have moved either: a waiting
 * thread moved to another CPU's queue has its wait so far reported and
 * starts a new one (held again from this pass). That wait is counted at
 * the pass that sees it, as the held
 * time since the first pass of the run, once it is longer than a tick
 * (RUNQ_HOLD_MIN_NS: a thread running all along has had its CPU time
 * updated by then). When the kernel reports the wait, only what exceeds
 * the part already counted is added: the thread's count is the running
 * maximum of (delay reported since the base + held time), never more than
 * it really waited, so the total stays monotonic and is not counted twice.
 * A thread caught in R at one pass only (a short wake-up, a mark client)
 * is not held: its wait counts when reported, as before. On a loaded host
 * this is the point: the more the host is contended, the longer held runs
 * last and the closer the count follows the wait. */
int64_t proc_runq_step(const struct runq_thread *prev, int first, struct runq_thread *cur, int64_t now_ns)
{
    int held = prev && prev->runnable && cur->runnable && prev->held_since_ns > 0
               && cur->exec_ns == prev->exec_ns && cur->slices == prev->slices
               && cur->ticks == prev->ticks && cur->ticks >= 0 && cur->delay_ns == prev->delay_ns;
    cur->held_since_ns = held ? prev->held_since_ns : cur->runnable ? now_ns : 0;
    /* base: the first pass's delay was before the recording; a thread born
     * since the last pass has all of its own */
    cur->base_ns = prev ? prev->base_ns : first ? cur->delay_ns : 0;
    cur->counted_ns = prev ? prev->counted_ns : 0;
    if (first && !prev)
        return 0;
    int64_t reported = cur->delay_ns - cur->base_ns;
    int64_t hold = held ? now_ns - cur->held_since_ns : 0;
    int64_t v = reported + (hold >= RUNQ_HOLD_MIN_NS ? hold : 0);
    if (v <= cur->counted_ns)
        return 0;
    int64_t add = v - cur->counted_ns;
    cur->counted_ns = v;
    return add;
}

/* See proc_runq.h; proc_runq_step for the wait in progress. */
int proc_runq_read(struct proc_runq *q, const pid_t *pids, int n, int64_t now_ns, int64_t *total_ns)
{
    if (q->unavailable)
        return -1;
    if (q->passes > 0 && now_ns < q->next_pass_ns)
        return 0;
    int64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    int m = gather(q, pids, n);
    int64_t real = clock_ns(CLOCK_MONOTONIC);  /* not the recorder's clock: the held time is real */
    if (m == 0 && q->passes == 0 && n > 0) {
        /* the first pass found threads (the tree is live) but no schedstat */
        q->unavailable = 1;
        return -1;
    }
    qsort(q->next, (size_t)m, sizeof *q->next, cmp_tid);
    for (int i = 0, j = 0; i < m; i++) {
        while (j < q->nthr && q->thr[j].tid < q->next[i].tid)
            j++;
        const struct runq_thread *prev = j < q->nthr && q->thr[j].tid == q->next[i].tid ? &q->thr[j] : NULL;
        q->total_ns += proc_runq_step(prev, q->passes == 0, &q->next[i], real);
    }
    struct runq_thread *sw = q->thr;
    q->thr = q->next;
    q->next = sw;
    q->nthr = m;
    q->passes++;
    q->next_pass_ns = now_ns + RUNQ_COST_FACTOR * (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0);
    *total_ns = q->total_ns;
    return 1;
}

void proc_runq_free(struct proc_runq *q)
{
    free(q->thr);
    free(q->next);
    memset(q, 0, sizeof *q);
}
