/* test_search_back.c — the first index that passes a monotone test, found
 * from the newest end (search_back.h): the index a binary search over the
 * whole run finds, at every size and every place, ties included. */
#include "check.h"
#include "search_back.h"

struct at_least { const long *v; long want; };
static long probes;

static int at_least(const void *arg, long i)
{
    const struct at_least *a = arg;
    probes++;
    return a->v[i] >= a->want;
}

static long binary_first(const long *v, long lo, long hi, long want)
{
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (v[mid] >= want)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static void test_as_binary_search(void)
{
    static long v[300];
    int bad = 0;
    for (long n = 0; n <= 300; n++) {
        for (long i = 0; i < n; i++)
            v[i] = i / 3;                    /* runs of equal values */
        for (long lo = 0; lo <= n && lo < 5; lo++)
            for (long want = -1; want <= n / 3 + 1; want++) {
                struct at_least a = { v, want };
                bad += search_back(lo, n, at_least, &a) != binary_first(v, lo, n, want);
            }
    }
    CHECK(bad == 0);
}

static void test_few_probes_near_the_end(void)
{
    static long v[4096];
    for (long i = 0; i < 4096; i++)
        v[i] = i;
    struct at_least a = { v, 4093 };         /* three from the end */
    probes = 0;
    CHECK(search_back(0, 4096, at_least, &a) == 4093);
    CHECK(probes <= 5);
    struct at_least none = { v, 5000 };      /* none passes: the end */
    probes = 0;
    CHECK(search_back(0, 4096, at_least, &none) == 4096);
    CHECK(probes == 1);
    struct at_least all = { v, -1 };         /* all pass: the first */
    probes = 0;
    CHECK(search_back(0, 4096, at_least, &all) == 0);
    CHECK(probes <= 2 * 13);
    CHECK(search_back(7, 7, at_least, &all) == 7);   /* empty */
}

int main(void)
{
    run_test("search_back: the index a binary search finds, every size and place", test_as_binary_search);
    run_test("search_back: a few probes when the answer is near the end", test_few_probes_near_the_end);
    return check_exit_status();
}
