/* test_gpu_spin.c — gpu_spin_mark (gpu_spin.h) marks the same stretches
 * as the rule applied stretch by stretch over every sample (the way it
 * was written first, kept here as the reference), on random timelines
 * and GPM spans, with the samples' times going forward and with some
 * going back; and a window over a million samples and thousands of
 * stretches is marked in time linear in them, not their product. */
#include <stdlib.h>
#include <time.h>

#include "breakdown_internal.h"
#include "check.h"
#include "gpu_spin.h"

static double ref_util_in(const struct gpu_sample *smp, long n, double t0, double a, double b)
{
    double sum = 0;
    long k = 0;
    for (long i = 0; i < n; i++) {
        double x = ((double)smp[i].t - t0) / 1e6;
        if (x > a && x <= b && !isnan(smp[i].util_pct)) {
            sum += smp[i].util_pct;
            k++;
        }
    }
    return k ? sum / (double)k : NAN;
}

static void ref_spin_mark(const struct gpu_sample *smp, long n, double t0, double d, double util_lag_ms,
                          struct timeline *tl)
{
    for (int p = 0; p < tl->n; p++) {
        if (tl->st[p] != ST_BUSY && tl->st[p] != ST_IDLE)
            continue;
        double lo = tl->x[p], hi = tl->x[p + 1];
        int spans = 0, spins = 0;
        for (long i = 0; i < n; i++) {
            const struct gpu_sample *s = &smp[i];
            if (!(s->gpm_span_ms > 0) || isnan(s->sm_active_pct))
                continue;
            double end = ((double)s->t - t0) / 1e6, start = end - s->gpm_span_ms;
            if (start < 0 || end > d || fmin(end, hi) - fmax(start, lo) < s->gpm_span_ms / 2)
                continue;
            spans++;
            double ua = start + 2 * util_lag_ms, ub = end + util_lag_ms;
            double u = ref_util_in(smp, n, t0, ua < ub ? ua : start + util_lag_ms, ub);
            if (isnan(u))
                u = ref_util_in(smp, n, t0, start, end);
            spins += u >= SPIN_UTIL_PCT && s->sm_active_pct <= SPIN_SM_ACTIVE_PCT
                     && !isnan(s->dram_bw_pct) && s->dram_bw_pct <= SPIN_DRAM_BW_PCT;
        }
        if (spans > 0 && spins == spans)
            tl->st[p] = ST_SPIN;
    }
}

static long rnd(long n)
{
    return (long)(check_rand() % (uint64_t)n);
}

/* n samples 10 ms apart from t0 - 300 ms (some steps back when `back`),
 * GPM every `every` samples (spans of 100-300 ms), utilization and SM
 * activity in runs that make spins and near-spins, some readings missing. */
static void make_samples(struct gpu_sample *smp, long n, double t0, int back, int every)
{
    int util = 95, smact = 3, dram = 2;
    for (long i = 0; i < n; i++) {
        struct gpu_sample *s = &smp[i];
        memset(s, 0, sizeof *s);
        s->t = (int64_t)t0 - 300000000 + i * 10000000 + rnd(3000000);
        if (back && rnd(20) == 0)
            s->t -= 15000000 + rnd(40000000);
        if (rnd(25) == 0) {
            util = rnd(3) ? 90 + (int)rnd(11) : (int)rnd(90);
            smact = rnd(3) ? (int)rnd(12) : 50;
            dram = rnd(4) ? (int)rnd(12) : 60;
        }
        s->util_pct = rnd(15) ? (float)util : NAN;
        s->gpm_span_ms = NAN;
        s->sm_active_pct = NAN;
        s->dram_bw_pct = NAN;
        if (i % every == 0) {
            s->gpm_span_ms = (float)(100 + rnd(201));
            s->sm_active_pct = rnd(10) ? (float)smact : NAN;
            s->dram_bw_pct = rnd(10) ? (float)dram : NAN;
        }
    }
}

/* A closed timeline over [0, d] of k stretches, in random states. */
static void make_timeline(struct timeline *tl, double d, int k)
{
    static const unsigned char states[] = { ST_BUSY, ST_IDLE, ST_NONE, ST_UNREC, ST_BUSY, ST_IDLE };
    double x = 0;
    for (int i = 0; i < k && x < d; i++) {
        tl_push(tl, x, 0, states[rnd(6)]);
        x += 1 + (double)rnd((long)(2 * d / k));
    }
    tl_close(tl, d);
}

static void copy_timeline(struct timeline *to, const struct timeline *from)
{
    for (int i = 0; i < from->n; i++)
        tl_push(to, from->x[i], from->res[i], from->st[i]);
    tl_close(to, from->x[from->n]);
}

static void test_same_as_reference(void)
{
    static struct gpu_sample smp[600];
    int bad = 0, marked = 0, runs = 0;
    for (int rep = 0; rep < 400; rep++) {
        double t0 = 5e9, d = 2000 + (double)rnd(3000);
        long n = 100 + rnd(500);
        make_samples(smp, n, t0, rep % 3 == 0, 1 + (int)rnd(12));
        struct timeline a = { 0 }, b = { 0 };
        make_timeline(&a, d, 1 + (int)rnd(60));
        copy_timeline(&b, &a);
        double lag = (double)rnd(3) * 50;
        CHECK(gpu_spin_mark(smp, n, t0, d, lag, &a) == 0);
        ref_spin_mark(smp, n, t0, d, lag, &b);
        bad += a.n != b.n || memcmp(a.st, b.st, (size_t)a.n) != 0;
        for (int i = 0; i < a.n; i++)
            marked += a.st[i] == ST_SPIN;
        runs++;
        tl_free(&a);
        tl_free(&b);
    }
    CHECK(bad == 0);
    CHECK(marked > 100);            /* the cases hold spins, not only their absence */
    CHECK(runs == 400);
}

/* CPU seconds to mark n samples (GPM every 10th) against n / 100
 * stretches, the least of 3 runs; *marked: the spins found. */
static double mark_seconds(struct gpu_sample *smp, long n, int *marked)
{
    double t0 = 1e9, d = (double)n * 9.9, best = INFINITY;
    make_samples(smp, n, t0, 0, 10);
    for (int run = 0; run < 3; run++) {
        struct timeline tl = { 0 };
        make_timeline(&tl, d, (int)(n / 100));
        clock_t c = clock();
        CHECK(gpu_spin_mark(smp, n, t0, d, 100, &tl) == 0);
        double s = (double)(clock() - c) / CLOCKS_PER_SEC;
        best = fmin(best, s);
        *marked = 0;
        for (int i = 0; i < tl.n; i++)
            *marked += tl.st[i] == ST_SPIN;
        tl_free(&tl);
    }
    return best;
}

/* A window over a whole run: 4x the samples and stretches cost ~4x, not
 * the 16x of the rule stretch by stretch over every sample (a 10,000 s
 * window took 15 s that way); bound 8x, plus 20 ms for the clock's grain. */
static void test_long_window(void)
{
    long n = 1000000;
    struct gpu_sample *smp = malloc(sizeof *smp * (size_t)n);
    CHECK(smp != NULL);
    if (!smp)
        return;
    int marked_small, marked_big;
    double small = mark_seconds(smp, n / 4, &marked_small), big = mark_seconds(smp, n, &marked_big);
    CHECK(marked_small > 0 && marked_big > 0);
    if (!CHECK(big <= 8 * small + 0.02))
        fprintf(stderr, "    %ld samples: %.3f s, %ld: %.3f s\n", n / 4, small, n, big);
    free(smp);
}

int main(void)
{
    run_test("gpu spin: the same stretches as the rule stretch by stretch", test_same_as_reference);
    run_test("gpu spin: a million samples and 10,000 stretches, in linear time", test_long_window);
    return check_exit_status();
}
