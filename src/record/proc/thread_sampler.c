/*
 * thread_sampler.c — the thread-state sampler (see thread_sampler.h).
 *
 * Each sweep takes the process tree the recorder's tree watcher last found
 * (proc_tree.h, fed through thread_sampler_set_tree), probes every thread
 * (thread_probe), and writes only what changed since the previous sweep:
 * an `S` line with the sweep's time, then `N` for a thread that appeared
 * or was renamed, `T` for a thread whose state changed and `X` for one
 * that is gone. A sweep is built in memory and written with one write(2),
 * so a reader never sees half of one. The previous sweep's threads are
 * kept in an open-addressing table by tid, so a sweep is linear in the
 * number of threads.
 *
 * What cannot be read is said once per kind (a `!` line in the file and a
 * warning on stderr), and the probe stops trying it for that process. A
 * write error stops the sampler after one warning; the trace goes on.
 *
 * Descriptors: only the first keep_max threads keep their /proc files
 * open (fd_budget.h leaves FD_BUDGET_RESERVE to the rest of the
 * recorder); the others are opened, read and closed every sweep. A thread
 * that cannot be read for lack of descriptors (or another error than
 * ENOENT/ESRCH) is skipped, never reported gone: it keeps its last state
 * and is counted (thread_skips.h). A spare descriptor lets the task
 * directory be listed even then, so the new threads are counted too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "fd_budget.h"
#include "thread_probe.h"
#include "thread_sampler.h"
#include "thread_skips.h"
#include "threads_file.h"
#include "threads_out.h"

#define MAX_PIDS 4096

struct known_thread {
    pid_t tid, pid;
    struct thread_state st;
    struct thread_files files;   /* moved from sweep to sweep; closed when the thread goes */
};

/* A process of the last sweep: what could not be read, and where its
 * threads are in old[]. */
struct pid_note { pid_t pid; unsigned denied; int start, count; };

struct thread_sampler {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
    int fd;
    char path[4096];
    char proc_root[256];
    pid_t root;
    int64_t interval_ns;
    enum syscall_arch arch;
    /* the previous sweep's threads, and this one's */
    struct known_thread *old, *cur;
    int nold, ncur;
    unsigned char *seen;         /* old[i] was probed in this sweep */
    int *index;                  /* open addressing over old[], -1 empty */
    int index_cap;
    struct pid_note notes[MAX_PIDS], new_notes[MAX_PIDS];
    int nnotes;
    unsigned said;               /* PROBE_* bits already reported */
    int said_too_many;
    pid_t pids[MAX_PIDS];        /* the tree for this sweep */
    int npids;
    pthread_mutex_t tree_lock;   /* guards fed[]: the recorder's latest tree */
    pid_t fed[MAX_PIDS];
    int nfed;                    /* -1: nothing fed yet */
    char *buf;
    size_t len, cap;
    int failed;
    long long sweeps;
    long keep_max, keepers;      /* threads allowed to keep files open, and keeping them */
    int spare;                   /* /dev/null, given up to list a task directory */
    struct thread_skips skips;
};

/* Closes a thread's files and gives back its place among the keepers. */
static void release_files(struct thread_sampler *s, struct thread_files *f)
{
    if (f->keep)
        s->keepers--;
    thread_files_close(f);
    f->keep = 0;
}

static void append(struct thread_sampler *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void append(struct thread_sampler *s, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < s->cap - s->len) {
            s->len += (size_t)n;
            return;
        }
        size_t cap = s->cap * 2;
        char *grown = realloc(s->buf, cap);
        if (!grown)
            return;              /* the line is dropped; flush reports nothing worse */
        s->buf = grown;
        s->cap = cap;
    }
}

static void flush(struct thread_sampler *s)
{
    size_t off = 0;
    while (!s->failed && off < s->len) {
        ssize_t n = write(s->fd, s->buf + off, s->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            diag_warn("%s: write error: %s; thread states stop here", s->path,
                      n < 0 ? strerror(errno) : "nothing written");
            s->failed = 1;
            break;
        }
        off += (size_t)n;
    }
    s->len = 0;
}

static int lookup_old(const struct thread_sampler *s, pid_t tid)
{
    if (!s->index_cap)
        return -1;
    for (unsigned h = (unsigned)tid * 2654435761u;; h++) {
        int i = s->index[h & (unsigned)(s->index_cap - 1)];
        if (i < 0 || s->old[i].tid == tid)
            return i;
    }
}

static void index_old(struct thread_sampler *s)
{
    for (int i = 0; i < s->index_cap; i++)
        s->index[i] = -1;
    for (int i = 0; i < s->nold; i++) {
        unsigned h = (unsigned)s->old[i].tid * 2654435761u;
        while (s->index[h & (unsigned)(s->index_cap - 1)] >= 0)
            h++;
        s->index[h & (unsigned)(s->index_cap - 1)] = i;
    }
}

static void say_once(struct thread_sampler *s, unsigned bits, pid_t pid)
{
    static const struct { unsigned bit; const char *what; } what[] = {
        { PROBE_NO_SYSCALL, "system calls unreadable (ptrace permission; Yama ptrace_scope or "
                            "another user): state and wait channel only" },
        { PROBE_NO_FD, "descriptors unreadable (another user's process): no file kinds" },
        { PROBE_NO_WCHAN, "no wait channel (kernel without wchan, or hidden)" },
        { PROBE_NO_SYSCALL_FILE, "system calls unreadable (kernel without "
                                 "/proc/PID/task/TID/syscall): state and wait channel only" },
    };
    for (size_t i = 0; i < sizeof what / sizeof what[0]; i++)
        if ((bits & what[i].bit) && !(s->said & what[i].bit)) {
            s->said |= what[i].bit;
            append(s, "! pid %d: %s\n", (int)pid, what[i].what);
            diag_warn("thread states: pid %d: %s", (int)pid, what[i].what);
        }
}

/* Probes one thread into the next slot of cur[]: o is its entry from the
 * last sweep (its files move over), or NULL for a new thread. 0; -1 when
 * the thread is gone; 1 when it could not be read (counted; a known
 * thread keeps its last state in cur[], a new one is left out). */
static int probe_one(struct thread_sampler *s, pid_t pid, pid_t tid, struct known_thread *o,
                     unsigned *denied)
{
    struct known_thread *k = &s->cur[s->ncur];
    k->tid = tid;
    k->pid = pid;
    if (o) {
        k->files = o->files;
        thread_files_init(&o->files);         /* moved */
    } else {
        thread_files_init(&k->files);
        k->files.keep = s->keepers < s->keep_max;
        s->keepers += k->files.keep;
    }
    int rc = thread_probe(s->proc_root, pid, tid, s->arch, denied, &k->files,
                          o ? &o->st : NULL, &k->st);
    if (rc == THREAD_PROBE_GONE) {
        release_files(s, &k->files);          /* exited meanwhile */
        return -1;
    }
    if (rc != 0) {
        thread_skips_add(&s->skips, rc == THREAD_PROBE_NO_FD ? SKIP_FD_LIMIT : SKIP_UNREADABLE);
        if (!o) {
            release_files(s, &k->files);
            return 1;
        }
        k->st = o->st;                        /* not gone: as last seen */
        k->files.ran = 1;                     /* unknown: list the task directory */
        s->ncur++;
        return 1;
    }
    if (!o || strcmp(o->st.name, k->st.name) != 0)
        append(s, "N %d %d %s\n", (int)tid, (int)pid, k->st.name);
    if (!o || o->st.state != k->st.state || strcmp(o->st.wchan, k->st.wchan) != 0 ||
        strcmp(o->st.call, k->st.call) != 0 || strcmp(o->st.fd, k->st.fd) != 0)
        append(s, "T %d %c %s %s %s\n", (int)tid, k->st.state, k->st.wchan, k->st.call,
               k->st.fd);
    s->ncur++;
    return 0;
}

/* Whether cur[] has room for one more thread; when not, that thread is
 * counted as skipped. */
static int room_for_one(struct thread_sampler *s)
{
    if (s->ncur < THREAD_SAMPLER_MAX_THREADS)
        return 1;
    thread_skips_add(&s->skips, SKIP_MAX_THREADS);
    if (!s->said_too_many) {
        s->said_too_many = 1;
        append(s, "! more than %d threads: the rest are not sampled\n", THREAD_SAMPLER_MAX_THREADS);
        diag_warn("thread states: more than %d threads; the rest are not sampled",
                  THREAD_SAMPLER_MAX_THREADS);
    }
    return 0;
}

/*
 * One process's threads. The threads known from the last sweep are probed
 * first; a thread is only created or ended by a thread of its process
 * that runs, so when none of them ran since the last sweep the thread
 * list cannot have changed and /proc/PID/task is not listed (listing it
 * costs as much as probing every thread). Otherwise the listing finds the
 * new threads; those probed already are skipped.
 */
static void probe_pid(struct thread_sampler *s, pid_t pid, const struct pid_note *last,
                      unsigned *denied)
{
    int changed = !last || last->count == 0;
    for (int i = last ? last->start : 0; last && i < last->start + last->count; i++) {
        if (!room_for_one(s)) {
            s->seen[i] = 2;                   /* counted, not gone: no X */
            changed = 1;
            continue;
        }
        int rc = probe_one(s, pid, s->old[i].tid, &s->old[i], denied);
        if (rc < 0) {
            changed = 1;
            continue;
        }
        s->seen[i] = 1;
        if (s->cur[s->ncur - 1].files.ran)
            changed = 1;
    }
    if (!changed)
        return;
    char path[300];
    snprintf(path, sizeof path, "%s/%d/task", s->proc_root, (int)pid);
    DIR *d = opendir(path);
    if (!d && fd_budget_exhausted(errno) && s->spare >= 0) {
        close(s->spare);                      /* its slot lists the directory */
        s->spare = -1;
        d = opendir(path);
    }
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            pid_t tid = (pid_t)atol(e->d_name);
            int i = lookup_old(s, tid);
            if (i >= 0 && s->seen[i])
                continue;                     /* probed or counted above */
            if (!room_for_one(s))
                continue;
            struct known_thread *o = i >= 0 && s->old[i].pid == pid ? &s->old[i] : NULL;
            if (probe_one(s, pid, tid, o, denied) >= 0 && o)
                s->seen[i] = 1;
        }
        closedir(d);
    }
    if (s->spare < 0)
        s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void sweep(struct thread_sampler *s, int final)
{
    int64_t now = mono_ns();
    pthread_mutex_lock(&s->tree_lock);
    if (s->nfed >= 0) {
        memcpy(s->pids, s->fed, sizeof s->pids[0] * (size_t)s->nfed);
        s->npids = s->nfed;
    }
    pthread_mutex_unlock(&s->tree_lock);
    append(s, "S %lld\n", (long long)now);
    thread_skips_begin(&s->skips);
    s->ncur = 0;
    memset(s->seen, 0, (size_t)s->nold);
    int nnew = 0;
    for (int p = 0; p < s->npids; p++) {
        const struct pid_note *last = NULL;
        for (int i = 0; i < s->nnotes && !last; i++)
            if (s->notes[i].pid == s->pids[p])
                last = &s->notes[i];
        unsigned denied = last ? last->denied : 0;
        int start = s->ncur;
        probe_pid(s, s->pids[p], last, &denied);
        say_once(s, denied, s->pids[p]);
        s->new_notes[nnew++] = (struct pid_note){ s->pids[p], denied, start, s->ncur - start };
    }
    memcpy(s->notes, s->new_notes, sizeof s->notes[0] * (size_t)nnew);
    s->nnotes = nnew;
    for (int i = 0; i < s->nold; i++) {
        if (!s->seen[i])
            append(s, "X %d\n", (int)s->old[i].tid);
        release_files(s, &s->old[i].files);
    }
    unsigned first = thread_skips_end(&s->skips, now, final);
    for (int r = 0; r < SKIP_REASONS; r++)
        if ((first & (1u << r)) && r != SKIP_MAX_THREADS) {   /* that one is said below */
            append(s, "! %s\n", thread_skip_text((enum thread_skip_reason)r));
            diag_warn("thread states: %s", thread_skip_text((enum thread_skip_reason)r));
        }
    struct known_thread *t = s->old;
    s->old = s->cur;
    s->cur = t;
    s->nold = s->ncur;
    index_old(s);
    s->sweeps++;
    flush(s);
}

static void *sampler_main(void *arg)
{
    struct thread_sampler *s = arg;
    int64_t next = mono_ns();
    pthread_mutex_lock(&s->lock);
    while (!s->stop && !s->failed) {
        pthread_mutex_unlock(&s->lock);
        sweep(s, 0);
        int64_t now = mono_ns();
        next += s->interval_ns;
        if (next < now)
            next = now + s->interval_ns;  /* fell behind: skip, never burst */
        struct timespec until = { (time_t)(next / NS_PER_SEC), (long)(next % NS_PER_SEC) };
        pthread_mutex_lock(&s->lock);
        while (!s->stop && mono_ns() < next)
            if (pthread_cond_timedwait(&s->wake, &s->lock, &until) == ETIMEDOUT)
                break;
    }
    pthread_mutex_unlock(&s->lock);
    if (!s->failed)
        sweep(s, 1);
    struct timespec cpu = { 0, 0 };
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    append(s, "E %lld cpu_ns=%lld sweeps=%lld\n", (long long)mono_ns(),
           (long long)cpu.tv_sec * NS_PER_SEC + cpu.tv_nsec, s->sweeps);
    flush(s);
    return NULL;
}

static void free_sampler(struct thread_sampler *s)
{
    if (s->fd >= 0)
        close(s->fd);
    if (s->spare >= 0)
        close(s->spare);
    for (int i = 0; s->old && i < s->nold; i++)
        thread_files_close(&s->old[i].files);
    free(s->old);
    free(s->cur);
    free(s->index);
    free(s->seen);
    free(s->buf);
    free(s);
}

struct thread_sampler *thread_sampler_start(const char *trace_path, pid_t root, int interval_ms,
                                            const char *proc_root, struct csv_out *trace,
                                            int ncols)
{
    if (clock_is_virtual()) {
        /* the threads live in real time; a virtual stamp would misplace them */
        diag_warn("thread states are not recorded on the simulator's virtual time");
        return NULL;
    }
    struct thread_sampler *s = calloc(1, sizeof *s);
    if (!s) {
        diag_warn("thread states: out of memory; none recorded");
        return NULL;
    }
    s->fd = -1;
    s->spare = -1;
    s->root = root;
    thread_skips_init(&s->skips, trace, ncols, root);
    s->interval_ns = (int64_t)interval_ms * NS_PER_MS;
    s->arch = syscall_host_arch();
    snprintf(s->proc_root, sizeof s->proc_root, "%s", proc_root ? proc_root : "/proc");
    snprintf(s->path, sizeof s->path, "%s%s", trace_path, THREADS_FILE_SUFFIX);
    s->cap = 1 << 16;
    s->index_cap = 2 * THREAD_SAMPLER_MAX_THREADS;
    s->buf = malloc(s->cap);
    s->old = malloc(sizeof *s->old * THREAD_SAMPLER_MAX_THREADS);
    s->cur = malloc(sizeof *s->cur * THREAD_SAMPLER_MAX_THREADS);
    s->index = malloc(sizeof *s->index * (size_t)s->index_cap);
    s->seen = malloc(THREAD_SAMPLER_MAX_THREADS);
    if (!s->buf || !s->old || !s->cur || !s->index || !s->seen) {
        diag_warn("thread states: out of memory; none recorded");
        free_sampler(s);
        return NULL;
    }
    index_old(s);
    int empty;
    s->fd = threads_out_open(s->path, &empty);
    if (s->fd < 0) {
        free_sampler(s);
        return NULL;
    }
    if (empty)
        append(s, "%s", THREADS_FILE_MAGIC);
    /* Up to four descriptors per thread are kept open (thread_files), for
     * as many threads as the budget allows (the spare taken first). */
    s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    s->keep_max = fd_budget_spare() / 4;
    if (s->keep_max > THREAD_SAMPLER_KEEP_MAX)
        s->keep_max = THREAD_SAMPLER_KEEP_MAX;
    s->pids[0] = root;
    s->npids = 1;
    s->nfed = -1;
    append(s, "B %lld root=%d interval_ms=%d arch=%s\n", (long long)mono_ns(), (int)root,
           interval_ms, syscall_arch_name(s->arch));
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->tree_lock, NULL);
    if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
        diag_warn("thread states: cannot start the sampler thread; none recorded");
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->lock);
        pthread_mutex_destroy(&s->tree_lock);
        free_sampler(s);
        return NULL;
    }
    return s;
}

void thread_sampler_set_tree(struct thread_sampler *s, const pid_t *pids, int n)
{
    if (!s || pthread_mutex_trylock(&s->tree_lock) != 0)
        return;
    s->nfed = n < MAX_PIDS ? n : MAX_PIDS;
    memcpy(s->fed, pids, sizeof s->fed[0] * (size_t)s->nfed);
    pthread_mutex_unlock(&s->tree_lock);
}

void thread_sampler_stop(struct thread_sampler *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->tree_lock);
    free_sampler(s);
}
