/* proc_runq.c — the tree's run-queue delay from per-thread schedstat; see proc_runq.h. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "proc_runq.h"
#include "proc_watch.h"

#define RUNQ_COST_FACTOR 50          /* a pass waits 50x its own duration: <= 2% of a core */
#define RUNQ_THREADS_MAX 16384       /* threads followed at once */

static int cmp_tid(const void *a, const void *b)
{
    const struct runq_thread *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

/* "RUN_NS WAIT_NS SLICES": the second field. -1 when unreadable. */
static int read_delay(int dir_fd, const char *tid, int64_t *ns)
{
    char path[300], buf[128];
    snprintf(path, sizeof path, "%s/schedstat", tid);
    if (proc_read_small_file(dir_fd, path, buf, sizeof buf) <= 0)
        return -1;
    char *p = buf, *end;
    strtoll(p, &end, 10);
    if (end == p)
        return -1;
    p = end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0)
        return -1;
    *ns = v;
    return 0;
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
            int64_t ns;
            if (read_delay(dirfd(d), e->d_name, &ns) != 0)
                continue;             /* exited meanwhile, or no schedstat */
            q->next[m].tid = (pid_t)strtol(e->d_name, NULL, 10);
            q->next[m].ns = ns;
            m++;
        }
        closedir(d);
    }
    return m;
}

int proc_runq_read(struct proc_runq *q, const pid_t *pids, int n, int64_t now_ns, int64_t *total_ns)
{
    if (q->unavailable)
        return -1;
    if (q->passes > 0 && now_ns < q->next_pass_ns)
        return 0;
    int64_t t0 = mono_ns();
    int m = gather(q, pids, n);
    if (m == 0 && q->passes == 0 && n > 0) {
        /* the first pass found threads (the tree is live) but no schedstat */
        q->unavailable = 1;
        return -1;
    }
    qsort(q->next, (size_t)m, sizeof *q->next, cmp_tid);
    /* Increments, not the sum: see proc_runq.h. The first pass is the base
     * (the delay before the recording began is not the recording's). */
    for (int i = 0, j = 0; q->passes > 0 && i < m; i++) {
        while (j < q->nthr && q->thr[j].tid < q->next[i].tid)
            j++;
        int64_t prev = j < q->nthr && q->thr[j].tid == q->next[i].tid ? q->thr[j].ns : 0;
        if (q->next[i].ns > prev)
            q->total_ns += q->next[i].ns - prev;
    }
    struct runq_thread *sw = q->thr;
    q->thr = q->next;
    q->next = sw;
    q->nthr = m;
    q->passes++;
    q->next_pass_ns = now_ns + RUNQ_COST_FACTOR * (mono_ns() - t0);
    *total_ns = q->total_ns;
    return 1;
}

void proc_runq_free(struct proc_runq *q)
{
    free(q->thr);
    free(q->next);
    memset(q, 0, sizeof *q);
}
