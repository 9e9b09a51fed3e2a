/* test_sort_doubles.c — sort_doubles against qsort on the sizes either side
 * of SORT_DOUBLES_SMALL (insertion sort below, the merge above), and its
 * stability: 0 and -0 keep their order, as glibc's qsort keeps them. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "sort_doubles.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_against_qsort(void)
{
    unsigned long long s = 7;
    static const long sizes[] = { 0, 1, 2, 3, 31, 63, 64, 65, 100, 1000, 4099 };
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        long n = sizes[z];
        double *a = malloc(sizeof *a * (size_t)(n + 1)), *b = malloc(sizeof *b * (size_t)(n + 1));
        for (long i = 0; i < n; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            a[i] = b[i] = (double)(s >> 52) - 2048;        /* many ties */
        }
        sort_doubles(a, n);
        qsort(b, (size_t)n, sizeof *b, cmp);
        long same = 0;
        for (long i = 0; i < n; i++)
            same += a[i] == b[i];
        CHECK(same == n);
        free(a);
        free(b);
    }
}

static void test_stable(void)
{
    for (long n = 8; n <= 200; n += 96) {                  /* 8: insertion, 104 and 200: merge */
        double v[200];
        for (long i = 0; i < n; i++)
            v[i] = i % 2 ? -0.0 : 0.0;
        v[0] = 1;
        sort_doubles(v, n);
        CHECK(v[n - 1] == 1);
        int ok = 1;
        for (long i = 0; i + 1 < n; i++)                   /* the zeros in their order: -0 at odd i */
            ok &= !!signbit(v[i]) == ((i + 1) % 2 == 1);
        CHECK(ok);
    }
}

int main(void)
{
    run_test("sort_doubles: the order qsort gives, both sides of the small size", test_against_qsort);
    run_test("sort_doubles: stable (0 and -0 keep their order)", test_stable);
    return check_exit_status();
}
