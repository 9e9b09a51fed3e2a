/*
 * bench.c — the cost of one nvtxRangePushA + nvtxRangePop pair, built with
 * the real nvtx3 headers by bench/nvtx_overhead.sh and run without the
 * bridge, with the bridge filtering the range out, and recording it.
 *
 *   bench N [ignore-sigpipe]   prints "WALL_NS_PER_PAIR CPU_NS_PER_PAIR" over
 *                              N pairs; with SIGPIPE ignored, as Python does
 */
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    if (argc > 2)
        signal(SIGPIPE, SIG_IGN);
    nvtxRangePushA("warm-up");          /* the first call loads and initialises */
    nvtxRangePop();
    struct timespec a, b;
    double c0 = cpu_ns();
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++) {
        nvtxRangePushA("bench");
        nvtxRangePop();
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double c1 = cpu_ns();
    double wall = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
    printf("%.1f %.1f\n", wall / n, (c1 - c0) / n);
    return 0;
}
