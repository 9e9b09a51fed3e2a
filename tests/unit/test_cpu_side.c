/* test_cpu_side.c — the CPU side's decision (cpu_side.h), the merge of
 * short segments and the order of classes (segment_merge.h), the
 * recorder's per-thread run-queue count (proc_runq.h), and the evidence
 * the verdict gives for them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <time.h>

#include "check.h"
#include "cpu_side.h"
#include "proc_runq.h"
#include "segment_merge.h"
#include "verdict.h"
#include "window_texts.h"

static unsigned char decide(int tree, double cores, double runq, double host)
{
    struct cpu_interval c = { cores, runq, host };
    return cpu_side_decide(0.5, 90, tree, &c);
}

static void test_decide(void)
{
    /* a traced tree asleep on a saturated host: idle, whatever the host */
    CHECK(decide(1, 0.03, 0.001, 100) == ST_IDLE);
    CHECK(decide(1, 0.03, NAN, 100) == ST_IDLE);       /* an old trace: no run-queue column */
    /* burning a core: running */
    CHECK(decide(1, 0.98, 0.02, 100) == ST_BUSY);
    CHECK(decide(1, 0.5, 0, 3) == ST_BUSY);            /* the threshold itself */
    /* runnable but kept off the CPU: 0.2 cores run + 0.7 waited */
    CHECK(decide(1, 0.2, 0.7, 100) == CPU_ST_STARVED);
    CHECK(decide(1, 0.2, 0.3, 100) == CPU_ST_STARVED); /* 0.5 in all */
    CHECK(decide(1, 0.2, 0.29, 100) == ST_IDLE);
    CHECK(decide(1, 0.0, 0.0, 100) == ST_IDLE);        /* no wait at all is never starved */
    CHECK(decide(1, NAN, 0.9, 100) == ST_IDLE);        /* the tree's rate unknown: not the host's */
    /* no traced tree: the host's saturation */
    CHECK(decide(0, NAN, NAN, 90) == CPU_ST_SATURATED);
    CHECK(decide(0, NAN, NAN, 89.9) == ST_IDLE);
    CHECK(decide(0, NAN, NAN, NAN) == ST_IDLE);
    CHECK(cpu_side_busy(ST_BUSY) && cpu_side_busy(CPU_ST_STARVED) && cpu_side_busy(CPU_ST_SATURATED));
    CHECK(!cpu_side_busy(ST_IDLE) && !cpu_side_busy(ST_NONE));
}

/* The run-queue delay arrives in jumps (counted when a thread gets a CPU):
 * spread back over the flat time before it, no further than its size. */
static void test_runq_rates(void)
{
    struct host_sample h[7];
    const double ms[7] = { 0, 10, 20, 30, 40, 50, 60 };
    const double rq[7] = { 5, 5, 5, 5, 35, 35, NAN };   /* ms; the last reading skipped */
    memset(h, 0, sizeof h);
    for (int i = 0; i < 7; i++) {
        h[i].t = (int64_t)(ms[i] * 1e6);
        h[i].runq_s = rq[i] / 1e3;
    }
    double r[7];
    cpu_side_runq_rates(h, 7, r);
    CHECK(isnan(r[0]));
    CHECK_NEAR(r[1], 0, 1e-12);              /* 30 ms seen at 40 ms: spread over 10-40 ms */
    CHECK_NEAR(r[2], 1, 1e-12);
    CHECK_NEAR(r[3], 1, 1e-12);
    CHECK_NEAR(r[4], 1, 1e-12);
    CHECK_NEAR(r[5], 0, 1e-12);
    CHECK(isnan(r[6]));                      /* no reading after it */
    /* a jump larger than the flat time before it: no further back than that */
    const double rq2[7] = { 0, 0, 40, 40, 40, 40, 40 };
    for (int i = 0; i < 7; i++)
        h[i].runq_s = rq2[i] / 1e3;
    cpu_side_runq_rates(h, 7, r);
    CHECK_NEAR(r[1], 2, 1e-12);              /* 40 ms over 0-20 ms: 2 threads' worth */
    CHECK_NEAR(r[2], 2, 1e-12);
    CHECK_NEAR(r[3], 0, 1e-12);
}

/* A timeline from "state:length" pairs. */
static void build(struct timeline *tl, const unsigned char *st, const double *len, int n)
{
    double x = 0;
    for (int i = 0; i < n; i++) {
        tl_push(tl, x, i, st[i]);
        x += len[i];
    }
    tl_close(tl, x);
}

static void test_merge(void)
{
    const unsigned char B = ST_BUSY, I = ST_IDLE;
    /* the flapping: host-cpu 63%, waiting 37% in 20-40 ms pieces,
     * against the host figure's 100 ms: one segment of the majority */
    struct timeline a = { 0 };
    build(&a, (const unsigned char[]){ I, B, I, B, I, B, I, B },
          (const double[]){ 20, 40, 20, 30, 13, 40, 40, 50 }, 8);
    segment_merge_short(&a, 100);
    CHECK(a.n == 1 && a.st[0] == B && a.x[0] == 0 && a.x[1] == 253);
    tl_free(&a);
    /* a real change is kept, its short blips merged: idle 0-300 with a
     * 20 ms blip, busy 300-724 with a 30 ms dip */
    struct timeline b = { 0 };
    build(&b, (const unsigned char[]){ I, B, I, B, I, B },
          (const double[]){ 140, 20, 140, 200, 30, 194 }, 6);
    segment_merge_short(&b, 100);
    CHECK(b.n == 2 && b.st[0] == I && b.st[1] == B);
    CHECK(b.x[1] == 300 && b.x[2] == 724);
    CHECK(b.res[1] == 3);                       /* the edge keeps its own resolution */
    tl_free(&b);
    /* a short piece between two different neighbours joins the longer */
    struct timeline c = { 0 };
    build(&c, (const unsigned char[]){ I, B, CPU_ST_STARVED }, (const double[]){ 300, 50, 200 }, 3);
    segment_merge_short(&c, 100);
    CHECK(c.n == 2 && c.st[0] == I && c.st[1] == CPU_ST_STARVED && c.x[1] == 350 && c.x[2] == 550);
    tl_free(&c);
    struct timeline t = { 0 };          /* ... the earlier on a tie */
    build(&t, (const unsigned char[]){ I, B, CPU_ST_STARVED }, (const double[]){ 200, 50, 200 }, 3);
    segment_merge_short(&t, 100);
    CHECK(t.n == 2 && t.st[0] == I && t.x[1] == 250);
    tl_free(&t);
    /* at an end, its only neighbour */
    struct timeline e = { 0 };
    build(&e, (const unsigned char[]){ B, I, CPU_ST_STARVED, I },
          (const double[]){ 40, 200, 50, 200 }, 4);
    segment_merge_short(&e, 100);
    CHECK(e.n == 1 && e.st[0] == I && e.x[1] == 490);
    tl_free(&e);
    /* nothing shorter than the resolution: untouched */
    struct timeline f = { 0 };
    build(&f, (const unsigned char[]){ B, I }, (const double[]){ 100, 100 }, 2);
    segment_merge_short(&f, 100);
    CHECK(f.n == 2 && f.x[1] == 100);
    tl_free(&f);
    /* one segment shorter than the resolution stays */
    struct timeline g = { 0 };
    build(&g, (const unsigned char[]){ B }, (const double[]){ 40 }, 1);
    segment_merge_short(&g, 100);
    CHECK(g.n == 1 && g.x[1] == 40);
    tl_free(&g);
}

/* A random timeline of n pieces of 1-3 states, lengths from a few values
 * (ties) or any, resolutions distinct. */
static void random_timeline(struct timeline *tl, int n, int nstates, int ties)
{
    static const unsigned char states[] = { ST_IDLE, ST_BUSY, CPU_ST_STARVED };
    double x = 0;
    for (int i = 0; i < n; i++) {
        tl_push(tl, x, (double)i, states[check_rand() % (uint64_t)nstates]);
        x += ties ? (double)(10 * (1 + check_rand() % 12)) : 1 + (double)(check_rand() % 250000) / 1000;
    }
    tl_close(tl, x);
}

/* A copy of a closed timeline. */
static void copy_timeline(struct timeline *to, const struct timeline *from)
{
    for (int i = 0; i < from->n; i++)
        tl_push(to, from->x[i], from->res[i], from->st[i]);
    tl_close(to, from->x[from->n]);
}

static void isolated_busy(struct timeline *tl, double shortest)
{
    segment_merge_isolated(tl, ST_BUSY, ST_IDLE, shortest);
}

static void isolated_busy_walk(struct timeline *tl, double shortest)
{
    segment_merge_isolated_walk(tl, ST_BUSY, ST_IDLE, shortest);
}

/* merge and the walk it replaced (kept in segment_merge.c) give the same
 * timelines on 3,000 random ones (1-3 states, lengths with ties or not);
 * returns how many merged something. */
static int same_as_walk(void (*merge)(struct timeline *, double), void (*walk)(struct timeline *, double))
{
    int bad = 0, merged = 0;
    for (int rep = 0; rep < 3000; rep++) {
        struct timeline a = { 0 }, b = { 0 };
        random_timeline(&a, 1 + (int)(check_rand() % 60), 1 + rep % 3, rep % 2);
        copy_timeline(&b, &a);
        int before = a.n;
        double shortest = (double)(20 + check_rand() % 150);
        merge(&a, shortest);
        walk(&b, shortest);
        bad += a.n != b.n || memcmp(a.x, b.x, sizeof *a.x * (size_t)(a.n + 1)) != 0
               || memcmp(a.res, b.res, sizeof *a.res * (size_t)a.n) != 0 || memcmp(a.st, b.st, (size_t)a.n) != 0;
        merged += a.n < before;
        tl_free(&a);
        tl_free(&b);
    }
    CHECK(bad == 0);
    return merged;
}

static void test_merge_same_as_walk(void)
{
    CHECK(same_as_walk(segment_merge_short, segment_merge_short_walk) > 1000);
}

static void test_isolated_same_as_walk(void)
{
    CHECK(same_as_walk(isolated_busy, isolated_busy_walk) > 500);
}

/* CPU seconds to merge a host figure hovering at its threshold: n pieces
 * of 10 ms, in either state at random, against 100 ms; least of 3. */
static double merge_seconds(int n)
{
    double best = INFINITY;
    for (int run = 0; run < 3; run++) {
        struct timeline tl = { 0 };
        for (int i = 0; i < n; i++)
            tl_push(&tl, 10.0 * i, 5, check_rand() % 2 ? ST_BUSY : ST_IDLE);
        tl_close(&tl, 10.0 * n);
        clock_t c = clock();
        segment_merge_short(&tl, 100);
        best = fmin(best, (double)(clock() - c) / CLOCKS_PER_SEC);
        CHECK(tl.n >= 1 && tl.n < n / 10);
        tl_free(&tl);
    }
    return best;
}

/* A whole run's host figure: 4x the pieces cost ~4x, not the walk's 16x
 * (0.52 s for 80,000 samples); bound 8x, plus 20 ms for the clock's grain. */
static void test_merge_linear(void)
{
    double small = merge_seconds(100000), big = merge_seconds(400000);
    if (!CHECK(big <= 8 * small + 0.02))
        fprintf(stderr, "    100000 pieces: %.3f s, 400000: %.3f s\n", small, big);
}

/* Starved pieces between idle stretches: a wake-up's wait, dropped when
 * short; kept next to running time, or when longer than the quiet around. */
static void test_merge_isolated(void)
{
    const unsigned char B = ST_BUSY, I = ST_IDLE, S = CPU_ST_STARVED;
    /* the sleeping job's mark client: 18 ms starved at the window start */
    struct timeline a = { 0 };
    build(&a, (const unsigned char[]){ S, I }, (const double[]){ 18, 1000 }, 2);
    cpu_side_settle(&a, 1);
    CHECK(a.n == 1 && a.st[0] == I && a.x[0] == 0 && a.x[1] == 1018);
    tl_free(&a);
    /* wake-ups of a polling job: every short piece between long sleeps */
    struct timeline b = { 0 };
    build(&b, (const unsigned char[]){ I, S, I, S, I }, (const double[]){ 200, 40, 300, 99, 100 }, 5);
    cpu_side_settle(&b, 1);
    CHECK(b.n == 1 && b.st[0] == I && b.x[1] == 739);
    tl_free(&b);
    /* 100 ms or more is kept; so is a short piece next to running time */
    struct timeline c = { 0 };
    build(&c, (const unsigned char[]){ I, S, I, S, B }, (const double[]){ 200, 100, 300, 40, 200 }, 5);
    cpu_side_settle(&c, 1);
    CHECK(c.n == 5 && c.st[1] == S && c.st[3] == S && c.x[3] == 600);
    tl_free(&c);
    /* longer than the idle stretch beside it: most of a short window */
    struct timeline d = { 0 };
    build(&d, (const unsigned char[]){ I, S, I }, (const double[]){ 10, 50, 60 }, 3);
    cpu_side_settle(&d, 1);
    CHECK(d.n == 3 && d.st[1] == S);
    tl_free(&d);
    struct timeline e = { 0 };      /* a window all starved: one segment */
    build(&e, (const unsigned char[]){ S }, (const double[]){ 40 }, 1);
    cpu_side_settle(&e, 1);
    CHECK(e.n == 1 && e.st[0] == S);
    tl_free(&e);
    /* without a traced tree: the host figure's merge, shortest first */
    struct timeline f = { 0 };
    build(&f, (const unsigned char[]){ I, CPU_ST_SATURATED, I }, (const double[]){ 300, 50, 300 }, 3);
    cpu_side_settle(&f, 0);
    CHECK(f.n == 1 && f.st[0] == I && f.x[1] == 650);
    tl_free(&f);
}

/* One thread through proc_runq_step: ms in, what it adds in ms out. */
static struct runq_thread thr(char runnable, double delay_ms, double exec_ms, long slices, long ticks)
{
    struct runq_thread t;
    memset(&t, 0, sizeof t);
    t.tid = 42;
    t.runnable = runnable;
    t.delay_ns = (int64_t)(delay_ms * 1e6);
    t.exec_ns = (int64_t)(exec_ms * 1e6);
    t.slices = slices;
    t.ticks = ticks;
    return t;
}

/* now_ms from an arbitrary 1 s: CLOCK_MONOTONIC is never 0 (0 is "not held") */
static double step(struct runq_thread *prev, struct runq_thread cur, double now_ms)
{
    int64_t add = proc_runq_step(prev, 0, &cur, (int64_t)((1000 + now_ms) * 1e6));
    *prev = cur;
    return (double)add / 1e6;
}

static void test_runq_step(void)
{
    /* the first pass is the base: the delay before it is not counted */
    struct runq_thread p = thr(1, 500, 10, 5, 1);
    CHECK(proc_runq_step(NULL, 1, &p, 1000000000) == 0 && p.base_ns == 500000000);
    /* runnable, not run, 20 ms later: it waited those 20 ms (unreported) */
    CHECK(step(&p, thr(1, 500, 10, 5, 1), 20) == 20);
    CHECK(step(&p, thr(1, 500, 10, 5, 1), 40) == 20);
    /* it ran: the kernel reports 55 ms (it waited from before the first
     * pass that saw it); 40 of them were counted already */
    CHECK(step(&p, thr(1, 555, 12, 6, 1), 60) == 15);
    /* runnable again at that pass: held from there, once over a tick */
    CHECK(step(&p, thr(1, 555, 12, 6, 1), 70) == 0);      /* 10 ms: not yet */
    CHECK(step(&p, thr(1, 555, 12, 6, 1), 80) == 20);
    CHECK(step(&p, thr(1, 555, 12, 6, 1), 100) == 20);
    /* moved to another CPU's queue: 45 ms reported, 40 counted; held anew */
    CHECK(step(&p, thr(1, 600, 12, 6, 1), 105) == 5);
    CHECK(step(&p, thr(1, 600, 12, 6, 1), 125) == 20);
    /* its CPU time moved (stat's ticks only: the tickless case): not held;
     * the count never goes back below what was counted */
    CHECK(step(&p, thr(1, 600, 12, 6, 2), 145) == 0);
    CHECK(p.counted_ns == 120000000 && p.held_since_ns == 1145000000);
    /* asleep: nothing inferred, however long; then 12 ms reported beyond */
    CHECK(step(&p, thr(0, 600, 13, 7, 2), 200) == 0);
    CHECK(step(&p, thr(0, 600, 13, 7, 2), 400) == 0 && p.held_since_ns == 0);
    CHECK(step(&p, thr(0, 632, 14, 8, 2), 600) == 12);
    /* R at one pass only (a wake-up caught): not held */
    CHECK(step(&p, thr(1, 632, 15, 9, 2), 620) == 0);
    CHECK(step(&p, thr(0, 632, 16, 10, 2), 640) == 0);
    /* a thread born since the last pass adds all it has; in the first pass
     * that is its base */
    struct runq_thread n = thr(1, 7, 1, 1, 0);
    CHECK(proc_runq_step(NULL, 0, &n, 660000000) == 7000000);
    CHECK(n.held_since_ns == 660000000 && n.base_ns == 0 && n.counted_ns == 7000000);
    n = thr(1, 7, 1, 1, 0);
    CHECK(proc_runq_step(NULL, 1, &n, 660000000) == 0 && n.base_ns == 7000000);
    /* stat unreadable (ticks -1): never held */
    p = thr(1, 0, 0, 0, -1);
    p.held_since_ns = 1;
    n = thr(1, 0, 0, 0, -1);
    CHECK(proc_runq_step(&p, 0, &n, 500000000) == 0 && n.held_since_ns == 500000000);
}

/* The segments live in a few static arrays, reused in turn. */
static struct breakdown bd_of(const enum time_class *cls, const double *len, int n)
{
    static struct segment seg[4][BREAKDOWN_MAX_SEGMENTS];
    static int next;
    struct breakdown bd;
    memset(&bd, 0, sizeof bd);
    bd.valid = 1;
    bd.seg = seg[next++ % 4];
    double t = 0;
    for (int i = 0; i < n; i++) {
        bd.seg[bd.nseg++] = (struct segment){ t, t + len[i], cls[i], NULL };
        bd.ms[cls[i]] += len[i];
        t += len[i];
    }
    return bd;
}

static void test_order(void)
{
    const enum time_class W = CLASS_WAITING, H = CLASS_HOST_CPU, C = CLASS_COMPUTE;
    struct breakdown a = bd_of((const enum time_class[]){ W, C }, (const double[]){ 300, 424 }, 2);
    CHECK(segments_in_order(&a));
    struct breakdown b = bd_of((const enum time_class[]){ W, H, C }, (const double[]){ 1, 2, 3 }, 3);
    CHECK(segments_in_order(&b));
    struct breakdown c = bd_of((const enum time_class[]){ W, H, W }, (const double[]){ 50, 160, 43 }, 3);
    CHECK(!segments_in_order(&c));
    struct breakdown d = bd_of((const enum time_class[]){ H }, (const double[]){ 724 }, 1);
    CHECK(segments_in_order(&d));
    /* a 5 ms tail of waiting behind edges of +-45 ms cannot be placed: the
     * copy-then-compute window is still "waiting, then compute" */
    struct breakdown e = bd_of((const enum time_class[]){ W, C, W }, (const double[]){ 295, 420, 5 }, 3);
    CHECK(!segments_in_order(&e));
    e.resolution_ms = 45;
    CHECK(segments_in_order(&e));
    CHECK(segment_placed(&e, 0) && segment_placed(&e, 1) && !segment_placed(&e, 2));
    /* a short head is not what comes first */
    struct breakdown f = bd_of((const enum time_class[]){ C, W, C }, (const double[]){ 5, 300, 420 }, 3);
    f.resolution_ms = 45;
    CHECK(segments_in_order(&f));
}

static struct window_gpu gpu;
static struct window win;
static struct window_text_scratch win_texts;

static void set_window(const enum time_class *cls, const double *len, int n, double cpu_pct,
                       double cores)
{
    memset(&gpu, 0, sizeof gpu);
    memset(&win, 0, sizeof win);
    window_texts_init(&win);
    window_texts_begin(&win_texts, &win);
    gpu.source = SOURCE_COUNTER;
    gpu.mean_power_w = 75;
    gpu.util_pct = 0;
    gpu.idle_w = 75;
    gpu.busy_w = 700;
    gpu.samples = 72;
    win.ngpu = 1;
    win.gpu = &gpu;
    win.bd = bd_of(cls, len, n);
    win.bd.resolution_ms = 1;
    double d = 0;
    for (int i = 0; i < n; i++)
        d += len[i];
    win.duration_s = d / 1e3;
    win.host_cpu_pct = cpu_pct;
    win.proc_cores = cores;
    win.top_thread_cores = NAN;
    win.cpu_runq_ms = NAN;
}

static void test_evidence(void)
{
    struct analysis_options o;
    analysis_default_options(&o);
    const enum time_class W = CLASS_WAITING, H = CLASS_HOST_CPU;
    /* the held-out case: a traced job asleep on a saturated host */
    set_window((const enum time_class[]){ W }, (const double[]){ 724 }, 1, 97, 0.03);
    win.cpu_tree_known = 1;
    win.cpu_runq_ms = 2.4;
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_WAITING);
    CHECK_STR(win.evidence, "100% waiting (724 ms), edges +-1 ms; power 75 W = idle 75 W + 0% of the busy "
                            "range; gpu util 0%; cpu 97%; process 0.03 cores; host saturated by other "
                            "work, not the job's CPU (its threads waited 2 ms for one)");
    /* starved */
    set_window((const enum time_class[]){ H }, (const double[]){ 724 }, 1, 100, 0.31);
    win.cpu_tree_known = 1;
    win.cpu_runq_ms = 1810;
    win.cpu_starved_ms = 724;
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_HOST_CPU);
    CHECK_STR(win.evidence, "100% host-cpu (724 ms), edges +-1 ms; power 75 W = idle 75 W + 0% of the busy "
                            "range; gpu util 0%; cpu 100%; process 0.31 cores; CPU-starved 724 ms: the "
                            "job's threads waited 1810 ms for a CPU while other processes held them");
    win.host_cpu_pct = 40;          /* pinned to a busy core: the host not saturated */
    verdict_window(&o, &win);
    CHECK(strstr(win.evidence, "; cpu 40%; process 0.31 cores; CPU-starved 724 ms: the job's threads "
                               "waited 1810 ms for a CPU (the host not saturated: pinned cores, a CPU "
                               "quota or priority)") != NULL);
    /* no traced tree: saturation, said to be the host's */
    set_window((const enum time_class[]){ W, H, W }, (const double[]){ 50, 160, 43 }, 3, 89, NAN);
    win.cpu_saturated_ms = 160;
    verdict_window(&o, &win);
    CHECK(win.verdict == VERDICT_MIXED);
    CHECK_STR(win.evidence, "37% waiting (93 ms), 63% host-cpu (160 ms), interleaved, edges +-1 ms; power "
                            "75 W = idle 75 W + 0% of the busy range; gpu util 0%; cpu 89%; the job's CPU "
                            "is unknown (no traced process: --pid or -- CMD): host-cpu is the whole host "
                            ">= 90% busy");
}

int main(void)
{
    run_test("cpu side: the job's running and run-queue time, else the saturated host", test_decide);
    run_test("cpu side: run-queue delay spread back over its flat time", test_runq_rates);
    run_test("segment merge: short segments into their neighbours, shortest first", test_merge);
    run_test("segment merge: the list and heap merge as the walk did", test_merge_same_as_walk);
    run_test("segment merge: a whole run's flapping host figure, in linear time", test_merge_linear);
    run_test("segment merge: isolated pieces as the walk dropped them", test_isolated_same_as_walk);
    run_test("cpu side: a short starved piece between sleeps is dropped", test_merge_isolated);
    run_test("proc_runq: a thread runnable and not run between passes waited", test_runq_step);
    run_test("segment order: then, or interleaved", test_order);
    run_test("cpu side: evidence of starved, asleep on a busy host, and unknown job CPU", test_evidence);
    return check_exit_status();
}
