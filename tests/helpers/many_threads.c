/*
 * many_threads.c — a process with many sleeping threads, for the thread
 * sampler's descriptor tests (tests/e2e/threads_fds.sh).
 *
 *   many_threads N SECONDS [TIDS_FILE]
 *
 * Starts N threads (small stacks) that sleep in short naps, writes every
 * thread's TID, the main one's first, one a line, to TIDS_FILE once all
 * are running (written to TIDS_FILE.tmp, then renamed, so a reader sees
 * all or nothing), and exits after SECONDS of wall time.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 4096

static double seconds;
static pid_t tids[MAX_THREADS + 1];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;
static int nstarted;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *sleeper(void *arg)
{
    pthread_mutex_lock(&lock);
    tids[(long)arg] = (pid_t)syscall(SYS_gettid);
    nstarted++;
    pthread_cond_signal(&started);
    pthread_mutex_unlock(&lock);
    double end = now_s() + seconds;
    while (now_s() < end)
        usleep(50000);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc >= 3 ? atoi(argv[1]) : 0;
    if (argc < 3 || argc > 4 || n < 1 || n > MAX_THREADS || (seconds = atof(argv[2])) <= 0
        || seconds > 60) {
        fprintf(stderr, "usage: many_threads N SECONDS [TIDS_FILE] (1 <= N <= %d, 0 < SECONDS <= 60)\n",
                MAX_THREADS);
        return 2;
    }
    double end = now_s() + seconds;
    tids[0] = getpid();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (long i = 1; i <= n; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, sleeper, (void *)i) != 0) {
            fprintf(stderr, "many_threads: thread %ld not started\n", i);
            return 1;
        }
        pthread_detach(t);
    }
    pthread_mutex_lock(&lock);
    while (nstarted < n)
        pthread_cond_wait(&started, &lock);
    pthread_mutex_unlock(&lock);
    if (argc == 4) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", argv[3]);
        FILE *f = fopen(tmp, "w");
        if (!f)
            return 1;
        for (int i = 0; i <= n; i++)
            fprintf(f, "%d\n", (int)tids[i]);
        if (fclose(f) != 0 || rename(tmp, argv[3]) != 0)
            return 1;
    }
    while (now_s() < end)
        usleep(50000);
    return 0;
}
