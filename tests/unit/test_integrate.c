/* test_integrate.c — exact interpolated integrals with hand-computed
 * values: trapezoid edges, stepped counter knots, step-back CPU, the ring's
 * limits, sample counts and gaps. */
#include "check.h"
#include "integrate.h"

#define MS 1000000LL

static void add(struct integrator *ig, int64_t t, double a, double b, uint64_t reasons)
{
    double v[2] = { a, b };
    int64_t g0, g1;
    integ_add(ig, t, v, reasons, &g0, &g1);
}

static void test_trapezoid_edges(void)
{
    enum quantity_kind k[2] = { Q_TRAPEZOID, Q_STEP_BACK };
    struct integrator ig;
    CHECK(integ_init(&ig, 2, k, 16) == 0);
    double c;
    CHECK(integ_cum_at(&ig, 0, 0, &c) == INTEG_PENDING);
    add(&ig, 1000 * MS, 100, 10, 0);
    add(&ig, 2000 * MS, 300, 50, 0);
    /* power 100 W -> 300 W linearly over [1 s, 2 s]: to 1.5 s, 50 + 25 J */
    CHECK(integ_cum_at(&ig, 0, 1500 * MS, &c) == INTEG_OK);
    CHECK_NEAR(c, 75.0, 1e-9);
    CHECK(integ_cum_at(&ig, 0, 1250 * MS, &c) == INTEG_OK);
    CHECK_NEAR(c, 25.0 + 6.25, 1e-9);
    CHECK(integ_cum_at(&ig, 0, 2000 * MS, &c) == INTEG_OK);
    CHECK_NEAR(c, 200.0, 1e-9);
    /* step-back: 50 % held over the whole interval ending at 2 s */
    CHECK(integ_cum_at(&ig, 1, 1500 * MS, &c) == INTEG_OK);
    CHECK_NEAR(c, 25.0, 1e-9);
    /* shortly before the first reading: held back (a begin mark) */
    CHECK(integ_cum_at(&ig, 0, 999 * MS, &c) == INTEG_OK);
    CHECK_NEAR(c, -0.1, 1e-9);
    CHECK(integ_cum_at(&ig, 0, -1 * MS, &c) == INTEG_NO_DATA);
    CHECK(integ_cum_at(&ig, 0, 2001 * MS, &c) == INTEG_PENDING);
    /* at the end of input, shortly after the last reading: held (an end mark) */
    CHECK(integ_cum_after_end(&ig, 0, 2100 * MS, &c) == INTEG_OK);
    CHECK_NEAR(c, 230.0, 1e-9);
    CHECK(integ_cum_after_end(&ig, 1, 2100 * MS, &c) == INTEG_OK);   /* last rate: 50 %/s */
    CHECK_NEAR(c, 55.0, 1e-9);
    CHECK(integ_cum_after_end(&ig, 0, 3500 * MS, &c) == INTEG_NO_DATA);
    integ_free(&ig);
}

static void test_stepped_counter(void)
{
    enum quantity_kind k[1] = { Q_STEPPED };
    struct integrator ig;
    CHECK(integ_init(&ig, 1, k, 64) == 0);
    double v[1];
    int64_t g0, g1;
    /* updates every 30 ms, sampled every 10 ms: 1000 J until the reading at
     * 30 ms shows 2000 (knot at 25 ms, the middle of its sample interval) */
    static const double vals[] = { 1000, 1000, 1000, 2000, 2000, 2000, 3000 };
    for (int i = 0; i < 7; i++) {
        v[0] = vals[i];
        integ_add(&ig, i * 10 * MS, v, 0, &g0, &g1);
    }
    double c;
    CHECK(integ_cum_at(&ig, 0, 0, &c) == INTEG_OK);
    CHECK_NEAR(c, 1000, 1e-9);
    CHECK(integ_cum_at(&ig, 0, -5 * MS, &c) == INTEG_OK);    /* first slope, 1000 J / 25 ms, back */
    CHECK_NEAR(c, 800, 1e-9);
    CHECK(integ_cum_at(&ig, 0, 12500000, &c) == INTEG_OK);   /* halfway to the 25 ms knot */
    CHECK_NEAR(c, 1500, 1e-9);
    CHECK(integ_cum_at(&ig, 0, 40 * MS, &c) == INTEG_OK);    /* knots 25 ms and 55 ms */
    CHECK_NEAR(c, 2000 + 1000.0 * 15 / 30, 1e-9);
    CHECK(integ_cum_at(&ig, 0, 58 * MS, &c) == INTEG_PENDING);
    CHECK_NEAR(integ_counter_step_s(&ig), 0.03, 0.0003);
    integ_finish(&ig);                                       /* last reading becomes a knot */
    CHECK(integ_cum_at(&ig, 0, 60 * MS, &c) == INTEG_OK);
    CHECK_NEAR(c, 3000, 1e-9);
    integ_free(&ig);
}

static void test_continuous_counter_and_reset(void)
{
    enum quantity_kind k[1] = { Q_STEPPED };
    struct integrator ig;
    CHECK(integ_init(&ig, 1, k, 64) == 0);
    double v[1];
    int64_t g0, g1;
    static const double vals[] = { 0, 10, 20, 5, 15 };   /* reset after 20 */
    for (int i = 0; i < 5; i++) {
        v[0] = vals[i];
        integ_add(&ig, i * 10 * MS, v, 0, &g0, &g1);
    }
    double c;
    CHECK(integ_cum_at(&ig, 0, 15 * MS, &c) == INTEG_OK);    /* knots at the samples */
    CHECK_NEAR(c, 15, 1e-9);
    CHECK(integ_cum_at(&ig, 0, 40 * MS, &c) == INTEG_OK);    /* 20 + (15 - 5): no energy lost */
    CHECK_NEAR(c, 30, 1e-9);
    integ_free(&ig);
}

static void test_ring_counts_gaps(void)
{
    enum quantity_kind k[2] = { Q_TRAPEZOID, Q_TRAPEZOID };
    struct integrator ig;
    CHECK(integ_init(&ig, 2, k, 4) == 0);
    double v[2] = { 1, 1 };
    int64_t g0 = 0, g1 = 0;
    static const int64_t t[] = { 0, 10, 20, 45, 55, 65 };
    int evicted = 0;
    for (int i = 0; i < 6; i++)
        evicted += integ_add(&ig, t[i] * MS, v, i == 3 || i == 4 ? 0x4 : 0, &g0, &g1);
    CHECK(evicted == 2 && g0 == 10 * MS && g1 == 20 * MS);
    double c;
    CHECK(integ_cum_at(&ig, 0, 5 * MS, &c) == INTEG_TOO_OLD);
    CHECK(integ_cum_at(&ig, 0, 30 * MS, &c) == INTEG_OK);
    CHECK_NEAR(c, 0.030, 1e-12);
    long n0, n1;
    uint32_t r0[INTEG_REASON_BITS], r1[INTEG_REASON_BITS];
    CHECK(integ_count_before(&ig, 30 * MS, 0, &n0, r0) == INTEG_OK);
    CHECK(integ_count_before(&ig, 55 * MS, 1, &n1, r1) == INTEG_OK);
    CHECK(n0 == 3 && n1 == 5);                /* samples at 45 and 55 ms */
    CHECK(r1[2] - r0[2] == 2 && r1[0] - r0[0] == 0);
    CHECK(integ_count_before(&ig, 65 * MS, 1, &n1, r1) == INTEG_PENDING);
    CHECK(integ_count_before(&ig, 1 * MS, 0, &n1, r1) == INTEG_TOO_OLD);
    CHECK_NEAR(integ_max_gap_s(&ig, 30 * MS, 50 * MS), 0.025, 1e-12);
    CHECK_NEAR(integ_max_gap_s(&ig, 50 * MS, 60 * MS), 0.010, 1e-12);
    integ_free(&ig);
}

int main(void)
{
    run_test("integrate: trapezoid with exact edges, step-back", test_trapezoid_edges);
    run_test("integrate: stepped counter knots and update step", test_stepped_counter);
    run_test("integrate: continuous counter, counter reset", test_continuous_counter_and_reset);
    run_test("integrate: ring limits, sample counts, reasons, gaps", test_ring_counts_gaps);
    return check_exit_status();
}
