/* test_region_arena.c — memory from the region arena (region_arena.h):
 * zeroed and aligned; chunks that double from REGION_FIRST_CHUNK up to
 * REGION_SMALL_MAX, then REGION_HUGE, aligned to it and advised for huge
 * pages; a
 * chunk goes once it no longer hands out and all of it is given back, in
 * whatever order. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "region_arena.h"

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

#define REC 656                          /* a record of a few hundred bytes */
#define PER_FIRST ((int)(REGION_FIRST_CHUNK / REC))

static void test_chunks_come_and_go(void)
{
    struct region_arena a;
    memset(&a, 0, sizeof a);
    enum { N = 3 * PER_FIRST };
    static unsigned char *r[N];
    int zero = 0, aligned = 0;
    for (int i = 0; i < N; i++) {
        r[i] = region_alloc(&a, REC);
        zero += r[i] && all_zero(r[i], REC);
        aligned += r[i] && (uintptr_t)r[i] % 16 == 0;
        memset(r[i], i % 251 + 1, REC);  /* written: the next one must not see it */
    }
    CHECK(zero == N && aligned == N);
    /* 64 KiB holds PER_FIRST records, 128 KiB twice as many: two chunks */
    CHECK(a.n == 2);
    CHECK(a.chunk[a.cur_at].bytes == 2 * REGION_FIRST_CHUNK);
    int kept = 1;
    for (int i = 0; i < N; i++)
        kept &= r[i][0] == (unsigned char)(i % 251 + 1) && r[i][REC - 1] == (unsigned char)(i % 251 + 1);
    CHECK(kept);
    /* the first chunk, every other record first: it goes with its last */
    for (int i = 0; i < PER_FIRST; i += 2)
        region_free(&a, r[i]);
    CHECK(a.n == 2);
    for (int i = PER_FIRST - 1; i > 0; i -= 2)
        region_free(&a, r[i]);
    CHECK(a.n == 1);
    /* the chunk still handing out stays when emptied ... */
    for (int i = PER_FIRST; i < N; i++)
        region_free(&a, r[i]);
    CHECK(a.n == 1);
    unsigned char *more = region_alloc(&a, REC);
    CHECK(more && all_zero(more, REC) && a.n == 1);
    /* ... and goes, empty, when a new one replaces it */
    region_free(&a, more);
    unsigned char *big = region_alloc(&a, 3 * REGION_FIRST_CHUNK);
    CHECK(big && a.n == 1 && a.chunk[0].base == big);
    CHECK(a.chunk[0].bytes == REGION_HUGE);     /* after 128 KiB: huge chunks */
    region_free(&a, NULL);
    region_done(&a);
    CHECK(a.n == 0 && a.chunk == NULL);
    unsigned char *again = region_alloc(&a, REC);
    CHECK(again && all_zero(again, REC) && a.n == 1 && a.chunk[0].bytes == REGION_FIRST_CHUNK);
    CHECK(region_alloc(&a, 0) == NULL);
    region_done(&a);
}

/* Whether /proc/self/smaps says the mapping holding p is advised for huge
 * pages (VmFlags "hg"); -1 when it cannot tell. */
static int advised_huge(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int in = 0, found = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
            continue;
        }
        if (in && strncmp(line, "VmFlags:", 8) == 0) {
            found = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return found;
}

static void test_huge_chunks(void)
{
    struct region_arena a;
    memset(&a, 0, sizeof a);
    size_t total = 0;
    long small_chunks = 0;
    unsigned char *last = NULL, *first = NULL;
    /* 64 + 128 KiB, then the first chunk of REGION_HUGE */
    while (a.n == 0 || a.chunk[a.cur_at].bytes < REGION_HUGE) {
        last = region_alloc(&a, 4096);
        if (!first)
            first = last;
        total += 4096;
        small_chunks = a.n;
    }
    CHECK(small_chunks == 3);               /* 2 small chunks, then the huge one */
    CHECK(total == REGION_FIRST_CHUNK + REGION_SMALL_MAX + 4096);
    CHECK((uintptr_t)a.chunk[a.cur_at].base % REGION_HUGE == 0);
    CHECK(a.chunk[a.cur_at].base == last);
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0) {
        CHECK(advised_huge(last) == 1);
        CHECK(advised_huge(first) == 0);        /* the small ones are not */
    }
    /* more than a huge chunk at once: a chunk of whole huge pages for it */
    unsigned char *over = region_alloc(&a, REGION_HUGE + 1);
    CHECK(over && (uintptr_t)over % REGION_HUGE == 0 && a.chunk[a.cur_at].bytes == 2 * REGION_HUGE);
    over[REGION_HUGE] = 1;
    region_done(&a);
}

int main(void)
{
    run_test("region arena: zeroed records, chunks that double and go when given back", test_chunks_come_and_go);
    run_test("region arena: chunks of REGION_HUGE aligned and advised for huge pages", test_huge_chunks);
    return check_exit_status();
}
