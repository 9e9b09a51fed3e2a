/*
 * spin_threads.c — a process shaped like a GIL-bound Python server, for
 * the process-tree tests: one thread named "spin-main" burns a core while
 * three others ("idle-0".."idle-2") sleep.
 *
 *   spin_threads SECONDS
 *
 * Exits after SECONDS of wall time.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double seconds;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *idle(void *arg)
{
    (void)arg;
    double end = now_s() + seconds;
    while (now_s() < end)
        usleep(20000);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2 || (seconds = atof(argv[1])) <= 0 || seconds > 60) {
        fprintf(stderr, "usage: spin_threads SECONDS (0 < SECONDS <= 60)\n");
        return 2;
    }
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "idle-%d", i % 10);   /* gcc -O1: provably fits */
        if (pthread_create(&t[i], NULL, idle, NULL) != 0)
            return 1;
        pthread_setname_np(t[i], name);
    }
    pthread_setname_np(pthread_self(), "spin-main");
    volatile unsigned long x = 0;
    double end = now_s() + seconds;
    while (now_s() < end)
        for (int i = 0; i < 100000; i++)
            x += (unsigned long)i;
    (void)x;                  /* read once: clang -Wunused-but-set-variable */
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    return 0;
}
