/* test_windows.c — the pairing rule: each start pairs with the next end at
 * or after it; unmatched starts and ends; same start and end label. */
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
    CHECK(pairing_open_count(&p) == 1 && pairing_open_ids(&p)[0] == 3);
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

int main(void)
{
    run_test("pairing: sequential windows, shared end, unmatched marks", test_sequential_and_unmatched);
    run_test("pairing: an end earlier than the open start does not close it", test_end_before_later_start);
    run_test("pairing: same start and end label gives consecutive windows", test_same_label);
    return check_exit_status();
}
