/* test_pcie_counter.c — PCIe byte counters: plain growth, 32-bit wraps, resets, unknown widths. */
#include "check.h"
#include "pcie_counter.h"

#define TWO_32 4294967296.0

static void test_growth_and_missing(void)
{
    struct pcie_counter pc = { 0 };
    int ev;
    CHECK(pcie_counter_add(&pc, 1000, 0, 32, &ev) == 0 && ev == 0);
    CHECK(pcie_counter_add(&pc, 81000, 0.01, 32, &ev) == 80000 && ev == 0);
    CHECK(isnan(pcie_counter_add(&pc, NAN, 0.01, 32, &ev)) && ev == 0);
    CHECK(isnan(pcie_counter_add(&pc, -5, 0.01, 32, &ev)));
    /* a missing reading changes nothing: the next delta is from 81000 */
    CHECK(pcie_counter_add(&pc, 91000, 0.02, 32, &ev) == 90000 && ev == 0);
    CHECK(pc.wraps == 0 && pc.resets == 0);
}

/* 8 GB/s for 10 ms across the 32-bit top: exact, one wrap */
static void test_wrap_32(void)
{
    struct pcie_counter pc = { 0 };
    int ev;
    pcie_counter_add(&pc, TWO_32 - 30e6, 0, 32, &ev);
    CHECK(pcie_counter_add(&pc, 50e6, 0.01, 32, &ev) == 80e6 && ev == 1);
    CHECK(pcie_counter_add(&pc, 130e6, 0.01, 32, &ev) == 160e6 && ev == 0);
    CHECK(pc.wraps == 1 && pc.resets == 0);
}

/* the same drop on a 64-bit counter is a reset: the reading is a lower bound */
static void test_reset_64(void)
{
    struct pcie_counter pc = { 0 };
    int ev;
    pcie_counter_add(&pc, TWO_32 - 30e6, 0, 64, &ev);
    CHECK(pcie_counter_add(&pc, 50e6, 0.01, 64, &ev) == 50e6 && ev == 2);
    CHECK(pc.wraps == 0 && pc.resets == 1);
}

/* a 32-bit drop that would mean more than the link can carry is a reset:
 * 4 GB in 10 ms is 400 GB/s */
static void test_implausible_wrap_is_reset(void)
{
    struct pcie_counter pc = { 0 };
    int ev;
    pcie_counter_add(&pc, 200e6, 0, 32, &ev);
    CHECK(pcie_counter_add(&pc, 100e6, 0.01, 32, &ev) == 100e6 && ev == 2);
    /* the same drop over 40 ms fits 128 GB/s (4.19e9 B): a wrap */
    struct pcie_counter q = { 0 };
    pcie_counter_add(&q, 200e6, 0, 32, &ev);
    CHECK(pcie_counter_add(&q, 100e6, 0.04, 32, &ev) == TWO_32 - 100e6 && ev == 1);
}

/* width unknown (a trace without pcie_bits): 32 until a reading proves 64 */
static void test_unknown_width(void)
{
    struct pcie_counter pc = { 0 };
    int ev;
    pcie_counter_add(&pc, TWO_32 - 10e6, 0, 0, &ev);
    CHECK(pcie_counter_add(&pc, 10e6, 0.01, 0, &ev) == 20e6 && ev == 1);
    struct pcie_counter big = { 0 };
    pcie_counter_add(&big, 5 * TWO_32, 0, 0, &ev);
    CHECK(pcie_counter_add(&big, 5 * TWO_32 + 1e6, 0.01, 0, &ev) == 1e6);
    CHECK(pcie_counter_add(&big, 7e6, 0.01, 0, &ev) == 8e6 && ev == 2);
}

static void test_may_miss_wraps(void)
{
    CHECK(!pcie_may_miss_wraps(32, 0.010));
    CHECK(!pcie_may_miss_wraps(32, 0.033));
    CHECK(pcie_may_miss_wraps(32, 0.034));
    CHECK(pcie_may_miss_wraps(0, 0.1));
    CHECK(!pcie_may_miss_wraps(64, 10));
}

int main(void)
{
    run_test("pcie counter: growth, missing readings", test_growth_and_missing);
    run_test("pcie counter: 32-bit wrap is exact", test_wrap_32);
    run_test("pcie counter: a 64-bit drop is a reset, lower bound", test_reset_64);
    run_test("pcie counter: a wrap beyond the link's rate is a reset", test_implausible_wrap_is_reset);
    run_test("pcie counter: unknown width is 32 until a reading is >= 2^32", test_unknown_width);
    run_test("pcie counter: intervals that can hide a whole wrap", test_may_miss_wraps);
    return check_exit_status();
}
