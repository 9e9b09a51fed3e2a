/*
 * waiting_on.c — thread spans into per-window classes (see waiting_on.h).
 *
 * The spans stream from the reader in the order they close. Each is
 * matched against the windows it overlaps: the windows are sorted by
 * start with a running maximum of their ends, so the search walks back
 * from the last window starting before the span's end only while some
 * earlier window still reaches past the span's start. Per window, time is
 * summed per (thread, class, description), then folded into classes and
 * threads when the file is done; and per segment of the window's breakdown
 * (compute / host-cpu / waiting, breakdown.h) per class, so each host-cpu
 * and waiting segment gets the class with the most thread-milliseconds
 * (and every segment its dominant class: what the kernel gaps inside it
 * are put down to, kernels_window.h).
 * Names, per-window tallies and the fold find their entries through hashes
 * (tuple_index.h), so the time is linear in spans and threads.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "threads_file.h"
#include "tuple_index.h"
#include "waiting_on.h"

struct acc { long tid; int name, detail; int cls; int64_t ns; };

struct window_acc {
    struct acc *e;
    long n, cap;
    double (*seg_ns)[TC_COUNT];   /* per breakdown segment (w->bd.nseg), NULL: none */
};

struct run {
    struct analysis *a;
    struct waiting_on *w;
    struct window_acc *acc;
    long *order;              /* windows by t_start */
    int64_t *reach;           /* max t_end over order[0..i] */
    struct tuple_index at;    /* (window, tid, name, detail * TC_COUNT + cls) -> entry */
};

/* The string's index in w->strings, added if new. Strings are found by a
 * 64-bit FNV-1a hash and a probe number (a collision takes the next). */
static int intern(struct waiting_on *w, const char *s)
{
    if (!w->string_at && !(w->string_at = calloc(1, sizeof *w->string_at)))
        return -1;
    unsigned long long h = 14695981039346656037ULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    long probe = 0;
    for (long i; (i = tuple_index_get(w->string_at, (long)h, probe, 0, 0)) >= 0; probe++)
        if (strcmp(w->strings[i], s) == 0)
            return (int)i;
    if (tuple_index_put(w->string_at, (long)h, probe, 0, 0, w->nstrings) != 0)
        return -1;
    if (w->nstrings == w->cap) {
        int cap = w->cap ? w->cap * 2 : 64;
        char **grown = realloc(w->strings, sizeof *grown * (size_t)cap);
        if (!grown)
            return -1;
        w->strings = grown;
        w->cap = cap;
    }
    w->strings[w->nstrings] = strdup(s);
    return w->strings[w->nstrings] ? w->nstrings++ : -1;
}

static struct analysis *sort_windows_of;

static int by_start(const void *x, const void *y)
{
    const struct window *a = &sort_windows_of->windows[*(const long *)x];
    const struct window *b = &sort_windows_of->windows[*(const long *)y];
    return (a->t_start_ns > b->t_start_ns) - (a->t_start_ns < b->t_start_ns);
}

static int add(struct run *r, long win, long tid, int name, int detail, int cls, int64_t ns)
{
    struct window_acc *wa = &r->acc[win];
    long i = tuple_index_get(&r->at, win, tid, name, (long)detail * TC_COUNT + cls);
    if (i >= 0) {
        wa->e[i].ns += ns;
        return 0;
    }
    if (tuple_index_put(&r->at, win, tid, name, (long)detail * TC_COUNT + cls, wa->n) != 0)
        return -1;
    if (wa->n == wa->cap) {
        long cap = wa->cap ? wa->cap * 2 : 16;
        struct acc *grown = realloc(wa->e, sizeof *grown * (size_t)cap);
        if (!grown)
            return -1;
        wa->e = grown;
        wa->cap = cap;
    }
    wa->e[wa->n++] = (struct acc){ tid, name, detail, cls, ns };
    return 0;
}

static int on_span(struct run *r, const struct thread_span *sp)
{
    long lo = 0, hi = r->a->nwindows;      /* first window starting at or after t1 */
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (r->a->windows[r->order[mid]].t_start_ns < sp->t1_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    int name = -1, detail = -1, cls = 0;
    for (long j = lo - 1; j >= 0 && r->reach[j] > sp->t0_ns; j--) {
        const struct window *win = &r->a->windows[r->order[j]];
        int64_t from = sp->t0_ns > win->t_start_ns ? sp->t0_ns : win->t_start_ns;
        int64_t to = sp->t1_ns < win->t_end_ns ? sp->t1_ns : win->t_end_ns;
        if (to <= from)
            continue;
        if (name < 0) {
            char what[96];
            cls = (int)thread_classify(sp->state, sp->wchan, sp->call, sp->fd, what, sizeof what);
            name = intern(r->w, sp->name);
            detail = intern(r->w, what);
            if (name < 0 || detail < 0)
                return -1;
        }
        struct window_acc *wa = &r->acc[r->order[j]];
        if (add(r, r->order[j], sp->tid, name, detail, cls, to - from) != 0)
            return -1;
        for (int k = 0; wa->seg_ns && k < win->bd.nseg; k++) {
            const struct segment *sg = &win->bd.seg[k];
            int64_t s0 = win->t_start_ns + (int64_t)(sg->start_ms * 1e6);
            int64_t s1 = win->t_start_ns + (int64_t)(sg->end_ms * 1e6);
            int64_t a0 = from > s0 ? from : s0, a1 = to < s1 ? to : s1;
            if (a1 > a0)
                wa->seg_ns[k][cls] += (double)(a1 - a0);
        }
    }
    return 0;
}

/* The host-cpu and waiting segments of a window, with their classes. */
static int fold_segments(const struct window *win, const struct window_acc *wa,
                         struct window_waiting *out)
{
    memset(out->seg_dominant, -1, sizeof out->seg_dominant);
    if (!wa->seg_ns)
        return 0;
    out->segs = calloc((size_t)win->bd.nseg, sizeof *out->segs);
    if (!out->segs)
        return -1;
    for (int k = 0; k < win->bd.nseg; k++) {
        int dom = -1;
        for (int c = 0; c < TC_COUNT; c++)
            if (wa->seg_ns[k][c] > 0 && (dom < 0 || wa->seg_ns[k][c] > wa->seg_ns[k][dom]))
                dom = c;
        out->seg_dominant[k] = (signed char)dom;
        if (win->bd.seg[k].cls != CLASS_HOST_CPU && win->bd.seg[k].cls != CLASS_WAITING)
            continue;
        struct segment_waiting *sw = &out->segs[out->nseg++];
        sw->seg = k;
        sw->dominant = -1;
        for (int c = 0; c < TC_COUNT; c++) {
            sw->thread_ms[c] = wa->seg_ns[k][c] / 1e6;
            if (sw->thread_ms[c] > 0 && (sw->dominant < 0 || sw->thread_ms[c] > sw->thread_ms[sw->dominant]))
                sw->dominant = c;
        }
    }
    return 0;
}

static int by_ms(const void *x, const void *y)
{
    double a = ((const struct waiting_thread *)x)->ms, b = ((const struct waiting_thread *)y)->ms;
    return (a < b) - (a > b);
}

static int by_class_ms(const void *x, const void *y)
{
    double a = ((const struct waiting_class *)x)->thread_ms;
    double b = ((const struct waiting_class *)y)->thread_ms;
    return (a < b) - (a > b);
}

/* Folds one window's accumulators: per class, per thread (its time summed
 * over descriptions, named by the description it spent most time in: the
 * first met of those with the most). Every sum runs in entry order, as a
 * scan per entry did; the hashes only find the sums. */
static int fold(struct waiting_on *w, const struct window_acc *wa, struct window_waiting *out)
{
    memset(out, 0, sizeof *out);
    struct tuple_index detail_at = { 0 }, thread_at = { 0 };
    double *total = malloc(sizeof *total * (size_t)(wa->n + 1));   /* per (class, tid, detail) */
    double *best = malloc(sizeof *best * (size_t)(wa->n + 1));     /* per thread: its detail's total */
    long ntotal = 0;
    int rc = total && best ? 0 : -1;
    for (long i = 0; rc == 0 && i < wa->n; i++) {
        const struct acc *e = &wa->e[i];
        long k = tuple_index_get(&detail_at, e->cls, e->tid, e->detail, 0);
        if (k < 0) {
            k = ntotal;
            total[ntotal++] = 0;
            rc = tuple_index_put(&detail_at, e->cls, e->tid, e->detail, 0, k);
        }
        total[k] += (double)e->ns;
    }
    for (int c = 0; rc == 0 && c < TC_COUNT; c++) {
        struct waiting_class *wc = &out->cls[out->nclass];
        wc->cls = (enum thread_class)c;
        long m = 0;
        for (long i = 0; i < wa->n; i++)
            m += wa->e[i].cls == c;
        if (m && !(wc->threads = malloc(sizeof *wc->threads * (size_t)m))) {
            rc = -1;
            break;
        }
        for (long i = 0; rc == 0 && i < wa->n; i++) {
            const struct acc *e = &wa->e[i];
            if (e->cls != c)
                continue;
            double ms = (double)e->ns / 1e6;
            wc->thread_ms += ms;
            long k = tuple_index_get(&thread_at, c, e->tid, 0, 0);
            if (k < 0) {
                k = wc->nthreads++;
                wc->threads[k] = (struct waiting_thread){ e->tid, w->strings[e->name], NULL, 0 };
                if (tuple_index_put(&thread_at, c, e->tid, 0, 0, k) != 0)
                    rc = -1;
            }
            wc->threads[k].ms += ms;
            double detail_ms = total[tuple_index_get(&detail_at, c, e->tid, e->detail, 0)];
            if (!wc->threads[k].detail || detail_ms > best[k]) {
                wc->threads[k].detail = w->strings[e->detail];
                best[k] = detail_ms;
            }
        }
        if (wc->nthreads) {
            qsort(wc->threads, (size_t)wc->nthreads, sizeof *wc->threads, by_ms);
            out->nclass++;
        }
    }
    tuple_index_free(&detail_at);
    tuple_index_free(&thread_at);
    free(total);
    free(best);
    if (rc == 0)
        qsort(out->cls, (size_t)out->nclass, sizeof out->cls[0], by_class_ms);
    return rc;
}

int waiting_on_read(struct analysis *a, const char *trace_path)
{
    struct threads_reader tr;
    int rc = threads_reader_open(&tr, trace_path);
    if (rc == 1)
        return EXIT_OK;
    if (rc < 0) {
        diag_error("%s", tr.error);
        return EXIT_USAGE;
    }
    struct waiting_on *w = calloc(1, sizeof *w);
    struct run r = { a, w, calloc((size_t)a->nwindows + 1, sizeof *r.acc),
                     malloc(sizeof *r.order * ((size_t)a->nwindows + 1)),
                     malloc(sizeof *r.reach * ((size_t)a->nwindows + 1)), { 0 } };
    int status = EXIT_OK;
    if (!w || !r.acc || !r.order || !r.reach) {
        diag_error("out of memory");
        status = EXIT_RUNTIME;
        goto done;
    }
    snprintf(w->path, sizeof w->path, "%s", tr.path);
    for (long i = 0; i < a->nwindows; i++)
        r.order[i] = i;
    sort_windows_of = a;
    qsort(r.order, (size_t)a->nwindows, sizeof *r.order, by_start);
    for (long i = 0; i < a->nwindows; i++) {
        const struct window *win = &a->windows[i];
        if (win->bd.valid && win->bd.nseg > 0) {
            r.acc[i].seg_ns = calloc((size_t)win->bd.nseg, sizeof *r.acc[i].seg_ns);
            if (!r.acc[i].seg_ns) {
                diag_error("out of memory");
                status = EXIT_RUNTIME;
                goto done;
            }
        }
    }
    for (long i = 0; i < a->nwindows; i++) {
        int64_t end = a->windows[r.order[i]].t_end_ns;
        r.reach[i] = i && r.reach[i - 1] > end ? r.reach[i - 1] : end;
    }
    struct thread_span sp;
    while ((rc = threads_reader_next(&tr, &sp)) == 1)
        if (on_span(&r, &sp) != 0) {
            diag_error("out of memory");
            status = EXIT_RUNTIME;
            goto done;
        }
    if (rc < 0) {
        diag_error("%s (move it aside to analyze without thread states)", tr.error);
        status = EXIT_USAGE;
        goto done;
    }
    w->interval_ms = tr.interval_ms;
    w->nnotes = tr.nnotes;
    memcpy(w->notes, tr.notes, sizeof w->notes);
    w->win = calloc((size_t)a->nwindows + 1, sizeof *w->win);
    w->nwin = a->nwindows;
    if (!w->win) {
        diag_error("out of memory");
        status = EXIT_RUNTIME;
        goto done;
    }
    for (long i = 0; i < a->nwindows; i++)
        if (fold(w, &r.acc[i], &w->win[i]) != 0 ||
            fold_segments(&a->windows[i], &r.acc[i], &w->win[i]) != 0) {
            diag_error("out of memory");
            status = EXIT_RUNTIME;
            goto done;
        }
    a->waiting = w;
    w = NULL;
done:
    for (long i = 0; r.acc && i < a->nwindows; i++) {
        free(r.acc[i].e);
        free(r.acc[i].seg_ns);
    }
    free(r.acc);
    tuple_index_free(&r.at);
    free(r.order);
    free(r.reach);
    waiting_on_free(w);
    threads_reader_close(&tr);
    return status;
}

void waiting_on_free(struct waiting_on *w)
{
    if (!w)
        return;
    for (long i = 0; w->win && i < w->nwin; i++) {
        for (int c = 0; c < TC_COUNT; c++)
            free(w->win[i].cls[c].threads);
        free(w->win[i].segs);
    }
    free(w->win);
    for (int i = 0; i < w->nstrings; i++)
        free(w->strings[i]);
    free(w->strings);
    if (w->string_at)
        tuple_index_free(w->string_at);
    free(w->string_at);
    free(w);
}
