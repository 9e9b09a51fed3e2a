/* test_windows.c — the pairing rule: each start pairs with the next end at
 * or after it; unmatched starts and ends; same start and end label; every
 * range at once (pairing_init_any) pairing as each name would alone; the
 * open list with a head and a hash against the plain list it replaced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "windows.h"

static long feed(struct pairing *p, const char *label, int64_t t, long *next_id, long closed[8],
                 long *nclosed)
{
    struct pairing_step st;
    CHECK(pairing_on_mark(p, label, NULL, t, *next_id, &st) == 0);
    for (long i = 0; i < st.nclosed && i < 8; i++)
        closed[i] = st.closed[i];
    *nclosed = st.nclosed;
    if (st.opens)
        return (*next_id)++;
    return -1;
}

static void test_sequential_and_unmatched(void)
{
    struct pairing p;
    pairing_init(&p, "s", "e");
    long id = 0, closed[8], n;
    CHECK(feed(&p, "e", 5, &id, closed, &n) == -1 && n == 0);      /* end before any start */
    CHECK(p.unmatched_ends == 1);
    CHECK(feed(&p, "s", 10, &id, closed, &n) == 0);
    CHECK(feed(&p, "other", 12, &id, closed, &n) == -1 && n == 0);
    CHECK(feed(&p, "e", 20, &id, closed, &n) == -1 && n == 1 && closed[0] == 0);
    CHECK(feed(&p, "s", 30, &id, closed, &n) == 1);
    CHECK(feed(&p, "s", 31, &id, closed, &n) == 2);               /* two starts share one end */
    CHECK(feed(&p, "e", 40, &id, closed, &n) == -1 && n == 2 && closed[0] == 1 && closed[1] == 2);
    CHECK(feed(&p, "s", 50, &id, closed, &n) == 3);               /* never ended */
    CHECK(pairing_open_count(&p) == 1 && pairing_oldest_id(&p) == 3);
    CHECK(p.unmatched_ends == 1);
    pairing_free(&p);
}

static void test_end_before_later_start(void)
{
    struct pairing p;
    pairing_init(&p, "s", "e");
    long id = 0, closed[8], n;
    /* a client-stamped start written before an end that is earlier in time */
    CHECK(feed(&p, "s", 100, &id, closed, &n) == 0);
    CHECK(feed(&p, "e", 90, &id, closed, &n) == -1 && n == 0);
    CHECK(p.unmatched_ends == 1);
    CHECK(feed(&p, "e", 100, &id, closed, &n) == -1 && n == 1);   /* at the same time: pairs */
    pairing_free(&p);
}

static void test_same_label(void)
{
    struct pairing p;
    pairing_init(&p, "tick", "tick");
    long id = 0, closed[8], n;
    CHECK(feed(&p, "tick", 1, &id, closed, &n) == 0 && n == 0);
    CHECK(feed(&p, "tick", 2, &id, closed, &n) == 1 && n == 1 && closed[0] == 0);
    CHECK(feed(&p, "tick", 3, &id, closed, &n) == 2 && n == 1 && closed[0] == 1);
    CHECK(p.unmatched_ends == 0);
    pairing_free(&p);
}

/* Range marks: a name, an edge, an ID, a time. */
struct rmark { const char *label; enum mark_edge edge; const char *id; int64_t t; };

static const char *namer(void *arg, const char *label)
{
    static const char *names[] = { "a", "b", "c" };
    (void)arg;
    for (int i = 0; i < 3; i++)
        if (strcmp(label, names[i]) == 0)
            return names[i];
    return NULL;                                 /* "z": not counted */
}

/* The windows (start index, end index into the marks) a pairing makes. */
static int pairs_of(struct pairing *p, const struct rmark *m, int n, int out[][2])
{
    long opened_at[64];
    int np = 0;
    for (int i = 0; i < n; i++) {
        struct mark_attrs a;
        memset(&a, 0, sizeof a);
        a.edge = m[i].edge;
        snprintf(a.range_id, sizeof a.range_id, "%s", m[i].id);
        struct pairing_step st;
        long id = i;
        CHECK(pairing_on_mark(p, m[i].label, &a, m[i].t, id, &st) == 0);
        for (long k = 0; k < st.nclosed; k++) {
            out[np][0] = (int)opened_at[st.closed[k]];
            out[np++][1] = i;
        }
        if (st.opens) {
            opened_at[id] = i;
            CHECK(!p->namer || (st.name && strcmp(st.name, m[i].label) == 0));
        }
    }
    return np;
}

static int cmp_pair(const void *x, const void *y)
{
    const int *a = x, *b = y;
    return a[0] != b[0] ? a[0] - b[0] : a[1] - b[1];
}

static void test_any_range_pairs_like_each_name(void)
{
    /* nested a in a; b overlapping a across threads, its end first; an ID
     * reused by two names at once (a client bug): each name closes its own;
     * an end before its start; z is not named; c never ends. */
    static const struct rmark m[] = {
        { "a", MARK_EDGE_START, "1", 10 }, { "a", MARK_EDGE_START, "2", 20 },
        { "b", MARK_EDGE_START, "3", 25 }, { "a", MARK_EDGE_END, "2", 30 },
        { "b", MARK_EDGE_END, "3", 35 },   { "a", MARK_EDGE_END, "1", 40 },
        { "a", MARK_EDGE_START, "9", 50 }, { "b", MARK_EDGE_START, "9", 55 },
        { "b", MARK_EDGE_START, "9", 56 }, { "a", MARK_EDGE_END, "9", 60 },
        { "c", MARK_EDGE_START, "4", 80 }, { "c", MARK_EDGE_END, "4", 70 },
        { "z", MARK_EDGE_START, "5", 90 }, { "z", MARK_EDGE_END, "5", 95 },
        { "a", MARK_EDGE_END, "9", 99 },
    };
    int n = (int)(sizeof m / sizeof m[0]);
    int want[64][2], got[64][2], nw = 0;
    const char *names[] = { "a", "b", "c" };
    for (int k = 0; k < 3; k++) {
        struct pairing p;
        pairing_init_range(&p, names[k], NULL);
        nw += pairs_of(&p, m, n, want + nw);
        pairing_free(&p);
    }
    struct pairing p;
    pairing_init_any(&p, namer, NULL);
    int ng = pairs_of(&p, m, n, got);
    CHECK(pairing_open_count(&p) == 1);          /* c: its end came before it */
    pairing_free(&p);
    qsort(want, (size_t)nw, sizeof want[0], cmp_pair);
    qsort(got, (size_t)ng, sizeof got[0], cmp_pair);
    CHECK(nw == 6);                              /* a 1, a 2, b 3, a 9 (both ends), b 9 */
    CHECK(ng == nw && memcmp(want, got, sizeof want[0] * (size_t)nw) == 0);
}

/* The rule as it was written before the open list got a head and a hash:
 * a plain array in opening order, searched from the front. */
struct naive { long id[4096]; int64_t t[4096]; char key[4096][8]; const char *name[4096]; long n; long unmatched; };

static void naive_remove(struct naive *m, long i)
{
    m->n--;
    memmove(m->id + i, m->id + i + 1, sizeof m->id[0] * (size_t)(m->n - i));
    memmove(m->t + i, m->t + i + 1, sizeof m->t[0] * (size_t)(m->n - i));
    memmove(m->key + i, m->key + i + 1, sizeof m->key[0] * (size_t)(m->n - i));
    memmove(m->name + i, m->name + i + 1, sizeof m->name[0] * (size_t)(m->n - i));
}

/* mode 0: by label; 1: by range (name "a"); 2: every range (names a, b). */
static long naive_mark(struct naive *m, int mode, const char *label, int start, const char *key,
                       int64_t t, long id, long *closed)
{
    long nc = 0;
    if (mode == 0) {
        if (!start) {
            long kept = 0;
            for (long i = 0; i < m->n; i++)
                if (m->t[i] <= t)
                    closed[nc++] = m->id[i];
                else {
                    m->id[kept] = m->id[i];
                    m->t[kept++] = m->t[i];
                }
            m->n = kept;
            if (!nc)
                m->unmatched++;
            return nc;
        }
    } else if (!start) {
        const char *decided[8];
        int nd = 0;
        for (long i = 0; i < m->n;) {
            int skip = strcmp(m->key[i], key) != 0 || (mode == 1 && nd);
            for (int k = 0; k < nd && !skip; k++)
                skip = decided[k] == m->name[i];
            if (skip) { i++; continue; }
            decided[nd++] = m->name[i];
            if (m->t[i] > t) { i++; continue; }
            closed[nc++] = m->id[i];
            naive_remove(m, i);
        }
        /* by range, an end whose first start is later closes nothing: unmatched */
        if (mode == 2 ? !nd : !nc && strcmp(label, "a") == 0)
            m->unmatched++;
        return nc;
    }
    if (mode == 1 && strcmp(label, "a") != 0)
        return 0;
    m->id[m->n] = id;
    m->t[m->n] = t;
    snprintf(m->key[m->n], sizeof m->key[0], "%s", key);
    m->name[m->n++] = mode == 2 ? namer(NULL, label) : NULL;
    return 0;
}

/* Random marks (few IDs, so they repeat while open; times that go back;
 * the oldest dropped now and then) against the naive rule: the same
 * windows close, in the same order, and the same ends go unmatched. */
static void test_against_naive(void)
{
    unsigned seed = 12345;
    for (int mode = 0; mode < 3; mode++) {
        for (int round = 0; round < 20; round++) {
            struct pairing p;
            if (mode == 0)
                pairing_init(&p, "s", "e");
            else if (mode == 1)
                pairing_init_range(&p, "a", NULL);
            else
                pairing_init_any(&p, namer, NULL);
            static struct naive m;
            memset(&m, 0, sizeof m);
            long next_id = 0;
            int64_t t = 0;
            for (int i = 0; i < 3000; i++) {
                seed = seed * 1103515245u + 12345u;
                unsigned r = seed >> 8;
                t += (int64_t)(r % 7) - 2;
                int start = (r >> 3) % 100 < 55;
                const char *label = mode == 0 ? (start ? "s" : "e") : ((r >> 10) % 3 == 0 ? "b" : "a");
                char key[8];
                snprintf(key, sizeof key, "%u", (r >> 12) % (unsigned)(round + 2) * 3);
                if ((r >> 20) % 50 == 0 && m.n > 0) {
                    CHECK(pairing_drop_oldest(&p) == m.id[0]);
                    naive_remove(&m, 0);
                    continue;
                }
                struct mark_attrs a;
                memset(&a, 0, sizeof a);
                a.edge = start ? MARK_EDGE_START : MARK_EDGE_END;
                snprintf(a.range_id, sizeof a.range_id, "%s", key);
                struct pairing_step st;
                CHECK(pairing_on_mark(&p, label, mode ? &a : NULL, t, next_id, &st) == 0);
                long want[4096];
                long nw = naive_mark(&m, mode, label, start, key, t, next_id, want);
                if (st.opens)
                    next_id++;
                CHECK(st.nclosed == nw);
                for (long k = 0; k < nw && k < st.nclosed; k++)
                    CHECK(st.closed[k] == want[k]);
                CHECK(pairing_open_count(&p) == m.n);
                CHECK(pairing_oldest_id(&p) == (m.n ? m.id[0] : -1));
            }
            CHECK(p.unmatched_ends == m.unmatched);
            pairing_free(&p);
        }
    }
}

/* 200,000 ranges open at once, then closed newest first, then the oldest
 * dropped one by one: each step is O(1), so this takes milliseconds (the
 * list searched from the front and shifted per drop took minutes). */
static void test_many_open_ranges(void)
{
    struct pairing p;
    pairing_init_range(&p, "r", NULL);
    struct mark_attrs a;
    memset(&a, 0, sizeof a);
    long n = 200000;
    a.edge = MARK_EDGE_START;
    for (long i = 0; i < n; i++) {
        struct pairing_step st;
        snprintf(a.range_id, sizeof a.range_id, "%ld", i);
        CHECK(pairing_on_mark(&p, "r", &a, i, i, &st) == 0 && st.opens);
    }
    a.edge = MARK_EDGE_END;
    for (long i = n - 1; i >= n / 2; i--) {
        struct pairing_step st;
        snprintf(a.range_id, sizeof a.range_id, "%ld", i);
        CHECK(pairing_on_mark(&p, "r", &a, n, -1, &st) == 0);
        if (st.nclosed != 1 || st.closed[0] != i) {
            CHECK(0);
            break;
        }
    }
    CHECK(pairing_open_count(&p) == n / 2);
    for (long i = 0; i < n / 2 - 10; i++)
        if (pairing_drop_oldest(&p) != i) {
            CHECK(0);
            break;
        }
    CHECK(pairing_open_count(&p) == 10 && pairing_oldest_id(&p) == n / 2 - 10);
    struct pairing_step st;
    snprintf(a.range_id, sizeof a.range_id, "%ld", n / 2 - 1);   /* still open: closes */
    CHECK(pairing_on_mark(&p, "r", &a, n, -1, &st) == 0 && st.nclosed == 1 && st.closed[0] == n / 2 - 1);
    snprintf(a.range_id, sizeof a.range_id, "%ld", 0L);          /* dropped: an unmatched end */
    CHECK(pairing_on_mark(&p, "r", &a, n, -1, &st) == 0 && st.nclosed == 0 && p.unmatched_ends == 1);
    pairing_forget_open(&p);
    CHECK(pairing_open_count(&p) == 0 && pairing_oldest_id(&p) == -1);
    pairing_free(&p);
}

/* By label, 100,000 starts stamped later than everything else stay open
 * while 100,000 windows open and close before them: each end closes its
 * own without walking the ones it leaves open (the plain list walked them
 * all per end: 10^10 steps), then a last end closes all of them. */
static void test_label_ends_skip_later_starts(void)
{
    struct pairing p;
    pairing_init(&p, "s", "e");
    long id = 0, closed[8], n, m = 100000;
    for (long i = 0; i < m; i++)
        CHECK(feed(&p, "s", 1000000000 + i, &id, closed, &n) == i);
    for (long i = 0; i < m; i++) {
        long w = feed(&p, "s", 2 * i, &id, closed, &n);
        feed(&p, "e", 2 * i + 1, &id, closed, &n);
        if (n != 1 || closed[0] != w) {
            CHECK(0);
            break;
        }
    }
    CHECK(pairing_open_count(&p) == m && pairing_oldest_id(&p) == 0 && p.unmatched_ends == 0);
    struct pairing_step st;
    CHECK(pairing_on_mark(&p, "e", NULL, 2000000000, id, &st) == 0 && st.nclosed == m);
    long in_order = 1;
    for (long i = 0; i < st.nclosed; i++)
        in_order &= st.closed[i] == i;
    CHECK(in_order);
    CHECK(pairing_open_count(&p) == 0);
    pairing_free(&p);
}

int main(void)
{
    run_test("pairing: sequential windows, shared end, unmatched marks", test_sequential_and_unmatched);
    run_test("pairing: an end earlier than the open start does not close it", test_end_before_later_start);
    run_test("pairing: same start and end label gives consecutive windows", test_same_label);
    run_test("pairing: every range at once pairs each name as it would alone",
             test_any_range_pairs_like_each_name);
    run_test("pairing: the same windows as the plain list, drops included", test_against_naive);
    run_test("pairing: 200,000 open ranges close and drop in O(1) each", test_many_open_ranges);
    run_test("pairing: by label, an end does not walk the starts it leaves open",
             test_label_ends_skip_later_starts);
    return check_exit_status();
}
