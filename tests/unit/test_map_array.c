/* test_map_array.c — the array in a mapping of its own (map_array.h) that
 * holds the analyzer's finished windows: what was written stays through
 * every growth, whatever the kernel does with the base; pages never
 * written read as zeros; the length grows by doubling in whole huge pages
 * (few remaps for 10,000 windows); freeing leaves it empty. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "analysis.h"
#include "map_array.h"
#include "region_arena.h"

static void test_growth_keeps_contents(void)
{
    struct map_array m;
    memset(&m, 0, sizeof m);
    CHECK(m.base == NULL && m.bytes == 0);
    enum { N = 100000 };                 /* 6.5 MB of 656-byte records, several growths */
    long remaps = 0, kept = 0, zeros = 0;
    size_t last = 0;
    for (long i = 0; i < N; i++) {
        CHECK(map_array_reserve(&m, sizeof(struct window) * (size_t)(i + 1)) == 0);
        if (m.bytes != last) {
            remaps++;
            last = m.bytes;
            /* every record so far is still there; the rest reads zero */
            const struct window *w = m.base;
            kept = 0;
            for (long j = 0; j < i; j++)
                kept += w[j].index == j + 1 && w[j].t_start_ns == 7 * j;
            zeros += w[i].index == 0 && w[i].t_start_ns == 0;
            CHECK(kept == i);
        }
        struct window *w = (struct window *)m.base + i;
        w->index = i + 1;
        w->t_start_ns = 7 * i;
    }
    CHECK(zeros == remaps);
    CHECK(m.bytes % REGION_HUGE == 0 && m.bytes >= sizeof(struct window) * N);
    CHECK(m.bytes < 2 * sizeof(struct window) * N + REGION_HUGE);   /* doubling, not more */
    CHECK(remaps >= 3 && remaps <= 6);   /* 2, 4, 8 MB: not a remap per record */
    CHECK(map_array_reserve(&m, 1) == 0 && m.bytes == last);        /* smaller: nothing to do */
    map_array_free(&m);
    CHECK(m.base == NULL && m.bytes == 0);
    map_array_free(&m);                  /* twice: harmless */
}

/* A request far past the doubling is met at once, whole huge pages. */
static void test_large_request(void)
{
    struct map_array m;
    memset(&m, 0, sizeof m);
    CHECK(map_array_reserve(&m, 100) == 0 && m.bytes == REGION_HUGE);
    ((unsigned char *)m.base)[99] = 42;
    size_t want = 5 * REGION_HUGE + 1;
    CHECK(map_array_reserve(&m, want) == 0 && m.bytes == 6 * REGION_HUGE);
    CHECK(((unsigned char *)m.base)[99] == 42 && ((unsigned char *)m.base)[want - 1] == 0);
    map_array_free(&m);
}

int main(void)
{
    run_test("map array: contents kept through growth, new pages zero, doubling", test_growth_keeps_contents);
    run_test("map array: a large request at once, in huge pages", test_large_request);
    return check_exit_status();
}
