/*
 * thread_lanes.c — see thread_lanes.h. Two passes over the threads file:
 * the first scores every thread (a table by tid), the second buckets the
 * chosen threads' spans into columns, keeping per column and class the
 * time seen.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "thread_class.h"
#include "thread_lanes.h"
#include "tid_index.h"

/* A thread busy for less than this share of the range gets no lane. */
#define LANE_MIN_SHARE 0.01

struct score { long tid; double s; char name[THREADS_NAME_MAX]; };

static int by_score(const void *x, const void *y)
{
    double a = ((const struct score *)x)->s, b = ((const struct score *)y)->s;
    return (a < b) - (a > b);
}

/* The overlap of a span with [from, to] in seconds. */
static double overlap(const struct thread_span *sp, int64_t t0_ns, double from, double to,
                      double *a, double *b)
{
    *a = (double)(sp->t0_ns - t0_ns) / 1e9;
    *b = (double)(sp->t1_ns - t0_ns) / 1e9;
    if (*a < from)
        *a = from;
    if (*b > to)
        *b = to;
    return *b > *a ? *b - *a : 0;
}

static int open_or_none(struct threads_reader *tr, const char *trace)
{
    int rc = threads_reader_open(tr, trace);
    if (rc < 0)
        diag_error("%s", tr->error);
    return rc;
}

static int pick(const char *trace, int64_t t0_ns, double from, double to, struct thread_lanes *out)
{
    struct threads_reader tr;
    int rc = open_or_none(&tr, trace);
    if (rc != 0)
        return rc < 0 ? EXIT_USAGE : 0;
    struct score *sc = NULL;
    long n = 0, cap = 0;
    struct tid_index seen = { 0 };       /* tid -> its score: a hash, not a scan per span */
    struct thread_span sp;
    char detail[96];
    while ((rc = threads_reader_next(&tr, &sp)) == 1) {
        double a, b, d = overlap(&sp, t0_ns, from, to, &a, &b);
        enum thread_class c = thread_classify(sp.state, sp.wchan, sp.call, sp.fd, detail,
                                              sizeof detail);
        long i = tid_index_get(&seen, sp.tid);
        if (i < 0) {
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                struct score *grown = realloc(sc, sizeof *sc * (size_t)cap);
                if (!grown)
                    goto out_of_memory;
                sc = grown;
            }
            if (tid_index_put(&seen, sp.tid, n) != 0)
                goto out_of_memory;
            i = n++;
            sc[i].tid = sp.tid;
            sc[i].s = 0;
        }
        memcpy(sc[i].name, sp.name, sizeof sc[i].name);
        if (c != TC_SLEEP && c != TC_LOCK && c != TC_OTHER)
            sc[i].s += d;
    }
    tid_index_free(&seen);
    if (rc < 0)
        diag_error("%s", tr.error);
    threads_reader_close(&tr);
    if (rc < 0) {
        free(sc);
        return EXIT_USAGE;
    }
    if (n)
        qsort(sc, (size_t)n, sizeof *sc, by_score);
    for (long i = 0; i < n && out->nlanes < THREAD_LANES_MAX && sc[i].s >= LANE_MIN_SHARE * (to - from); i++) {
        struct thread_lane *l = &out->lane[out->nlanes++];
        l->tid = sc[i].tid;
        memcpy(l->name, sc[i].name, sizeof l->name);
    }
    free(sc);
    return 0;
out_of_memory:
    free(sc);
    tid_index_free(&seen);
    threads_reader_close(&tr);
    diag_error("out of memory");
    return EXIT_RUNTIME;
}

int thread_lanes_read(const char *trace, int64_t t0_ns, double from, double to, int ncols,
                      struct thread_lanes *out)
{
    memset(out, 0, sizeof *out);
    out->ncols = ncols;
    if (ncols <= 0 || !(to > from))
        return 0;
    int rc = pick(trace, t0_ns, from, to, out);
    if (rc != 0 || out->nlanes == 0)
        return rc;
    float *acc = calloc((size_t)out->nlanes * (size_t)ncols * TC_COUNT, sizeof *acc);
    for (int k = 0; k < out->nlanes; k++)
        out->lane[k].cls = malloc((size_t)ncols);
    struct threads_reader tr;
    if (!acc || open_or_none(&tr, trace) != 0) {
        free(acc);
        thread_lanes_free(out);
        return EXIT_USAGE;
    }
    double col_s = (to - from) / ncols;
    struct thread_span sp;
    char detail[96];
    while ((rc = threads_reader_next(&tr, &sp)) == 1) {
        int k = 0;
        while (k < out->nlanes && out->lane[k].tid != sp.tid)
            k++;
        double a, b;
        if (k == out->nlanes || overlap(&sp, t0_ns, from, to, &a, &b) <= 0)
            continue;
        int c = (int)thread_classify(sp.state, sp.wchan, sp.call, sp.fd, detail, sizeof detail);
        int c0 = (int)((a - from) / col_s), c1 = (int)((b - from) / col_s);
        for (int col = c0 < 0 ? 0 : c0; col <= c1 && col < ncols; col++) {
            double lo = from + col * col_s, hi = lo + col_s;
            double d = (b < hi ? b : hi) - (a > lo ? a : lo);
            if (d > 0)
                acc[((size_t)k * (size_t)ncols + (size_t)col) * TC_COUNT + (size_t)c] += (float)d;
        }
    }
    if (rc < 0)
        diag_error("%s", tr.error);
    threads_reader_close(&tr);
    for (int k = 0; k < out->nlanes; k++)
        for (int col = 0; col < ncols; col++) {
            const float *v = &acc[((size_t)k * (size_t)ncols + (size_t)col) * TC_COUNT];
            int best = THREAD_LANE_NONE;
            for (int c = 0; c < TC_COUNT; c++)
                if (v[c] > 0 && (best == THREAD_LANE_NONE || v[c] > v[best]))
                    best = c;
            out->lane[k].cls[col] = (unsigned char)best;
        }
    free(acc);
    if (rc < 0) {
        thread_lanes_free(out);
        return EXIT_USAGE;
    }
    return 0;
}

void thread_lanes_free(struct thread_lanes *l)
{
    for (int k = 0; k < l->nlanes; k++)
        free(l->lane[k].cls);
    memset(l, 0, sizeof *l);
}
