/* ticker.c — drift-free absolute-deadline schedule; see ticker.h. */
#include "clock.h"
#include "ticker.h"

void ticker_start(struct ticker *t, int64_t start_ns, int64_t interval_ns, int64_t last)
{
    t->last = last;
    t->start_ns = start_ns;
    t->interval_ns = interval_ns > 0 ? interval_ns : 1;
    t->next = 0;
    t->dither_ns = 0;
    t->dither_seed = 0;
}

void ticker_dither(struct ticker *t, int64_t dither_ns, uint64_t seed)
{
    t->dither_ns = dither_ns > 0 && dither_ns <= t->interval_ns ? dither_ns : 0;
    t->dither_seed = seed;
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

int64_t ticker_deadline(const struct ticker *t, int64_t k)
{
    int64_t d = t->dither_ns ? (int64_t)(mix64(t->dither_seed ^ mix64((uint64_t)k)) % (uint64_t)t->dither_ns) : 0;
    return t->start_ns + k * t->interval_ns + d;
}

/* The first and the last tick always run, however late: a recording
 * begins and ends with a sample even when start-up or a stall near the end
 * ran past their deadlines. */
int64_t ticker_tick_at(const struct ticker *t, int64_t want, int64_t now)
{
    if (want == 0 || want >= t->last || now < ticker_deadline(t, want + 1))
        return want;
    int64_t k = (now - t->start_ns) / t->interval_ns;
    if (k > t->last)
        k = t->last;
    while (k > want && ticker_deadline(t, k) > now)   /* a dithered deadline still ahead */
        k--;
    return k;
}

int ticker_sleep_until(int64_t when_ns)
{
    return clock_sleep_until(when_ns);
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
