/* test_verdict.c — verdict rules and thresholds, evidence text, levels
 * from the power histogram, uncertainty per source. */
#include <math.h>

#include "check.h"
#include "verdict.h"

static struct window_gpu gpu;
static struct window win;

static void setup(double power, double util, double cpu, double cores)
{
    memset(&gpu, 0, sizeof gpu);
    memset(&win, 0, sizeof win);
    gpu.gpu = 0;
    gpu.source = SOURCE_COUNTER;
    gpu.mean_power_w = power;
    gpu.util_pct = util;
    gpu.idle_w = 60;
    gpu.busy_w = 660;
    gpu.samples = 72;
    win.ngpu = 1;
    win.gpu = &gpu;
    win.duration_s = 0.724;
    win.host_cpu_pct = cpu;
    win.proc_cores = cores;
}

static void test_rules(void)
{
    struct analysis_options o;
    analysis_default_options(&o);
    setup(72, 0, 3, NAN);
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_WAITING);
    CHECK_STR(win.evidence, "power 72 W = idle 60 W + 2% of the busy range; gpu util 0%; cpu 3%");
    setup(612, 98, 3, NAN);
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_COMPUTE);
    setup(62, 0, 10, 0.97);
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_HOST_CPU);
    CHECK_STR(win.evidence, "power 62 W = idle 60 W + 0% of the busy range; gpu util 0%; cpu 10%; "
                            "process 0.97 cores");
    setup(62, 0, 95, NAN);
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_HOST_CPU);
    setup(240, 30, 3, NAN);                 /* 30% of the range */
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_MIXED);
    o.compute_frac = 0.25;                  /* thresholds are options */
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_COMPUTE);
}

static void test_inconclusive_and_reasons(void)
{
    struct analysis_options o;
    analysis_default_options(&o);
    setup(612, 98, 3, NAN);
    gpu.samples = 1;
    win.flags = WINDOW_FEW_SAMPLES;
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_INCONCLUSIVE);
    CHECK(strncmp(win.evidence, "fewer than two samples in the window; power 612 W", 49) == 0);
    setup(612, 98, 3, NAN);
    gpu.reason_counts[2] = 5;               /* 0x4: SW power cap */
    verdict_window(&o, &win);
    CHECK(strstr(win.evidence, "; sw power cap in 5 of 72 samples") != NULL);
    setup(612, 98, 3, NAN);
    gpu.busy_w = NAN;
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_INCONCLUSIVE);
    setup(100, 0, 3, NAN);                  /* busy == idle: no range, no "inf%" */
    gpu.idle_w = gpu.busy_w = 100;
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_INCONCLUSIVE);
    CHECK_STR(win.evidence, "no busy power level known (use --busy-w); power 100 W; gpu util 0%; cpu 3%");
}

static void test_levels_and_uncertainty(void)
{
    static struct power_hist h;
    for (int i = 0; i < 96; i++)
        power_hist_add(&h, 60);
    for (int i = 0; i < 4; i++)
        power_hist_add(&h, 612);
    double idle, busy;
    const char *origin;
    verdict_levels(&h, NAN, &idle, &busy, &origin);
    CHECK(idle == 60 && busy == 612);        /* p95 is idle: falls back to the maximum */
    CHECK_STR(origin, "trace p5/max");
    static struct power_hist flat;
    for (int i = 0; i < 10; i++)
        power_hist_add(&flat, 60);
    verdict_levels(&flat, 700, &idle, &busy, &origin);
    CHECK(idle == 60 && busy == 700);
    CHECK_STR(origin, "trace p5/power limit");
    setup(612, 98, 3, NAN);
    gpu.counter_step_s = 0.025;
    CHECK_NEAR(energy_uncertainty_j(&gpu, 0.724), 0.025 * 612, 1e-9);
    gpu.source = SOURCE_INSTANT;
    gpu.max_gap_s = 0.010;
    CHECK_NEAR(energy_uncertainty_j(&gpu, 0.724), 0.010 * 600 / 2, 1e-9);
    gpu.source = SOURCE_AVERAGE;
    CHECK_NEAR(energy_uncertainty_j(&gpu, 0.724), 600 * 0.724, 1e-9);
    CHECK_NEAR(energy_uncertainty_j(&gpu, 3.0), 600 * 1.0, 1e-9);
}

int main(void)
{
    run_test("verdict: compute, waiting, host-cpu, mixed and thresholds", test_rules);
    run_test("verdict: inconclusive, clock-event reasons in evidence", test_inconclusive_and_reasons);
    run_test("verdict: levels from the histogram, uncertainty per source", test_levels_and_uncertainty);
    return check_exit_status();
}
