/* test_num_format.c — num_format's text equals snprintf's, byte for byte,
 * over edge cases and hundreds of thousands of pseudo-random values of each format. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "num_format.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;   /* xorshift64 */
    return rng;
}

static int mismatches;

static void same(const char *got, size_t got_len, const char *want, size_t want_len)
{
    if ((strcmp(got, want) != 0 || got_len != want_len) && mismatches++ < 10)
        CHECK_STR(got, want);
    if (got_len != want_len && mismatches < 10)
        CHECK(got_len == want_len);
}

/* A value of 1..20 decimal digits, or a power of ten and its neighbours. */
static unsigned long long some_u64(void)
{
    uint64_t r = next_u64();
    switch (r % 4) {
    case 0: return r >> (r % 64);
    case 1: { unsigned long long p = 1; for (int i = (int)(r >> 8) % 20; i > 0; i--) p *= 10;
              return p + (unsigned long long)((int)(r >> 16) % 3) - 1; }
    case 2: return r % 1000000;
    default: return r;
    }
}

static void check_u64(unsigned long long v)
{
    char got[NUM_FORMAT_INT_MAX], want[64];
    size_t g = num_format_u64(got, v);
    int w = snprintf(want, sizeof want, "%llu", v);
    same(got, g, want, (size_t)w);
}

static void check_i64(long long v)
{
    char got[NUM_FORMAT_INT_MAX], want[64];
    size_t g = num_format_i64(got, v);
    int w = snprintf(want, sizeof want, "%lld", v);
    same(got, g, want, (size_t)w);
}

static void check_milli(unsigned long long v)
{
    char got[32], want[64];
    size_t g = num_format_milli(got, v);
    int w = snprintf(want, sizeof want, "%llu.%03llu", v / 1000, v % 1000);
    same(got, g, want, (size_t)w);
}

static void check_hex(unsigned long long v)
{
    char got[32], want[64];
    size_t g = num_format_hex64(got, v);
    int w = snprintf(want, sizeof want, "0x%016llx", v);
    same(got, g, want, (size_t)w);
}

/* In the trace's 32-byte cell, where a huge value is cut as snprintf cuts
 * it: FORMAT_FN(v) against snprintf's SPEC ("%.1f", "%.0f"). */
static void check_fixed(size_t (*format_fn)(char *, size_t, double), const char *spec, double v)
{
    char got[32], want[32];
    memset(got, 'x', sizeof got);
    size_t g = format_fn(got, sizeof got, v);
    int w = snprintf(want, sizeof want, spec, v);
    same(got, g, want, (size_t)w);
}

static void check_fixed1(double v)
{
    check_fixed(num_format_fixed1, "%.1f", v);
}

static void test_integers(void)
{
    static const unsigned long long edges[] = { 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 1001,
        4294967295ull, 4294967296ull, 9223372036854775807ull, 9223372036854775808ull,
        18446744073709551615ull, 10000000000000000000ull, 9999999999999999999ull };
    mismatches = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_u64(edges[i]);
        check_i64((long long)edges[i]);
        check_i64(-(long long)(edges[i] & LLONG_MAX));
    }
    check_i64(LLONG_MIN);
    check_i64(LLONG_MAX);
    check_i64(-1);
    for (int i = 0; i < 300000; i++) {
        unsigned long long v = some_u64();
        check_u64(v);
        check_i64((long long)v);
    }
    CHECK(mismatches == 0);
}

static void test_milli_hex(void)
{
    static const unsigned long long edges[] = { 0, 1, 9, 10, 99, 100, 999, 1000, 1001, 612000,
        75000, 999999, 1000000, 18446744073709551615ull, 18446744073709551000ull };
    mismatches = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_milli(edges[i]);
        check_hex(edges[i]);
    }
    for (int i = 0; i < 200000; i++) {
        unsigned long long v = some_u64();
        check_milli(v);
        check_hex(v);
    }
    CHECK(mismatches == 0);
}

static void test_fixed1_edges(void)
{
    static const double edges[] = { 0.0, -0.0, 0.04, -0.04, 0.05, -0.05, 0.05000000000000001,
        0.25, 0.15, 0.35, 0.45, 0.95, -0.95, 0.9499999999999999, 0.95000000000000007,
        1.25, 2.25, 99.95, 99.949999999999989, 100.0, 100.05, 12.3456, -12.3456, 0.5,
        1.5, 2.5, DBL_MIN, -DBL_MIN, 4.9e-324, DBL_MAX, -DBL_MAX, 1e13, 99999999999999.95,
        99999999999999.94, 1e14, -1e14, 1e15, 4503599627370495.5, 4503599627370496.0,
        1e16, 1e22, 1e300, -1e300, 9007199254740993.0, 0.1, 0.2, 0.3, 1.05, 1.15, 1e-7 };
    mismatches = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_fixed1(edges[i]);
    check_fixed1(NAN);
    check_fixed1(-NAN);
    check_fixed1(INFINITY);
    check_fixed1(-INFINITY);
    /* every "k.k5" and its two neighbouring doubles, up to 30,000 */
    for (int k = -300000; k <= 300000; k++) {
        double t = (k + 0.5) / 10;
        check_fixed1(t);
        check_fixed1(nextafter(t, INFINITY));
        check_fixed1(nextafter(t, -INFINITY));
    }
    /* exact ties: multiples of 1/20 that are dyadic (x.25, x.75) */
    for (int k = -100000; k <= 100000; k++)
        check_fixed1(k * 0.25);
    CHECK(mismatches == 0);
}

static void test_fixed1_random(void)
{
    mismatches = 0;
    for (int i = 0; i < 400000; i++) {
        uint64_t r = next_u64();
        double v;
        switch (r % 4) {
        case 0: v = (double)(r >> 11) / 9007199254740992.0 * 100.0; break;  /* a percentage */
        case 1: { uint64_t bits = next_u64(); memcpy(&v, &bits, sizeof v); break; } /* any double */
        case 2: v = ldexp((double)(r >> 11), (int)((r >> 3) % 110) - 100); break;
        default: v = ((double)(int64_t)r) / 1e6; break;
        }
        check_fixed1(v);
        check_fixed1(-v);
    }
    CHECK(mismatches == 0);
}

/* num_format_fixed at every precision the report uses and beyond. */
static void check_fixed_digits(double v, int digits)
{
    char got[32], want[32], spec[8];
    memset(got, 'x', sizeof got);
    snprintf(spec, sizeof spec, "%%.%df", digits);
    size_t g = num_format_fixed(got, sizeof got, v, digits);
    int w = snprintf(want, sizeof want, spec, v);
    same(got, g, want, (size_t)w);
}

static void test_fixed_digits(void)
{
    static const double edges[] = { 0.0, -0.0, 0.5, -0.5, 0.0005, -0.0005, 0.00049999999999999993,
        0.0000005, 1e-9, 5e-10, 0.123456789, 306.2725, 31.7425, 0.504, 1e6, 999999.9999995,
        1e9, 1e12, 123456.7890125, DBL_MIN, 4.9e-324, DBL_MAX, -DBL_MAX, 1e15, 4503599627370495.5 };
    mismatches = 0;
    for (int digits = 1; digits <= 9; digits++) {
        double unit = pow(10, -digits);
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
            check_fixed_digits(edges[i], digits);
            check_fixed_digits(nextafter(edges[i], INFINITY), digits);
            check_fixed_digits(nextafter(edges[i], -INFINITY), digits);
        }
        check_fixed_digits(NAN, digits);
        check_fixed_digits(-INFINITY, digits);
        /* the halves between neighbouring outputs, and the doubles beside them */
        for (int k = -5000; k <= 5000; k++) {
            double t = (k + 0.5) * unit;
            check_fixed_digits(t, digits);
            check_fixed_digits(nextafter(t, INFINITY), digits);
            check_fixed_digits(nextafter(t, -INFINITY), digits);
            check_fixed_digits(k * 0.125, digits);       /* dyadic: exact ties at low precision */
        }
        for (int i = 0; i < 20000; i++) {
            uint64_t r = next_u64();
            double v;
            switch (r % 3) {
            case 0: v = (double)(r >> 11) / 9007199254740992.0 * 1000.0; break;
            case 1: v = ldexp((double)(r >> 11), (int)((r >> 3) % 100) - 90); break;
            default: v = ((double)(int64_t)r) / 1e9; break;
            }
            check_fixed_digits(v, digits);
            check_fixed_digits(-v, digits);
        }
    }
    check_fixed_digits(1.5, 0);          /* num_format_fixed0 */
    check_fixed_digits(-0.4, 0);
    check_fixed_digits(2.25, 12);        /* beyond 9: snprintf's own */
    CHECK(mismatches == 0);
}

static void check_g10(double v)
{
    char got[32], want[32];
    size_t g = num_format_g10(got, sizeof got, v);
    int w = snprintf(want, sizeof want, "%.10g", v);
    same(got, g, want, (size_t)w);
}

static void test_g10(void)
{
    static const double edges[] = { 0.0, -0.0, 1.0, -1.0, 0.001, -0.001, 0.0005, 0.0015, 0.1, 0.2,
        0.3, 75.0, 612.345, 999999.999, -999999.999, 1e6, 999999.9995, 1e-4, 1e-5, 12345.6789,
        0.5, 100.0, 1e9, 1e10, 123456789012.0, 1e300, DBL_MIN, 4.9e-324, DBL_MAX, 1.0 / 3 };
    mismatches = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_g10(edges[i]);
        check_g10(nextafter(edges[i], INFINITY));
        check_g10(nextafter(edges[i], -INFINITY));
    }
    check_g10(NAN);
    check_g10(INFINITY);
    check_g10(-INFINITY);
    for (int i = 0; i < 300000; i++) {
        uint64_t r = next_u64();
        long long m = (long long)(r % 2000000000ull) - 1000000000;
        double v = (double)m / ((r >> 40) % 2 ? 1000.0 : 100.0);   /* thousandths, hundredths */
        check_g10(v);
        check_g10(nextafter(v, INFINITY));
        switch ((r >> 50) % 3) {
        case 0: v = (double)(r >> 11) / 9007199254740992.0 * 100.0; break;
        case 1: v = ldexp((double)(r >> 11), (int)((r >> 3) % 120) - 110); break;
        default: v = (double)(int64_t)r / 1e9; break;
        }
        check_g10(v);
    }
    CHECK(mismatches == 0);
}

static void check_fixed0(double v)
{
    check_fixed(num_format_fixed0, "%.0f", v);
}

static void test_fixed0(void)
{
    static const double edges[] = { 0.0, -0.0, 0.4, -0.4, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
        0.49999999999999994, 0.5000000000000001, 99.5, 100.5, 723.5, 724.49999999999989,
        1e14, 999999999999999.5, 999999999999999.0, 1e15, -1e15, 4503599627370495.5, 1e22,
        DBL_MAX, -DBL_MAX, DBL_MIN, 4.9e-324 };
    mismatches = 0;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_fixed0(edges[i]);
    check_fixed0(NAN);
    check_fixed0(INFINITY);
    check_fixed0(-INFINITY);
    for (int k = -200000; k <= 200000; k++) {     /* every half, and its neighbours */
        double t = k + 0.5;
        check_fixed0(t);
        check_fixed0(nextafter(t, INFINITY));
        check_fixed0(nextafter(t, -INFINITY));
    }
    for (int i = 0; i < 300000; i++) {
        uint64_t r = next_u64();
        double v = r % 2 ? (double)(int64_t)r / 1e6 : ldexp((double)(r >> 11), (int)((r >> 3) % 120) - 100);
        check_fixed0(v);
        check_fixed0(-v);
    }
    CHECK(mismatches == 0);
}

/* num_format_append against snprintf at each length of the buffer: what
 * fits, the NUL, and the length it would have had. */
static void check_append(const char *pre, const char *fmt, const char *s, double v)
{
    for (size_t cap = strlen(pre) + 1; cap <= 64; cap++) {
        char got[80], want[80];
        memset(got, 'x', sizeof got);
        memset(want, 'x', sizeof want);
        snprintf(got, cap, "%s", pre);
        snprintf(want, cap, "%s", pre);
        size_t len = strlen(pre);
        size_t g = num_format_append(got, cap, len, fmt, s, v);
        size_t w = len + (size_t)snprintf(want + len, cap - len, fmt, s, v);
        if (g != w || memcmp(got, want, sizeof got) != 0) {
            if (mismatches++ < 5)
                fprintf(stderr, "  append(%zu, \"%s\", %.17g): \"%s\" (%zu), snprintf \"%s\" (%zu)\n",
                        cap, fmt, v, got, g, want, w);
        }
    }
}

static void test_append(void)
{
    static const double vals[] = { 0, -0.0, 41.4, 724.5, 1e20, NAN, -INFINITY, 3.25 };
    static const char *const fmts[] = { "%s%.0f%% waiting", "%s (%.0f ms)", "%s: %.2f cores",
                                        "%s, edges +-%.0f ms", "%s 100%% %.0f" };
    mismatches = 0;
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
            check_append("", fmts[f], "waiting", vals[i]);
            check_append("power 63 W", fmts[f], ", then ", vals[i]);
        }
    char buf[8] = "abcdefg";
    CHECK(num_format_append(buf, 7, 7, "%s", "more") == 7);   /* full: as it was */
    CHECK(strcmp(buf, "abcdefg") == 0);
    CHECK(mismatches == 0);
}

int main(void)
{
    run_test("num_format integers equal %llu and %lld", test_integers);
    run_test("num_format milli and hex equal %llu.%03llu and 0x%016llx", test_milli_hex);
    run_test("num_format %.1f edges: ties, neighbours, -0.0, NaN, inf, huge", test_fixed1_edges);
    run_test("num_format %.1f on random doubles", test_fixed1_random);
    run_test("num_format %.Nf, N 1 to 9: halves, their neighbours, edges, random", test_fixed_digits);
    run_test("num_format %.10g: thousandths, their neighbours, edges, random doubles", test_g10);
    run_test("num_format %.0f: halves, their neighbours, -0.0, NaN, inf, huge, random", test_fixed0);
    run_test("num_format_append equals snprintf at every buffer length", test_append);
    return check_exit_status();
}
