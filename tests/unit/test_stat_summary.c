/* test_stat_summary.c — the summary's nearest-rank percentiles
 * (analysis_finish.c: stat_summarize): the values a sort by glibc's
 * qsort picks, bit for bit, 0 and -0 included, NaN passed over. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "analysis_internal.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* stat_summarize(v) against the same ranks of qsort's order: the same bits. */
static int same_as_qsort(const double *v, long n)
{
    double *a = malloc(sizeof *a * (size_t)(n ? n : 1)), *b = malloc(sizeof *b * (size_t)(n ? n : 1));
    long m = 0;
    for (long i = 0; i < n; i++) {
        a[i] = v[i];
        if (!isnan(v[i]))
            b[m++] = v[i];
    }
    struct stat_summary s = stat_summarize(a, n);
    int ok;
    if (m == 0) {
        ok = isnan(s.median) && isnan(s.p90) && isnan(s.p99) && isnan(s.max);
    } else {
        qsort(b, (size_t)m, sizeof *b, cmp);
        double want[4] = { b[(long)ceil(0.5 * (double)m) - 1], b[(long)ceil(0.9 * (double)m) - 1],
                           b[(long)ceil(0.99 * (double)m) - 1], b[m - 1] };
        double got[4] = { s.median, s.p90, s.p99, s.max };
        ok = memcmp(got, want, sizeof got) == 0;
        for (long i = 0; i < m; i++)      /* and v itself left sorted as qsort sorts */
            ok &= memcmp(&a[i], &b[i], sizeof a[i]) == 0;
    }
    free(a);
    free(b);
    return ok;
}

static void test_known_values(void)
{
    double v[] = { 3, NAN, 1, 2, 10, 4, 5, 9, 8, 7, 6 };
    struct stat_summary s = stat_summarize(v, 11);
    CHECK(s.median == 5 && s.p90 == 9 && s.p99 == 10 && s.max == 10);
    double none[] = { NAN, NAN };
    s = stat_summarize(none, 2);
    CHECK(isnan(s.median) && isnan(s.max));
    double one[] = { 0.504 };
    s = stat_summarize(one, 1);
    CHECK(s.median == 0.504 && s.p99 == 0.504 && s.max == 0.504);
}

static void test_ties_keep_their_order(void)
{
    /* 0 and -0 compare equal: which one a rank lands on is the order they came in */
    double zeros[] = { 0.0, -0.0, -0.0, 0.0, -0.0, 1, 0.0, -0.0, -1, -0.0 };
    CHECK(same_as_qsort(zeros, 10));
    double neg_first[] = { -0.0, 0.0, 0.0, -0.0 };
    CHECK(same_as_qsort(neg_first, 4));
    int bad = 0;
    for (int round = 0; round < 300; round++) {
        long n = 1 + (long)(check_rand() % 3000);
        double *v = malloc(sizeof *v * (size_t)n);
        for (long i = 0; i < n; i++) {
            uint64_t r = check_rand();
            switch (r % 5) {
            case 0: v[i] = r & 8 ? 0.0 : -0.0; break;
            case 1: v[i] = NAN; break;
            case 2: v[i] = (double)(r % 7); break;       /* many equal values */
            default: v[i] = (double)(int64_t)r / 1e12; break;
            }
        }
        bad += !same_as_qsort(v, n);
        free(v);
    }
    CHECK(bad == 0);
}

int main(void)
{
    run_test("stat_summarize: nearest-rank percentiles, NaN passed over", test_known_values);
    run_test("stat_summarize: the values qsort's order gives, 0 and -0 included", test_ties_keep_their_order);
    return check_exit_status();
}
