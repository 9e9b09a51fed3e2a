/*
 * markflood.c — one steady writer of MARKs, for the soak test (issue 6).
 *
 *   markflood FIFO WRITER_ID RATE_HZ SECONDS
 *
 * Sends marks "wID-N" (N = 1, 2, ...) through include/flinch_mark.h's
 * flinch_mark_to (client-stamped with CLOCK_MONOTONIC now), one every
 * 1/RATE_HZ s on an absolute schedule (clock_nanosleep TIMER_ABSTIME, so a
 * slow moment does not lower the rate), for SECONDS. Prints one line at
 * the end: "sent=N failed=F" (F: calls that returned -1; the first
 * failure's errno on stderr). Exit status 0, or 2 on bad usage.
 */
#include "flinch_mark.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: markflood FIFO WRITER_ID RATE_HZ SECONDS\n");
        return 2;
    }
    const char *fifo = argv[1];
    int id = atoi(argv[2]);
    double rate = atof(argv[3]), seconds = atof(argv[4]);
    if (rate <= 0 || seconds <= 0) {
        fprintf(stderr, "markflood: RATE_HZ and SECONDS must be positive\n");
        return 2;
    }
    long long period = (long long)(1e9 / rate);
    long long total = (long long)(seconds * rate);
    long long start = now_ns();
    long long sent = 0, failed = 0;
    for (long long n = 1; n <= total; n++) {
        long long due = start + (n - 1) * period;
        struct timespec ts = { (time_t)(due / 1000000000LL), (long)(due % 1000000000LL) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
        char label[64];
        snprintf(label, sizeof label, "w%d-%lld", id, n);
        if (flinch_mark_to(fifo, label, now_ns()) == 0) {
            sent++;
        } else {
            if (failed == 0)
                fprintf(stderr, "markflood %d: mark %lld: %s\n", id, n, strerror(errno));
            failed++;
        }
    }
    printf("sent=%lld failed=%lld\n", sent, failed);
    return 0;
}
