/* test_downsample.c — min/max bucketing keeps spikes and bounds points. */
#include <stdlib.h>

#include "check.h"
#include "downsample.h"

static void few_samples_kept_exactly(void)
{
    struct downsample d;
    CHECK(downsample_init(&d, 0, 10, 100) == 0);
    downsample_add(&d, 1, 5);
    downsample_add(&d, 2, 7);
    downsample_add(&d, 2.01, 9);   /* same bucket as 2: both kept (min, max) */
    downsample_add(&d, 11, 1);     /* outside: ignored */
    downsample_add(&d, 3, NAN);    /* no value: ignored */
    double t[8], v[8];
    long n = downsample_points(&d, t, v, 8);
    CHECK(n == 3);
    CHECK(t[0] == 1 && v[0] == 5 && t[1] == 2 && v[1] == 7 && t[2] == 2.01 && v[2] == 9);
    CHECK(d.samples == 3 && d.vmin == 5 && d.vmax == 9);
    downsample_free(&d);
}

static void spike_survives_a_million_samples(void)
{
    struct downsample d;
    CHECK(downsample_init(&d, 0, 86400, 1000) == 0);
    for (long i = 0; i <= 1000000; i++) {
        double t = 86400.0 * (double)i / 1000000;
        downsample_add(&d, t, i == 612345 ? 612 : 75 + (i % 3));
    }
    static double t[2000], v[2000];
    long n = downsample_points(&d, t, v, 2000);
    CHECK(n == 2000);              /* two points per bucket, never more */
    int spike = 0;
    for (long i = 0; i < n; i++) {
        spike |= v[i] == 612 && t[i] == 86400.0 * 612345 / 1000000;
        if (i)
            CHECK(t[i] > t[i - 1]);    /* time order */
    }
    CHECK(spike);
    CHECK(d.vmax == 612 && d.vmin == 75 && d.samples == 1000001);
    downsample_free(&d);
}

static void order_within_bucket_follows_time(void)
{
    struct downsample d;
    CHECK(downsample_init(&d, 0, 1, 1) == 0);
    downsample_add(&d, 0.1, 9);    /* max first */
    downsample_add(&d, 0.5, 5);
    downsample_add(&d, 0.9, 1);    /* min last */
    double t[2], v[2];
    CHECK(downsample_points(&d, t, v, 2) == 2);
    CHECK(v[0] == 9 && v[1] == 1 && t[0] == 0.1 && t[1] == 0.9);
    /* the last bucket includes t1 itself */
    downsample_add(&d, 1, 0);
    CHECK(downsample_points(&d, t, v, 2) == 2 && v[1] == 0);
    downsample_free(&d);
}

int main(void)
{
    run_test("downsample keeps few samples exactly", few_samples_kept_exactly);
    run_test("downsample keeps a 1-sample spike among 1M", spike_survives_a_million_samples);
    run_test("downsample bucket points in time order", order_within_bucket_follows_time);
    return check_exit_status();
}
