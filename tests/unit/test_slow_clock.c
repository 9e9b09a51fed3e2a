/* test_slow_clock.c — compute at a slow SM clock (slow_clock.h): the time
 * the clock's readings stand for against one GPU's compute, the
 * resolution it is known to, "the first request after idle", the
 * evidence clause, and the breakdown's reason as a whole (breakdown.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "breakdown.h"
#include "breakdown_internal.h"
#include "check.h"
#include "slow_clock.h"
#include "window_texts.h"

#define NS 64

/* Readings every 50 ms from -200 to 700 ms: clock(x) MHz, GpuIdle set
 * where the GPU idles (x < idle_until or x >= busy_until). */
static long samples(struct gpu_sample *s, double (*clock)(double), double idle_until, double busy_until)
{
    long n = 0;
    for (double x = -200; x <= 700; x += 50) {
        memset(&s[n], 0, sizeof s[n]);
        s[n].t = (int64_t)(x * 1e6);
        s[n].sm_clock_mhz = (float)clock(x);
        s[n].util_pct = NAN;
        s[n].idle_bit = x < idle_until || x >= busy_until;
        s[n].medium_fresh = 1;
        n++;
    }
    return n;
}

/* idle, busy [a, b), idle over [0, 500] */
static void timeline(struct timeline *tl, double a, double b)
{
    memset(tl, 0, sizeof *tl);
    if (a > 0)
        tl_push(tl, 0, 0, ST_IDLE);
    tl_push(tl, a, 1, ST_BUSY);
    if (b < 500)
        tl_push(tl, b, 1, ST_IDLE);
    tl_close(tl, 500);
}

static double ramp(double x) { return x >= 100 && x < 250 ? 700 : x >= 250 && x < 400 ? 1980 : 345; }
static double jump(double x) { return x >= 100 && x < 400 ? 1980 : 345; }
static double dip(double x) { return x >= 200 && x < 300 ? 800 : 1980; }
static double at989(double x) { return x >= 0 && x < 500 ? 989 : 345; }
static double at990(double x) { return x >= 0 && x < 500 ? 990 : 345; }

static void run(double (*clock)(double), double a, double b, double max_mhz, struct window_gpu *g)
{
    struct gpu_sample s[NS];
    struct timeline tl;
    long n = samples(s, clock, a, b);
    timeline(&tl, a, b);
    memset(g, 0, sizeof *g);
    g->max_sm_clock_mhz = max_mhz;
    slow_clock_gpu(&tl, s, n, 0, 0, 500, g);
    tl_free(&tl);
}

static void test_ramp_after_idle(void)
{
    struct window_gpu g;
    /* slow readings up to 200 ms, the first fast at 250: slow until 225;
     * the compute from 100 ms: 125 ms, +-25 (half the 50 ms gap) */
    run(ramp, 100, 400, 1980, &g);
    CHECK_NEAR(g.slow_clock_ms, 125, 1e-9);
    CHECK_NEAR(g.slow_clock_res_ms, 25, 1e-9);
    CHECK_NEAR(g.slow_clock_from_ms, 100, 1e-9);
    CHECK(g.slow_clock_after_idle);
    /* the idle reading after the compute's end covers 375-400: 25 ms, not
     * more than the resolution: not counted (above) */
}

static void test_jump_is_nothing(void)
{
    struct window_gpu g;
    run(jump, 100, 400, 1980, &g);
    CHECK_NEAR(g.slow_clock_ms, 0, 1e-9);
    CHECK(isnan(g.slow_clock_from_ms));
    CHECK(!g.slow_clock_after_idle);
}

static void test_dip_mid_compute(void)
{
    struct window_gpu g;
    /* busy over the whole window, before it too; 800 MHz at 200 and 250 */
    run(dip, 0, 500, 1980, &g);
    CHECK_NEAR(g.slow_clock_ms, 100, 1e-9);
    CHECK_NEAR(g.slow_clock_from_ms, 175, 1e-9);
    CHECK(!g.slow_clock_after_idle);
}

static void test_threshold_and_unknown(void)
{
    struct window_gpu g;
    run(at989, 0, 500, 1980, &g);             /* 989 < 990: the whole compute */
    CHECK_NEAR(g.slow_clock_ms, 500, 1e-9);
    CHECK(g.slow_clock_after_idle);            /* GpuIdle set before the window */
    run(at990, 0, 500, 1980, &g);             /* half exactly is not below half */
    CHECK_NEAR(g.slow_clock_ms, 0, 1e-9);
    run(at989, 0, 500, NAN, &g);              /* no maximum recorded: unknown */
    CHECK(isnan(g.slow_clock_ms) && isnan(g.slow_clock_res_ms));
    run(at989, 0, 500, 1900, &g);             /* against the GPU's own maximum */
    CHECK_NEAR(g.slow_clock_ms, 0, 1e-9);
}

static void test_evidence(void)
{
    struct window_gpu gpu[2];
    struct window w;
    struct window_text_scratch texts;
    memset(&w, 0, sizeof w);
    window_texts_init(&w);
    window_texts_begin(&texts, &w);
    memset(gpu, 0, sizeof gpu);
    w.gpu = gpu;
    w.ngpu = 1;
    gpu[0].slow_clock_ms = 180.6;
    gpu[0].slow_clock_res_ms = 27.3;
    gpu[0].slow_clock_after_idle = 1;
    char buf[200] = "power 612 W";
    size_t len = slow_clock_evidence(&w, buf, sizeof buf, strlen(buf));
    CHECK_STR(buf, "power 612 W; clocks below half of max for 181 ms (+-27 ms): the first request after idle");
    CHECK(len == strlen(buf));
    w.ngpu = 2;
    gpu[1] = gpu[0];
    gpu[1].gpu = 1;
    gpu[1].slow_clock_ms = 200;
    gpu[1].slow_clock_after_idle = 0;
    buf[0] = '\0';
    slow_clock_evidence(&w, buf, sizeof buf, 0);
    CHECK_STR(buf, "; gpu 1 clocks below half of max for 200 ms (+-27 ms)");
    CHECK(slow_clock_top(&w) == 1);
    gpu[0].slow_clock_ms = gpu[1].slow_clock_ms = NAN;
    CHECK(slow_clock_top(&w) == -1);
    CHECK(slow_clock_evidence(&w, buf, sizeof buf, 3) == 3);
}

static void test_window_reason(void)
{
    struct breakdown bd;
    struct segment seg[3];
    memset(&bd, 0, sizeof bd);
    bd.valid = 1;
    bd.nseg = 3;
    bd.seg = seg;
    bd.seg[0] = (struct segment){ 0, 100, CLASS_WAITING, "gpu-spin" };
    bd.seg[1] = (struct segment){ 100, 400, CLASS_COMPUTE, NULL };
    bd.seg[2] = (struct segment){ 400, 450, CLASS_WAITING, "other" };
    CHECK_STR(breakdown_reason(&bd), "gpu-spin");     /* the most time */
    bd.seg[2].end_ms = 600;
    CHECK_STR(breakdown_reason(&bd), "other");
    bd.seg[2].end_ms = 500;                            /* a tie: the first in time */
    CHECK_STR(breakdown_reason(&bd), "gpu-spin");
    bd.seg[0].reason = bd.seg[2].reason = NULL;
    CHECK(breakdown_reason(&bd) == NULL);
    bd.valid = 0;
    CHECK(breakdown_reason(&bd) == NULL);
}

int main(void)
{
    run_test("ramp after idle: slow to the clock's sampling", test_ramp_after_idle);
    run_test("a clock that jumps: nothing", test_jump_is_nothing);
    run_test("slow in the middle of compute: not after idle", test_dip_mid_compute);
    run_test("below half, not at half; no maximum; the GPU's own maximum", test_threshold_and_unknown);
    run_test("the evidence clause, one GPU and several", test_evidence);
    run_test("the breakdown's reason as a whole", test_window_reason);
    return check_exit_status();
}
