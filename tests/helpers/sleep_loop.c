/*
 * sleep_loop.c — the floor under a sampler's CPU cost, for bench/.
 *
 *   sleep_loop COUNT INTERVAL_NS
 *
 * Sleeps COUNT times to absolute CLOCK_MONOTONIC deadlines INTERVAL_NS
 * apart and does nothing else. Run under runstat, its user+sys time per
 * wake-up is what the kernel (and, on a VM, the hypervisor) charges a
 * process merely for waking on a timer; bench/record_bench.sh prints it
 * next to flinch record's CPU per sample so the two can be told apart.
 *
 * It also prints, on stdout, how regular its wake-ups were, measured as
 * the recorder bench measures samples (|consecutive difference - interval|):
 *   p50_dev_ns=N p99_dev_ns=N max_dev_ns=N
 * the timing floor of this machine at this moment.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t timespec_ns(struct timespec ts)
{
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted[0..n), n > 0. */
static int64_t percentile(const int64_t *sorted, long n, double fraction)
{
    long rank = (long)(fraction * (double)n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: sleep_loop COUNT INTERVAL_NS\n");
        return 2;
    }
    long count = strtol(argv[1], NULL, 10);
    long interval_ns = strtol(argv[2], NULL, 10);
    if (count < 0 || interval_ns <= 0 || interval_ns >= 1000000000L) {
        fprintf(stderr, "sleep_loop: COUNT >= 0, 0 < INTERVAL_NS < 1e9\n");
        return 2;
    }
    int64_t *devs = malloc(sizeof *devs * (size_t)(count > 0 ? count : 1));
    if (!devs)
        return 1;
    struct timespec deadline, woke;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    int64_t prev_ns = 0;
    for (long i = 0; i < count; i++) {
        deadline.tv_nsec += interval_ns;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_nsec -= 1000000000L;
            deadline.tv_sec++;
        }
        int rc;
        while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL)) == EINTR)
            ;
        if (rc) {
            fprintf(stderr, "sleep_loop: clock_nanosleep failed (%d)\n", rc);
            return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &woke);
        int64_t now_ns = timespec_ns(woke);
        if (i > 0) {
            int64_t dev = now_ns - prev_ns - interval_ns;
            devs[i - 1] = dev < 0 ? -dev : dev;
        }
        prev_ns = now_ns;
    }
    long n = count - 1;
    if (n > 0) {
        qsort(devs, (size_t)n, sizeof *devs, compare_i64);
        printf("p50_dev_ns=%lld p99_dev_ns=%lld max_dev_ns=%lld\n", (long long)percentile(devs, n, 0.5),
               (long long)percentile(devs, n, 0.99), (long long)devs[n - 1]);
    }
    free(devs);
    return 0;
}
