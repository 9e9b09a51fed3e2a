/*
 * test_live_windows.c — the live analysis (live_windows.c): each window is
 * reported once, with the energy analyze measures, as soon as the samples
 * after its end are in; and memory stays flat over 300,000 windows (a
 * day of requests), because reported windows are dropped, even behind a
 * range that never ends. Every range at once (the per-range-name metrics)
 * comes as one more definition.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "check.h"
#include "diag.h"
#include "live_windows.h"

#ifdef __SANITIZE_ADDRESS__
/* AddressSanitizer keeps freed blocks in a quarantine of up to 256 MB
 * before reusing them, so a process that frees as much as it allocates
 * still grows until the quarantine is full: "flat memory" is measured with
 * it off (the environment's ASAN_OPTIONS still apply on top). */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=0"; }
#endif

#define MS 1000000LL

struct seen { long n; double energy_sum, last_energy, last_dur; long bad; };

static int on_window(void *arg, int def, long nth, const struct window *w, const char *origin)
{
    struct seen *s = arg;
    (void)origin;
    s->n++;
    if (def != 0 || nth != s->n)
        s->bad++;
    s->energy_sum += w->energy_j;
    s->last_energy = w->energy_j;
    s->last_dur = w->duration_s;
    return EXIT_OK;
}

static struct trace_reader fake_reader(void)
{
    struct trace_reader tr;
    memset(&tr, 0, sizeof tr);
    tr.path = "live";
    for (int c = 0; c < COL_COUNT; c++)
        tr.col[c] = -1;
    tr.col[COL_GPU_POWER_W] = tr.col[COL_GPU_ENERGY_MJ] = tr.col[COL_HOST_CPU_BUSY_PCT] = 1;
    return tr;
}

/* A 100 W GPU sampled every 10 ms; the counter steps 1000 mJ per sample;
 * the host 5% busy (without any host column an edge waits for the end). */
static void sample(struct live_windows *lw, int64_t t)
{
    struct trace_row r;
    memset(&r, 0, sizeof r);
    for (int c = 0; c < COL_COUNT; c++)
        r.v[c] = NAN;
    r.type = TRACE_SAMPLE;
    r.t_mono_ns = t;
    r.gpu = 0;
    r.label = "";
    r.v[COL_GPU_POWER_W] = 100;
    r.v[COL_HOST_CPU_BUSY_PCT] = 5;
    r.v[COL_GPU_ENERGY_MJ] = (double)(t / (10 * MS)) * 1000;
    live_windows_row(lw, &r);
}

static struct trace_row mark_row(const char *label, int64_t t)
{
    struct trace_row r;
    memset(&r, 0, sizeof r);
    for (int c = 0; c < COL_COUNT; c++)
        r.v[c] = NAN;
    r.type = TRACE_MARK;
    r.t_mono_ns = t;
    r.gpu = -1;
    r.label = label;
    return r;
}

static void mark(struct live_windows *lw, const char *label, int64_t t)
{
    struct trace_row r = mark_row(label, t);
    live_windows_row(lw, &r);
}

static long max_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* n windows of 20 ms (start on a sample, end 20 ms later), 40 ms apart. */
static void run(struct live_windows *lw, int64_t *t, long n)
{
    for (long i = 0; i < n; i++) {
        sample(lw, *t);
        mark(lw, "s", *t + 5 * MS);
        sample(lw, *t + 10 * MS);
        sample(lw, *t + 20 * MS);
        mark(lw, "e", *t + 25 * MS);
        sample(lw, *t + 30 * MS);
        *t += 40 * MS;
    }
}

/* One window definition "req" from MARK s to MARK e, reporting to *s. */
static void open_req(struct live_windows *lw, struct trace_reader *tr, struct seen *s)
{
    static const struct live_window_def def = { "req", "s", "e", NULL };
    struct analysis_options o;
    analysis_default_options(&o);
    *tr = fake_reader();
    memset(s, 0, sizeof *s);
    CHECK(live_windows_open(lw, tr, &def, 1, &o, NULL, NULL, on_window, s) == EXIT_OK);
}

static void test_reported_once_exact(void)
{
    struct trace_reader tr;
    struct live_windows lw;
    struct seen s;
    open_req(&lw, &tr, &s);
    int64_t t = 1000 * MS;
    run(&lw, &t, 3);
    /* analyze's energy estimator fits the counter's update grid on up to
     * 16 updates after an edge: the last window waits for them */
    int extra = 0;
    for (; s.n < 3 && extra < 100; extra++, t += 10 * MS)
        sample(&lw, t);
    CHECK(s.n == 3);
    CHECK(extra <= 16);
    CHECK(s.bad == 0);
    CHECK_NEAR(s.last_dur, 0.020, 1e-12);
    CHECK_NEAR(s.last_energy, 2.0, 1e-9);    /* 100 W x 20 ms */
    live_windows_finish(&lw);
    CHECK(s.n == 3);
    live_windows_free(&lw);
}

static void test_many_windows_flat_memory(void)
{
    struct trace_reader tr;
    struct live_windows lw;
    struct seen s;
    open_req(&lw, &tr, &s);
    int64_t t = 1000 * MS;
    run(&lw, &t, 20000);
    long rss0 = max_rss_kb();
    run(&lw, &t, 280000);
    for (int i = 0; i < 20; i++, t += 10 * MS)
        sample(&lw, t);
    long rss1 = max_rss_kb();
    CHECK(s.n == 300000);
    CHECK(s.bad == 0);
    CHECK_NEAR(s.energy_sum, 2.0 * 3e5, 1e-3);
    CHECK_NEAR(s.last_energy, 2.0, 1e-9);
    /* a window record is ~1 KiB: keeping them would add ~280 MiB */
    CHECK(rss1 - rss0 < 4096);
    fprintf(stderr, "  max RSS after 20k windows %ld KiB, after 300k %ld KiB\n", rss0, rss1);
    live_windows_finish(&lw);
    live_windows_free(&lw);
}

static void range_mark(struct live_windows *lw, const char *label, enum mark_edge edge, long id,
                       int64_t t)
{
    struct trace_row r = mark_row(label, t);
    r.has_attrs = 1;
    r.attrs.edge = edge;
    snprintf(r.attrs.range_id, sizeof r.attrs.range_id, "1.%ld", id);
    live_windows_row(lw, &r);
}

struct range_seen { long n, bad; double energy_sum; };

static int on_range(void *arg, int def, long nth, const struct window *w, const char *origin)
{
    struct range_seen *s = arg;
    (void)origin;
    s->n++;
    if (def != 0 || nth != s->n || strcmp(w->start_label, "step") != 0)
        s->bad++;
    s->energy_sum += w->energy_j;
    return EXIT_OK;
}

static const char *only_step(void *arg, const char *label)
{
    (void)arg;
    return strcmp(label, "step") == 0 ? "step" : strcmp(label, "lost") == 0 ? "lost" : NULL;
}

/* A range whose end never comes (a lost end mark) opens first; 10000
 * "step" ranges follow, each named by the namer: each is reported, and
 * the finished ones are dropped although the first is still open. */
static void test_ranges_behind_an_open_one(void)
{
    struct trace_reader tr = fake_reader();
    struct live_windows lw;
    struct range_seen s = { 0, 0, 0 };
    struct analysis_options o;
    analysis_default_options(&o);
    CHECK(live_windows_open(&lw, &tr, NULL, 0, &o, only_step, NULL, on_range, &s) == EXIT_OK);
    int64_t t = 1000 * MS;
    range_mark(&lw, "lost", MARK_EDGE_START, 0, t - 3 * MS);
    long max_kept = 0;
    for (long i = 1; i <= 10000; i++) {
        sample(&lw, t);
        range_mark(&lw, "step", MARK_EDGE_START, i, t + 5 * MS);
        sample(&lw, t + 10 * MS);
        mark(&lw, "note", t + 12 * MS);        /* a plain mark: no window */
        sample(&lw, t + 20 * MS);
        range_mark(&lw, "step", MARK_EDGE_END, i, t + 25 * MS);
        sample(&lw, t + 30 * MS);
        t += 40 * MS;
        if (lw.a[0].nwindows > max_kept)
            max_kept = lw.a[0].nwindows;
    }
    for (int i = 0; i < 20; i++, t += 10 * MS)
        sample(&lw, t);
    CHECK(s.n == 10000);
    CHECK(s.bad == 0);
    CHECK_NEAR(s.energy_sum, 2.0 * 1e4, 1e-5);
    CHECK(max_kept < 300);                       /* 256 finished + the open ones */
    CHECK(lw.a[0].nwindows >= 1 && lw.a[0].nwindows <= 256);
    live_windows_finish(&lw);
    CHECK(lw.a[0].unmatched_starts == 1);        /* "lost", kept open throughout */
    live_windows_free(&lw);
}

/* 5000 ranges that never end, then 10 that do: past LIVE_MAX_OPEN the
 * oldest open ones are dropped and counted, memory stays bounded, and the
 * windows that end are still reported, exact. */
static void test_open_ranges_capped(void)
{
    struct trace_reader tr = fake_reader();
    struct live_windows lw;
    struct range_seen s = { 0, 0, 0 };
    struct analysis_options o;
    analysis_default_options(&o);
    CHECK(live_windows_open(&lw, &tr, NULL, 0, &o, only_step, NULL, on_range, &s) == EXIT_OK);
    int64_t t = 1000 * MS;
    long max_kept = 0;
    for (long i = 1; i <= 5000; i++) {
        sample(&lw, t);
        range_mark(&lw, "lost", MARK_EDGE_START, i, t + 5 * MS);
        t += 10 * MS;
        if (lw.a[0].nwindows > max_kept)
            max_kept = lw.a[0].nwindows;
    }
    for (long i = 1; i <= 10; i++) {
        sample(&lw, t);
        range_mark(&lw, "step", MARK_EDGE_START, 10000 + i, t + 5 * MS);
        sample(&lw, t + 10 * MS);
        sample(&lw, t + 20 * MS);
        range_mark(&lw, "step", MARK_EDGE_END, 10000 + i, t + 25 * MS);
        sample(&lw, t + 30 * MS);
        t += 40 * MS;
    }
    for (int i = 0; i < 20; i++, t += 10 * MS)
        sample(&lw, t);
    /* the first step's start pushes one more "lost" out; later ones find room */
    CHECK(lw.abandoned == 5000 - LIVE_MAX_OPEN + 1);
    CHECK(max_kept <= LIVE_MAX_OPEN + 256 + 1);
    CHECK(s.n == 10 && s.bad == 0);
    CHECK_NEAR(s.energy_sum, 20.0, 1e-9);
    live_windows_finish(&lw);
    live_windows_free(&lw);
}

int main(void)
{
    run_test("each window reported once, as soon as it resolves, exact", test_reported_once_exact);
    run_test("300,000 windows in flat memory", test_many_windows_flat_memory);
    run_test("every range at once; ranges behind one that never ends are dropped",
             test_ranges_behind_an_open_one);
    run_test("at most LIVE_MAX_OPEN windows open; the oldest dropped and counted",
             test_open_ranges_capped);
    return check_exit_status();
}
