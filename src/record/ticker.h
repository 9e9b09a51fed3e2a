/*
 * ticker.h — the sampling schedule: tick k is due at start + k * interval.
 *
 * Owns: sleeping to absolute CLOCK_MONOTONIC deadlines with
 * clock_nanosleep(TIMER_ABSTIME), so time spent sampling never accumulates
 * into drift: N seconds give exactly N * 1000 / interval_ms ticks. A tick
 * that starts so late that later deadlines have passed too is not made up
 * with a burst of samples: the missed ticks are skipped and the next
 * recorded tick carries its own number, so the trace shows the gap (tick
 * column) and how late it was (late_ns column). Optionally dithered.
 */
#ifndef FLINCH_TICKER_H
#define FLINCH_TICKER_H

#include <stdint.h>

struct ticker {
    int64_t start_ns;
    int64_t interval_ns;
    int64_t next;          /* the tick waited for next */
    int64_t last;          /* the final tick: a late wake-up near the end
                              still records it rather than skipping past */
    int64_t dither_ns;     /* 0, or each deadline moves by 0..dither_ns - 1 */
    uint64_t dither_seed;
};

/* Tick numbers run from 0 to last (INT64_MAX: no end). */
void ticker_start(struct ticker *t, int64_t start_ns, int64_t interval_ns, int64_t last);

/* Dither (record --dither): tick k is due dither(k) later, a pseudo-random
 * 0..dither_ns - 1 drawn from seed and k, dither_ns at most the interval.
 * A sensor that updates on its own period P is then seen at a different
 * offset inside the tick at each update even when P is a multiple of the
 * interval, so analyze can place its update instants to better than a
 * tick; the tick count and its mean rate are unchanged, and ticks stay in
 * order. A dither of less than the whole interval leaves part of the tick
 * that no sample ever reaches when P is a multiple of the interval: the
 * recorder dithers by the whole interval. */
void ticker_dither(struct ticker *t, int64_t dither_ns, uint64_t seed);

/* When tick k is due. */
int64_t ticker_deadline(const struct ticker *t, int64_t k);

/* Which tick to run when the clock reads now and tick `want` is the next
 * one: want itself unless now has already reached a later deadline, then
 * the latest tick whose deadline has passed (at most t->last). Tick 0 and
 * the last tick are never skipped. */
int64_t ticker_tick_at(const struct ticker *t, int64_t want, int64_t now);

/* Sleeps until the next tick is due. Returns 0 with *tick (its number,
 * possibly past skipped ones) and *late_ns (now - its deadline) set, and
 * moves on; returns -1 when a signal interrupted the sleep (nothing moves;
 * call again). */
int ticker_wait(struct ticker *t, int64_t *tick, int64_t *late_ns);

/* Sleeps until the absolute time when_ns; -1 if interrupted by a signal. */
int ticker_sleep_until(int64_t when_ns);

#endif
