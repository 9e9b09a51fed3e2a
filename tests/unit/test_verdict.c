/* test_verdict.c — verdict rules and thresholds, evidence text, levels
 * from the power histogram, uncertainty per source. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "verdict.h"
#include "window_texts.h"

static struct window_gpu gpu;
static struct window win;
static struct window_text_scratch win_texts;

static void setup(double power, double util, double cpu, double cores)
{
    memset(&gpu, 0, sizeof gpu);
    memset(&win, 0, sizeof win);
    window_texts_init(&win);
    window_texts_begin(&win_texts, &win);
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
    verdict_levels(&h, NULL, NAN, &idle, &busy, &origin);
    CHECK(idle == 60 && busy == 612);        /* p95 is idle: falls back to the maximum */
    CHECK_STR(origin, "trace p5/max");
    static struct power_hist flat;
    for (int i = 0; i < 10; i++)
        power_hist_add(&flat, 60);
    verdict_levels(&flat, NULL, 700, &idle, &busy, &origin);
    CHECK(idle == 60 && busy == 700);
    CHECK_STR(origin, "trace p5/power limit");
    /* the idle level only from quiet samples (utilization <= 5%): steady
     * decode at 220 W and 100% fills 97% of the trace, idle (75 W) 3% */
    static struct power_hist all, quiet, none;
    for (int i = 0; i < 97; i++)
        power_hist_add(&all, 220);
    for (int i = 0; i < 3; i++) {
        power_hist_add(&all, 75);
        power_hist_add(&quiet, 75);
    }
    verdict_levels(&all, NULL, 700, &idle, &busy, &origin);
    CHECK(idle == 220);                      /* every sample: decode taken for idle */
    verdict_levels(&all, &quiet, 700, &idle, &busy, &origin);
    CHECK(idle == 75 && busy == 220);
    CHECK_STR(origin, "trace p5/p95");
    /* never quiet: no levels at all, never the lowest busy power */
    verdict_levels(&all, &none, 700, &idle, &busy, &origin);
    CHECK(isnan(idle) && isnan(busy));
    CHECK_STR(origin, "none (utilization above 5% in every sample: the GPU never idled)");
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

/* A breakdown decides: the class holding >= 2/3, else mixed naming the
 * parts in order; a window under the resolution is inconclusive; a thread
 * at >= 0.9 of a core while no GPU computed is called a bottleneck. */
static void set_breakdown(double wait_ms, double host_ms, double res_ms)
{
    setup(75, 0, 3, NAN);
    static struct segment seg[BREAKDOWN_MAX_SEGMENTS];
    win.bd.valid = 1;
    win.bd.resolution_ms = res_ms;
    win.bd.nseg = 0;
    win.bd.seg = seg;
    double t = 0;
    if (wait_ms > 0) {
        win.bd.seg[win.bd.nseg++] = (struct segment){ t, t + wait_ms, CLASS_WAITING, NULL };
        t += wait_ms;
    }
    if (host_ms > 0)
        win.bd.seg[win.bd.nseg++] = (struct segment){ t, t + host_ms, CLASS_HOST_CPU, NULL };
    win.bd.ms[CLASS_WAITING] = wait_ms;
    win.bd.ms[CLASS_HOST_CPU] = host_ms;
    win.bd.ms[CLASS_COMPUTE] = 0;
    win.duration_s = (wait_ms + host_ms) / 1e3;
    win.top_thread_cores = NAN;
}

static void test_breakdown_verdict(void)
{
    struct analysis_options o;
    analysis_default_options(&o);
    set_breakdown(100, 624, 5);
    win.top_thread_cores = 0.98;
    snprintf(win.top_thread, sizeof win.top_thread, "4242 python3");
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_HOST_CPU);
    CHECK(strncmp(win.evidence, "14% waiting (100 ms), then 86% host-cpu (624 ms), edges +-5 ms; power 75 W", 74) == 0);
    CHECK(strstr(win.evidence, "; one thread '4242 python3' 0.98 of a core while no GPU computed: "
                               "a single-thread (GIL-bound) bottleneck") != NULL);
    set_breakdown(300, 424, 5);
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_MIXED);
    CHECK(strncmp(win.evidence, "41% waiting (300 ms), then 59% host-cpu (424 ms)", 48) == 0);
    CHECK(strstr(win.evidence, "thread") == NULL);
    o.class_frac = 0.55;
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_HOST_CPU);
    set_breakdown(40, 0, 50);                /* 40 ms against +-50 ms edges */
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_INCONCLUSIVE);
    CHECK(strncmp(win.evidence, "the window (40 ms) is shorter than the breakdown's resolution (+-50 ms", 70) == 0);
}

int main(void)
{
    run_test("verdict: from the breakdown, mixed in order, resolution, busy thread", test_breakdown_verdict);
    run_test("verdict: compute, waiting, host-cpu, mixed and thresholds", test_rules);
    run_test("verdict: inconclusive, clock-event reasons in evidence", test_inconclusive_and_reasons);
    run_test("verdict: levels from the histogram, uncertainty per source", test_levels_and_uncertainty);
    return check_exit_status();
}
