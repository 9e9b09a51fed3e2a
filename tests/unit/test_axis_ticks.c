/* test_axis_ticks.c — nice steps and their labels. */
#include "axis_ticks.h"
#include "check.h"

static void steps(void)
{
    CHECK(nice_tick_step(5.7, 10) == 1);
    CHECK(nice_tick_step(5.7, 14) == 0.5);
    CHECK(nice_tick_step(10, 5) == 2);
    CHECK(nice_tick_step(612, 4) == 200);
    CHECK(nice_tick_step(100, 4) == 50);
    CHECK(nice_tick_step(86400, 12) == 10000);
    CHECK_NEAR(nice_tick_step(0.724, 8), 0.1, 1e-15);
    CHECK_NEAR(nice_tick_step(0.003, 6), 0.0005, 1e-18);
    CHECK(nice_tick_step(0, 5) == 1);
    CHECK(nice_tick_step(NAN, 5) == 1);
}

static void ceilings(void)
{
    CHECK(nice_ceil(612, 200) == 800);
    CHECK(nice_ceil(600, 200) == 600);
    CHECK(nice_ceil(100, 50) == 100);
    CHECK_NEAR(nice_ceil(0.7, 0.1), 0.7, 1e-12);
}

static void labels(void)
{
    char b[32];
    CHECK_STR(format_tick(1.5, 0.5, b, sizeof b), "1.5");
    CHECK_STR(format_tick(2, 0.5, b, sizeof b), "2.0");
    CHECK_STR(format_tick(400, 200, b, sizeof b), "400");
    CHECK_STR(format_tick(0.3, 0.1, b, sizeof b), "0.3");
    CHECK_STR(format_tick(0.75, 0.25, b, sizeof b), "0.75");
    CHECK_STR(format_tick(-1e-17, 0.1, b, sizeof b), "0.0");
    CHECK_STR(format_tick(20000, 10000, b, sizeof b), "20000");
}

int main(void)
{
    run_test("nice tick steps are 1/2/5 x 10^k", steps);
    run_test("nice ceil of an axis top", ceilings);
    run_test("tick labels carry the step's decimals", labels);
    return check_exit_status();
}
