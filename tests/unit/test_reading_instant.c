/* test_reading_instant.c — the instant a row's energy reading held: the
 * driver's timestamp brought onto t_mono_ns by the row's own pair of
 * stamps, else the stamp (no timestamp, no wall stamp, a timestamp too far
 * from the stamp to be the same read). */
#include <math.h>

#include "check.h"
#include "reading_instant.h"

/* A GPU row stamped at mono 5 s (wall 1,800,000,000 s + 0.25 s) whose
 * energy timestamp is ts_us (NAN: none). */
static struct trace_row row(double ts_us)
{
    struct trace_row r;
    memset(&r, 0, sizeof r);
    for (int c = 0; c < COL_COUNT; c++)
        r.v[c] = NAN;
    r.type = TRACE_SAMPLE;
    r.t_mono_ns = 5000000000LL;
    r.t_wall_ns = 1800000000250000000LL;
    r.has_wall = 1;
    r.v[COL_GPU_ENERGY_TS_US] = ts_us;
    return r;
}

static void test_timestamp_used(void)
{
    /* read 4.85 ms after the stamp (a preempted call): the reading moves */
    struct trace_row r = row(1800000000254850.0);
    CHECK(energy_reading_ns(&r) == 5004850000LL);
    /* a cached value 3 ms older than the stamp: it held then, in the
     * microsecond's last nanosecond (the one nearest the stamp) */
    r = row(1800000000247000.0);
    CHECK(energy_reading_ns(&r) == 4997000999LL);
    /* the stamp inside the driver's microsecond: the stamp, to the ns */
    r = row(1800000000250000.0);
    r.t_wall_ns += 400;
    CHECK(energy_reading_ns(&r) == 5000000000LL);
    r.t_wall_ns += 599;
    CHECK(energy_reading_ns(&r) == 5000000000LL);
    r.t_wall_ns += 1;                             /* just past it: its last ns */
    CHECK(energy_reading_ns(&r) == 4999999999LL);
    /* exactly at the stamp; and the far limit itself */
    r = row(1800000000250000.0);
    CHECK(energy_reading_ns(&r) == 5000000000LL);
    r = row(1800000001250000.0);
    CHECK(energy_reading_ns(&r) == 6000000000LL);
}

static void test_stamp_kept(void)
{
    struct trace_row r = row(NAN);                /* GetTotalEnergyConsumption: no timestamp */
    CHECK(energy_reading_ns(&r) == 5000000000LL);
    r = row(1800000001250001.0);                  /* 1 s + 1 us away: a clock step */
    CHECK(energy_reading_ns(&r) == 5000000000LL);
    r = row(1799999999249999.0);
    CHECK(energy_reading_ns(&r) == 5000000000LL);
    r = row(1800000000254850.0);                  /* no wall stamp to convert with */
    r.has_wall = 0;
    r.t_wall_ns = 0;
    CHECK(energy_reading_ns(&r) == 5000000000LL);
    r = row(0);                                   /* a zero or absurd timestamp */
    CHECK(energy_reading_ns(&r) == 5000000000LL);
    r = row(5e15);
    CHECK(energy_reading_ns(&r) == 5000000000LL);
}

int main(void)
{
    run_test("reading instant: the driver's timestamp on the row's clock", test_timestamp_used);
    run_test("reading instant: the stamp when the timestamp cannot be used", test_stamp_kept);
    return check_exit_status();
}
