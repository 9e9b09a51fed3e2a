/* test_ticker.c — absolute-deadline schedule: deadlines, skipped ticks, no drift. */
#include <stdint.h>

#include "check.h"
#include "clock.h"
#include "ticker.h"

static void test_deadlines(void)
{
    struct ticker t;
    ticker_start(&t, 1000, 10, INT64_MAX);
    CHECK(ticker_deadline(&t, 0) == 1000);
    CHECK(ticker_deadline(&t, 7) == 1070);
}

static void test_tick_at(void)
{
    struct ticker t;
    ticker_start(&t, 1000, 10, INT64_MAX);
    CHECK(ticker_tick_at(&t, 3, 1030) == 3);   /* on time */
    CHECK(ticker_tick_at(&t, 3, 1039) == 3);   /* late but within its slot */
    CHECK(ticker_tick_at(&t, 3, 1040) == 4);   /* next deadline passed: skip */
    CHECK(ticker_tick_at(&t, 3, 1095) == 9);   /* a long stall skips several */
    CHECK(ticker_tick_at(&t, 3, 900) == 3);    /* early (cannot happen) stays */
    CHECK(ticker_tick_at(&t, 0, 1095) == 0);   /* a slow start-up still records tick 0 */
    ticker_start(&t, 1000, 10, 5);
    CHECK(ticker_tick_at(&t, 3, 1095) == 5);   /* never past the last tick */
    CHECK(ticker_tick_at(&t, 5, 1200) == 5);
}

/* 50 ticks of 2 ms with a 7 ms stall at the first tick from 10 on (a loaded
 * machine can skip tick 10 itself, and then the stall must still happen):
 * the stall is skipped over (its tick numbers jump), everything else lands
 * on its own deadline, and the schedule ends at start + 50 * 2 ms, not later. */
static void test_real_schedule(void)
{
    struct ticker t;
    int64_t start = mono_ns() + NS_PER_MS;
    ticker_start(&t, start, 2 * NS_PER_MS, 49);
    int64_t tick = -1, late = 0, prev = -1, count = 0, jumped = 0, stalled = 0;
    while (t.next < 50) {
        if (ticker_wait(&t, &tick, &late) != 0)
            continue;
        CHECK(tick > prev);
        CHECK(late >= 0);
        if (tick > prev + 1)
            jumped = 1;
        prev = tick;
        count++;
        if (tick >= 10 && tick <= 40 && !stalled) {
            stalled = 1;
            int64_t until = mono_ns() + 7 * NS_PER_MS;
            while (mono_ns() < until) { }
        }
    }
    CHECK(stalled);
    CHECK(jumped);
    CHECK(count <= 50 - 2);   /* ticks 11 and 12 at least */
    CHECK(prev == 49);        /* the last tick is always recorded */
    CHECK(ticker_deadline(&t, t.next) == start + t.next * 2 * NS_PER_MS);
    CHECK(ticker_sleep_until(start + 50 * 2 * NS_PER_MS) == 0);
    CHECK(mono_ns() >= start + 100 * NS_PER_MS);
}

/* --dither: every deadline lies in [k*interval, k*interval + dither), the
 * offsets differ from tick to tick and cover the range, and the schedule
 * never runs a tick whose dithered deadline is still ahead. */
static void test_dither(void)
{
    struct ticker t;
    ticker_start(&t, 1000, 1000, INT64_MAX);
    ticker_dither(&t, 500, 42);
    int64_t lo = 500, hi = -1, distinct = 0, prev = -1;
    for (int64_t k = 0; k < 400; k++) {
        int64_t d = ticker_deadline(&t, k) - 1000 - k * 1000;
        CHECK(d >= 0 && d < 500);
        if (d < lo) lo = d;
        if (d > hi) hi = d;
        distinct += d != prev;
        prev = d;
    }
    CHECK(lo < 25 && hi > 475);
    CHECK(distinct > 390);
    int64_t k = ticker_tick_at(&t, 1, 1000 + 9 * 1000 + 0);
    CHECK(ticker_deadline(&t, k) <= 1000 + 9 * 1000);
    ticker_dither(&t, 1000, 7);            /* the whole interval: ticks stay in order */
    for (int64_t j = 0; j < 400; j++)
        CHECK(ticker_deadline(&t, j + 1) > ticker_deadline(&t, j));
    ticker_dither(&t, 5000, 1);            /* more than the interval: off */
    CHECK(ticker_deadline(&t, 3) == 4000);
}

int main(void)
{
    run_test("ticker --dither keeps each tick inside its interval", test_dither);
    run_test("ticker deadlines are start + k*interval", test_deadlines);
    run_test("ticker skips ticks whose deadline passed", test_tick_at);
    run_test("ticker real schedule records a stall as a tick jump", test_real_schedule);
    return check_exit_status();
}
