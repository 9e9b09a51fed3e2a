/*
 * bench.c — the cost of one nvtxRangePushA + nvtxRangePop pair, built with
 * the real nvtx3 headers by bench/nvtx_overhead.sh and run without the
 * bridge, with the bridge filtering the range out, and recording it.
 *
 *   bench N [ignore-sigpipe|-] [BURST]
 *     prints "WALL_NS CPU_NS THREAD_CPU_NS" per pair over N pairs: wall
 *     time of the loops, the process's CPU time (every thread: the
 *     bridge's writer thread included) and the calling thread's own.
 *     ignore-sigpipe: SIGPIPE ignored, as in every Python process.
 *     BURST: pairs in bursts of BURST with 10 ms pauses between them (not
 *     in the wall time; the process's CPU time keeps counting), a rate a
 *     recorder keeps up with, so every mark is really written.
 */
#define _GNU_SOURCE                     /* RUSAGE_THREAD */
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_ns(int who)
{
    struct rusage ru;
    getrusage(who, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    if (argc > 2 && strcmp(argv[2], "ignore-sigpipe") == 0)
        signal(SIGPIPE, SIG_IGN);
    long burst = argc > 3 ? atol(argv[3]) : 0;
    if (burst <= 0 || burst > n)
        burst = n;
    nvtxRangePushA("warm-up");          /* the first call loads and initialises */
    nvtxRangePop();
    struct timespec pause = { 0, 10000000L };
    nanosleep(&pause, NULL);
    double wall = 0, c0 = cpu_ns(RUSAGE_SELF), t0 = cpu_ns(RUSAGE_THREAD);
    for (long done = 0; done < n; done += burst) {
        if (done)
            nanosleep(&pause, NULL);
        double a = now_ns();
        for (long i = 0; i < burst; i++) {
            nvtxRangePushA("bench");
            nvtxRangePop();
        }
        wall += now_ns() - a;
    }
    if (burst < n)
        nanosleep(&pause, NULL);        /* the writer's last batch */
    double c1 = cpu_ns(RUSAGE_SELF), t1 = cpu_ns(RUSAGE_THREAD);
    printf("%.1f %.1f %.1f\n", wall / n, (c1 - c0) / n, (t1 - t0) / n);
    return 0;
}
