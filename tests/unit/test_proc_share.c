/* test_proc_share.c — per-process readings placed in time, a window's split
 * weighted by overlap, and the verdict rule for compute that was mostly
 * other processes'. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "proc_share.h"
#include "window_texts.h"

#define S 1000000000LL

/* A SAMPLE row at t (s) carrying a reading whose newest sample is ts_s,
 * with wall = mono + 1000 s. */
static struct trace_row row(double t, double ts_s, double proc, double other, int recording)
{
    struct trace_row r;
    memset(&r, 0, sizeof r);
    for (int c = 0; c < COL_COUNT; c++)
        r.v[c] = NAN;
    r.type = TRACE_SAMPLE;
    r.t_mono_ns = (int64_t)llround(t * 1e9);
    r.t_wall_ns = r.t_mono_ns + 1000 * S;
    r.has_wall = 1;
    r.recording = recording;
    r.v[COL_GPU_PROC_SM_PCT] = proc;
    r.v[COL_GPU_OTHER_SM_PCT] = other;
    r.v[COL_GPU_PROC_UTIL_TS_US] = isnan(ts_s) ? NAN : (ts_s + 1000) * 1e6;
    return r;
}

static void test_placement(void)
{
    struct proc_share_log l;
    memset(&l, 0, sizeof l);
    struct trace_row r = row(1.5, NAN, NAN, NAN, 1);
    CHECK(proc_share_add(&l, &r) == 0 && l.n == 0);          /* no reading on this row */
    r = row(2.0, 1.9, 20, 60, 1);
    CHECK(proc_share_add(&l, &r) == 0 && l.n == 1);
    CHECK(l.r[0].t1 == 19 * S / 10 && l.r[0].t0 == 9 * S / 10);  /* the first: the second before */
    r = row(3.0, 2.9, 80, 0, 1);
    proc_share_add(&l, &r);
    CHECK(l.n == 2 && l.r[1].t0 == 19 * S / 10 && l.r[1].t1 == 29 * S / 10);
    r = row(3.5, 2.9, 10, 10, 1);                            /* the same newest sample: nothing new */
    proc_share_add(&l, &r);
    CHECK(l.n == 2);
    r = row(4.0, 5.0, 30, 30, 1);                            /* stamped after its row: the row's time */
    proc_share_add(&l, &r);
    CHECK(l.n == 3 && l.r[2].t1 == 4 * S && l.r[2].t0 == 29 * S / 10);
    r = row(20.0, 19.9, 50, 50, 2);                          /* a new recording starts afresh */
    proc_share_add(&l, &r);
    CHECK(l.n == 4 && l.r[3].t0 == 189 * S / 10);
    proc_share_free(&l);
    CHECK(l.r == NULL && l.n == 0);
}

static void test_window_split(void)
{
    struct proc_share_log l;
    memset(&l, 0, sizeof l);
    struct trace_row r = row(2.0, 2.0, 20, 60, 1);  /* covers [1, 2] */
    proc_share_add(&l, &r);
    r = row(3.0, 3.0, 80, 0, 1);                    /* covers [2, 3] */
    proc_share_add(&l, &r);
    struct window_gpu g;
    memset(&g, 0, sizeof g);
    proc_share_window(&l, 2 * S + S / 2, 3 * S, &g);  /* inside the second reading */
    CHECK_NEAR(g.proc_sm_pct, 80, 1e-9);
    CHECK_NEAR(g.other_sm_pct, 0, 1e-9);
    CHECK(g.proc_readings == 1 && g.proc_t0_ns == 2 * S && g.proc_t1_ns == 3 * S);
    CHECK_NEAR(g.proc_cover, 1, 1e-12);
    proc_share_window(&l, S + S / 2, 2 * S + S / 2, &g);  /* half of each */
    CHECK_NEAR(g.proc_sm_pct, 50, 1e-9);
    CHECK_NEAR(g.other_sm_pct, 30, 1e-9);
    CHECK(g.proc_readings == 2);
    proc_share_window(&l, 2 * S + S / 2, 4 * S, &g);      /* half past the last reading */
    CHECK_NEAR(g.proc_sm_pct, 80, 1e-9);
    CHECK_NEAR(g.proc_cover, 1.0 / 3, 1e-12);
    proc_share_window(&l, 5 * S, 6 * S, &g);              /* no reading: no split */
    CHECK(isnan(g.proc_sm_pct) && isnan(g.other_sm_pct) && g.proc_readings == 0);
    char buf[256];
    CHECK_STR(proc_share_text(&g, buf, sizeof buf), "");
    proc_share_window(&l, S + S / 2, 2 * S + S / 2, &g);
    CHECK_STR(proc_share_text(&g, buf, sizeof buf),
              "SM busy 80%: the traced job 50%, other processes 30% (2 per-process readings over "
              "2.0 s around the window, covering 100% of it)");
    proc_share_free(&l);
}

static void test_verdict(void)
{
    struct window_gpu g;
    struct window w;
    struct window_text_scratch texts;
    memset(&g, 0, sizeof g);
    memset(&w, 0, sizeof w);
    window_texts_init(&w);
    window_texts_begin(&texts, &w);
    w.ngpu = 1;
    w.gpu = &g;
    g.proc_sm_pct = 20;
    g.other_sm_pct = 60;
    w.verdict = VERDICT_COMPUTE;
    snprintf(w.evidence, EVIDENCE_MAX, "100%% compute (724 ms)");
    proc_share_verdict(&w);
    CHECK(w.verdict == VERDICT_MIXED);
    CHECK_STR(w.evidence, "the GPU computed mostly for other processes (SM time: the traced job 20%, "
              "others 60%), not for the job; 100% compute (724 ms); sm 80% = job 20% + other processes 60%");
    g.proc_sm_pct = 60;                                  /* the job's own compute stays compute */
    g.other_sm_pct = 20;
    w.verdict = VERDICT_COMPUTE;
    snprintf(w.evidence, EVIDENCE_MAX, "100%% compute (724 ms)");
    proc_share_verdict(&w);
    CHECK(w.verdict == VERDICT_COMPUTE);
    CHECK_STR(w.evidence, "100% compute (724 ms); sm 80% = job 60% + other processes 20%");
    g.proc_sm_pct = g.other_sm_pct = NAN;                /* no readings: untouched */
    snprintf(w.evidence, EVIDENCE_MAX, "x");
    proc_share_verdict(&w);
    CHECK(w.verdict == VERDICT_COMPUTE);
    CHECK_STR(w.evidence, "x");
    g.proc_sm_pct = 0;                                   /* a waiting window keeps its verdict */
    g.other_sm_pct = 90;
    w.verdict = VERDICT_WAITING;
    proc_share_verdict(&w);
    CHECK(w.verdict == VERDICT_WAITING);
}

int main(void)
{
    run_test("proc_share: readings placed by their driver timestamps", test_placement);
    run_test("proc_share: a window's split weighted by overlap, and its text", test_window_split);
    run_test("proc_share: compute mostly other processes' is mixed, never the job's", test_verdict);
    return check_exit_status();
}
