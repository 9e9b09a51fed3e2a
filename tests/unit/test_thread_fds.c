/*
 * test_thread_fds.c — the thread sampler out of file descriptors (issue 26
 * item 9): it samples this very process (real /proc) under a descriptor
 * limit of 100, so only a few threads keep their files open and the rest
 * are opened per sweep; then the test takes every descriptor left and
 * starts 10 more threads. Nothing may be reported gone (no X line), the
 * threads not read are counted in threads_skipped EVENT rows in the trace
 * (a `!` line said once), and once descriptors are back the new threads
 * appear and the count goes back to n=0. thread_probe itself answers
 * THREAD_PROBE_NO_FD, not "gone", when it cannot open a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "csv_writer.h"
#include "syscall_table.h"
#include "thread_probe.h"
#include "thread_sampler.h"
#include "thread_skips.h"
#include "trace_schema.h"

#define OLD_THREADS 20
#define NEW_THREADS 10
#define MAX_HOGS 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int quit, started;
static pid_t tids[OLD_THREADS + NEW_THREADS];

static void *sleeper(void *arg)
{
    pthread_mutex_lock(&lock);
    tids[(long)arg] = (pid_t)syscall(SYS_gettid);
    started++;
    pthread_cond_broadcast(&cond);
    while (!quit)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void start_threads(pthread_t *t, long from, long n)
{
    for (long i = from; i < from + n; i++)
        CHECK(pthread_create(&t[i], NULL, sleeper, (void *)i) == 0);
    pthread_mutex_lock(&lock);
    while (started < from + n)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Takes every descriptor left; returns how many. */
static int hog(int *fds)
{
    int n = 0;
    while (n < MAX_HOGS && (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
        n++;
    CHECK(n < MAX_HOGS && errno == EMFILE);
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int has_line(const char *text, const char *line)
{
    size_t len = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && (p[len] == '\n' || p[len] == '\0'))
            return 1;
    return 0;
}

/* thread_probe with no descriptor left: THREAD_PROBE_NO_FD, nothing kept
 * open; with one, the thread reads as alive. */
static void probe_without_descriptors(void)
{
    int fds[MAX_HOGS];
    unsigned denied = 0;
    struct thread_files files;
    struct thread_state st;
    pid_t self = (pid_t)syscall(SYS_gettid);
    thread_files_init(&files);
    int n = hog(fds);
    int rc = thread_probe("/proc", getpid(), self, syscall_host_arch(), &denied, &files, NULL, &st);
    for (int i = 0; i < n; i++)
        close(fds[i]);
    CHECK(rc == THREAD_PROBE_NO_FD);
    CHECK(files.stat_fd < 0 && files.sched_fd < 0 && files.wchan_fd < 0 && files.sys_fd < 0);
    CHECK(thread_probe("/proc", getpid(), self, syscall_host_arch(), &denied, &files, NULL, &st) == 0);
    CHECK(st.state == 'R');
    thread_files_close(&files);
}

static void sampler_without_descriptors(void)
{
    char trace[64], threads[80], header[4096];
    snprintf(trace, sizeof trace, "/tmp/flinch_thread_fds_%d.csv", (int)getpid());
    snprintf(threads, sizeof threads, "%s.threads", trace);
    unlink(trace);
    unlink(threads);
    CHECK(csv_format_row(header, sizeof header, trace_column_names, COL_COUNT) > 0);
    struct csv_out csv;
    CHECK(csv_out_open(&csv, trace, header, 0) == 0);

    pthread_t t[OLD_THREADS + NEW_THREADS];
    start_threads(t, 0, OLD_THREADS);
    struct thread_sampler *s = thread_sampler_start(trace, getpid(), 10, NULL, &csv, COL_COUNT);
    CHECK(s != NULL);
    sleep_ms(80);
    int fds[MAX_HOGS];
    int n = hog(fds);
    start_threads(t, OLD_THREADS, NEW_THREADS);
    /* a sweep may land while the new threads are being created and count
     * only some; a changed count is written at most once a second, so the
     * descriptors stay taken past that second */
    sleep_ms(1200);
    for (int i = 0; i < n; i++)
        close(fds[i]);
    sleep_ms(120);
    thread_sampler_stop(s);
    csv_out_close(&csv);

    const char *th = slurp(threads);
    CHECK(th != NULL);
    if (!th)
        return;
    CHECK(strstr(th, "\nX ") == NULL);                 /* nobody is gone */
    CHECK(has_line(th, "! threads not sampled: no file descriptor left (ulimit -n); they keep their "
                       "last state, counted in threads_skipped events"));
    for (int i = 0; i < OLD_THREADS + NEW_THREADS; i++) {
        char want[32];
        snprintf(want, sizeof want, "\nN %d %d ", (int)tids[i], (int)getpid());
        if (!CHECK(strstr(th, want) != NULL))
            fprintf(stderr, "    thread %d (%d) never appeared\n", i, (int)tids[i]);
    }
    /* the EVENT rows: one counts at least the new threads, the last is 0 */
    const char *tr = slurp(trace);
    CHECK(tr != NULL);
    if (!tr)
        return;
    long most = -1, last = -1;
    int rows = 0;
    for (const char *p = tr; (p = strstr(p, ",EVENT,\"threads_skipped n=")) != NULL; p++) {
        char reason[32];
        long v;
        CHECK(sscanf(p, ",EVENT,\"threads_skipped n=%ld reason=%31[a-z_]\",", &v, reason) == 2);
        CHECK_STR(reason, "fd_limit");
        rows++;
        if (v > most)
            most = v;
        last = v;
    }
    CHECK(rows >= 2);
    CHECK(most >= NEW_THREADS);
    CHECK(last == 0);

    pthread_mutex_lock(&lock);
    quit = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < OLD_THREADS + NEW_THREADS; i++)
        pthread_join(t[i], NULL);
    if (!check_failed_in_test) {
        unlink(trace);
        unlink(threads);
    }
}

int main(void)
{
    /* Soft and hard: the sampler raises the soft limit to the hard one. */
    struct rlimit lim = { 100, 100 };
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
        perror("setrlimit");
        return 1;
    }
    run_test("thread_probe without descriptors: not gone", probe_without_descriptors);
    run_test("sampler without descriptors: skipped and counted, never gone", sampler_without_descriptors);
    return check_exit_status();
}
