/* ticker.c — drift-free absolute-deadline schedule; see ticker.h. */
#include <errno.h>
#include <time.h>

#include "clock.h"
#include "ticker.h"

void ticker_start(struct ticker *t, int64_t start_ns, int64_t interval_ns, int64_t last)
{
    t->last = last;
    t->start_ns = start_ns;
    t->interval_ns = interval_ns > 0 ? interval_ns : 1;
    t->next = 0;
}

int64_t ticker_deadline(const struct ticker *t, int64_t k)
{
    return t->start_ns + k * t->interval_ns;
}

/* The first and the last tick always run, however late: a recording
 * begins and ends with a sample even when start-up or a stall near the end
 * ran past their deadlines. */
int64_t ticker_tick_at(const struct ticker *t, int64_t want, int64_t now)
{
    if (want == 0 || want >= t->last || now < ticker_deadline(t, want + 1))
        return want;
    int64_t k = (now - t->start_ns) / t->interval_ns;
    return k < t->last ? k : t->last;
}

int ticker_sleep_until(int64_t when_ns)
{
    struct timespec ts = { (time_t)(when_ns / NS_PER_SEC), (long)(when_ns % NS_PER_SEC) };
    /* EINVAL cannot happen with a valid timespec; only a signal wakes early. */
    return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR ? -1 : 0;
}

int ticker_wait(struct ticker *t, int64_t *tick, int64_t *late_ns)
{
    if (ticker_sleep_until(ticker_deadline(t, t->next)) != 0)
        return -1;
    int64_t now = mono_ns();
    int64_t k = ticker_tick_at(t, t->next, now);
    *tick = k;
    *late_ns = now - ticker_deadline(t, k);
    t->next = k + 1;
    return 0;
}
