/* test_window_arena.c — window records from the arena (window_arena.h):
 * zeroed, in chunks of WINDOW_ARENA_CHUNK, and a chunk goes once every
 * record of it is handed out and given back, in whatever order. */
#include "check.h"
#include "window_arena.h"

#define N (3 * WINDOW_ARENA_CHUNK + 5)

static int all_zero(const struct window *w)
{
    const unsigned char *p = (const unsigned char *)w;
    for (size_t i = 0; i < sizeof *w; i++)
        if (p[i])
            return 0;
    return 1;
}

static void test_chunks_come_and_go(void)
{
    struct window_arena a;
    memset(&a, 0, sizeof a);
    static struct window *w[N];
    int zero = 0;
    for (int i = 0; i < N; i++) {
        w[i] = window_arena_new(&a);
        zero += w[i] && all_zero(w[i]);
        w[i]->index = i + 1;              /* written: the next record must not see it */
    }
    CHECK(zero == N);
    CHECK(a.n == 4);
    int distinct = 1;
    for (int i = 1; i < N; i++)
        distinct &= w[i] != w[i - 1] && w[i]->index == i + 1;
    CHECK(distinct);
    /* the second chunk, backwards: it goes with its last record */
    for (int i = 2 * WINDOW_ARENA_CHUNK - 1; i > WINDOW_ARENA_CHUNK; i--)
        window_arena_free(&a, w[i]);
    CHECK(a.n == 4);
    window_arena_free(&a, w[WINDOW_ARENA_CHUNK]);
    CHECK(a.n == 3);
    /* the last chunk is still handing out: it stays when emptied */
    for (int i = 3 * WINDOW_ARENA_CHUNK; i < N; i++)
        window_arena_free(&a, w[i]);
    CHECK(a.n == 3);
    struct window *more = window_arena_new(&a);
    CHECK(more && all_zero(more) && a.n == 3);
    /* the first chunk, every other record first */
    for (int i = 0; i < WINDOW_ARENA_CHUNK; i += 2)
        window_arena_free(&a, w[i]);
    CHECK(a.n == 3);
    for (int i = 1; i < WINDOW_ARENA_CHUNK; i += 2)
        window_arena_free(&a, w[i]);
    CHECK(a.n == 2);
    CHECK(w[2 * WINDOW_ARENA_CHUNK + 7]->index == 2 * WINDOW_ARENA_CHUNK + 8);  /* untouched */
    window_arena_free(&a, NULL);
    window_arena_done(&a);
    CHECK(a.n == 0 && a.chunk == NULL);
    /* an arena emptied starts again */
    struct window *again = window_arena_new(&a);
    CHECK(again && all_zero(again) && a.n == 1);
    window_arena_done(&a);
}

int main(void)
{
    run_test("window arena: zeroed records, chunks that go when given back", test_chunks_come_and_go);
    return check_exit_status();
}
