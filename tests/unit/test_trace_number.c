/*
 * test_trace_number.c — the reader's inline number path (trace_number_fast,
 * then trace_parse_double for what it leaves) gives the very result the
 * reader gave before it existed: the same status and the same double, bit
 * for bit, on edge cases and on a million generated strings (digits, dots,
 * signs, exponents, 17 to 25 digits, leading zeros, inf/nan spellings,
 * stray bytes). ref_parse_double below is trace_parse_double as it was
 * (commit 8d601c0), kept here as the reference; ref_parse_int64 the same
 * for the timestamps' trace_parse_int64 (eight digits at a time now).
 * trace_number_plain (the column mask's check, a word at a time) must only
 * vouch for strings the old parser reads as a number in the range asked;
 * it reads each from a copy followed by digits and dots it must not take.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "trace_number.h"
#include "trace_reader.h"

static const double ref_pow10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int ref_careful(const char *s, size_t len, double *out)
{
    const char *p = s, *e = s + len;
    int neg = 0;
    if (p < e && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    uint64_t m = 0;
    int sig = 0, digits = 0, exp10 = 0, exact = 1;
    for (; p < e && (unsigned)(*p - '0') < 10; p++, digits++) {
        if (m == 0 && *p == '0')
            continue;
        if (sig < 19) {
            m = m * 10 + (uint64_t)(*p - '0');
            sig++;
        } else {
            exact = 0;
        }
    }
    if (p < e && *p == '.') {
        for (p++; p < e && (unsigned)(*p - '0') < 10; p++, digits++) {
            if (m == 0 && *p == '0') {
                exp10--;
                continue;
            }
            if (sig < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                sig++;
                exp10--;
            } else {
                exact = 0;
            }
        }
    }
    if (digits == 0)
        return -1;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0, ed = 0, ev = 0;
        if (p < e && (*p == '-' || *p == '+')) {
            eneg = *p == '-';
            p++;
        }
        for (; p < e && (unsigned)(*p - '0') < 10; p++, ed++)
            if (ev < 100000)
                ev = ev * 10 + (*p - '0');
        if (ed == 0)
            return -1;
        exp10 += eneg ? -ev : ev;
    }
    if (p != e)
        return -1;
    if (m == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    if (exact && exp10 == 0) {
        double v = (double)m;
        *out = neg ? -v : v;
        return 0;
    }
    if (exact && m <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)m;
        v = exp10 < 0 ? v / ref_pow10[-exp10] : v * ref_pow10[exp10];
        *out = neg ? -v : v;
        return 0;
    }
    char tmp[128];
    if (len >= sizeof tmp)
        return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    *out = strtod(tmp, NULL);
    return isfinite(*out) ? 0 : -2;
}

static int ref_parse_double(const char *s, size_t len, double *out)
{
    const char *p = s, *e = s + len;
    int neg = 0;
    if (p < e && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    uint64_t m = 0;
    const char *digits_start = p;
    while (p < e && (unsigned)(*p - '0') < 10)
        m = m * 10 + (uint64_t)(*p++ - '0');
    size_t int_digits = (size_t)(p - digits_start), frac_digits = 0;
    if (p < e && *p == '.') {
        const char *frac_start = ++p;
        while (p < e && (unsigned)(*p - '0') < 10)
            m = m * 10 + (uint64_t)(*p++ - '0');
        frac_digits = (size_t)(p - frac_start);
    }
    if (p != e || int_digits + frac_digits > 19)
        return ref_careful(s, len, out);
    if (int_digits + frac_digits == 0)
        return -1;
    double v;
    if (frac_digits == 0)
        v = (double)m;
    else if (m <= (UINT64_C(1) << 53) && frac_digits <= 22)
        v = (double)m / ref_pow10[frac_digits];
    else
        return ref_careful(s, len, out);
    *out = neg ? -v : v;
    return 0;
}

/* What the reader does now for one cell. */
static int new_parse(const char *s, size_t len, double *out)
{
    if (trace_number_fast(s, len, out) == 0)
        return 0;
    return trace_parse_double(s, len, out);
}

/* S copied to PAD, followed by bytes a word read must mask off: digits,
 * dots and signs, which would change the answer if they were taken. */
static const char *padded(const char *s, size_t n, char *pad, size_t cap)
{
    static const char junk[] = "9.9-5.0+71.3..8";
    memcpy(pad, s, n);
    for (size_t i = n; i < cap; i++)
        pad[i] = junk[(i - n) % (sizeof junk - 1)];
    return pad;
}

static long plain_wrong;

/* A cell trace_number_plain vouches for with MAX_INT digits reads, with
 * the old parser, as a number in 0 .. 10^MAX_INT. */
static void plain_holds(const char *pad, size_t n, const char *s)
{
    static const int max_int[] = { 0, 2, 5, 15, 16 };
    for (size_t k = 0; k < sizeof max_int / sizeof max_int[0]; k++) {
        double v;
        if (trace_number_plain(pad, n, max_int[k]) &&
            (ref_parse_double(s, n, &v) != 0 || !(v >= 0 && v <= pow(10, max_int[k]))) &&
            plain_wrong++ < 10)
            fprintf(stderr, "  '%s': plain with %d integer digits, but reads %.17g\n", s,
                    max_int[k], v);
    }
}

static long mismatches;

/* Compares both on S (NUL-terminated, as the reader's cells are); on a
 * success also against strtod, bit for bit. */
static void same(const char *s)
{
    size_t n = strlen(s);
    char pad[96];
    padded(s, n, pad, sizeof pad);
    plain_holds(pad, n, s);
    double a = 12345.0, b = 12345.0;
    int ra = ref_parse_double(s, n, &a), rb = new_parse(s, n, &b);
    int ok = ra == rb && (ra != 0 || memcmp(&a, &b, sizeof a) == 0);
    if (ok && ra == 0) {
        double c = strtod(s, NULL);
        ok = memcmp(&b, &c, sizeof b) == 0;
    }
    if (!ok && mismatches++ < 10)
        fprintf(stderr, "  '%s': before %d %.17g, now %d %.17g\n", s, ra, a, rb, b);
}

static void test_edge_cases(void)
{
    static const char *const cases[] = {
        "0", "-0", "+0", "00", "000.000", "-0.0", "0.", ".0", ".", "-", "+", "-.", "", " 1", "1 ",
        "1", "98", "612.345", "-3.5", "+3.5", "60.741", "700.000", "6.4", "0x10", "1e5", "1E5",
        "1e", "1e+", "1e-", "1e-5", "5e-324", "4.9e-324", "2e-324", "1e308", "1.8e308", "1e999",
        "-1e999", "1e-999", "9007199254740992", "9007199254740993", "9007199254740993.5",
        "900719925474099.35", "90071992547409.935", "1790000010000000000",
        "9999999999999999999", "18446744073709551615", "18446744073709551616",
        "99999999999999999999", "1234567890123456789.5", "0.1234567890123456789",
        "0.12345678901234567890", "00000000000000000000000001", "0000000000000000001.5",
        "1.7976931348623157e308", "2.2250738585072014e-308", "2.2250738585072011e-308",
        "inf", "-inf", "INF", "Infinity", "nan", "NaN", "-nan", "nan(1)", "1..2", "1.2.3",
        "--1", "-+1", "1-", "1,5", "١", "0.000000000000000000001", "123456789012345678",
        "12345678901234567.8", "1234567890123456.78", "9007199254740991.1",
        "0.30000000000000004", "0.1", "0.2", "0.3", "4611686018427387903",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        same(cases[i]);
    CHECK(mismatches == 0 && plain_wrong == 0);
}

static uint64_t rng = 88172645463325252u;
static unsigned next(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* Cells of 1 to 17 bytes over digits and '.', the shapes
 * trace_number_plain looks at, with the digits varied. */
static void test_plain_shapes(void)
{
    static const char digits[] = "0123456789";
    char s[32];
    long vouched = 0;
    for (size_t n = 1; n <= 17; n++)
        for (unsigned k = 0; k < 10000; k++) {
            unsigned dots = next(3);           /* 0, 1 or 2 dots */
            for (size_t i = 0; i < n; i++)
                s[i] = digits[next(10)];
            for (unsigned d = 0; d < dots; d++)
                s[next((unsigned)n)] = '.';
            s[n] = '\0';
            char pad[48];
            vouched += trace_number_plain(padded(s, n, pad, sizeof pad), n, 16);
            same(s);
        }
    CHECK(mismatches == 0 && plain_wrong == 0);
    CHECK(vouched > 50000);                    /* the check said yes often */
}

/* trace_reasons_plain vouches for "0x" and 16 digits 0-9 a-f, nothing
 * else: every byte value at every place, and the lengths around 18. */
static void test_reasons_plain(void)
{
    long wrong = 0;
    for (int at = 0; at < 18; at++)
        for (int b = 0; b < 256; b++) {
            char s[48] = "0x0123456789abcdef";
            memset(s + 18, '0', sizeof s - 18);   /* more digits past the cell */
            s[at] = (char)b;
            int want = at == 0 ? b == '0'
                     : at == 1 ? b == 'x'
                     : (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f');
            unsigned long long bits;
            wrong += trace_reasons_plain(s, 18) != want;
            if (want)
                wrong += trace_parse_reasons(s, 18, &bits) != 0;
        }
    char s[48] = "0x0000000000000001";
    memset(s + 18, '0', sizeof s - 18);
    for (size_t n = 0; n < 30; n++)
        wrong += trace_reasons_plain(s, n) != (n == 18);
    CHECK(wrong == 0);
}

/* Decimal-shaped strings: sign, 0-25 digits (leading zeros often), a dot
 * anywhere or none, sometimes an exponent. */
static void test_generated_decimals(void)
{
    char s[64];
    for (int k = 0; k < 1000000; k++) {
        size_t n = 0;
        unsigned r = next(8);
        if (r == 0)
            s[n++] = '-';
        else if (r == 1)
            s[n++] = '+';
        unsigned digits = next(4) == 0 ? next(26) : 1 + next(19);
        unsigned dot = next(3) == 0 ? 99 : next(digits + 1);
        unsigned zeros = next(4) == 0 ? next(digits + 1) : 0;
        for (unsigned d = 0; d <= digits; d++) {
            if (d == dot)
                s[n++] = '.';
            if (d < digits)
                s[n++] = (char)('0' + (d < zeros ? 0 : next(10)));
        }
        if (next(10) == 0) {
            s[n++] = next(2) ? 'e' : 'E';
            if (next(2))
                s[n++] = next(2) ? '-' : '+';
            for (unsigned d = next(4); d > 0; d--)
                s[n++] = (char)('0' + next(10));
        }
        s[n] = '\0';
        same(s);
    }
    CHECK(mismatches == 0 && plain_wrong == 0);
}

/* Anything: short strings over digits, signs, dots, exponent letters, the
 * letters of inf/nan, spaces and a few other bytes. */
static void test_generated_noise(void)
{
    static const char alphabet[] = "0123456789000111999..--++eEinfatyINFATYx ,\t\"";
    char s[32];
    for (int k = 0; k < 1000000; k++) {
        size_t n = next(24);
        for (size_t i = 0; i < n; i++)
            s[i] = alphabet[next(sizeof alphabet - 1)];
        s[n] = '\0';
        same(s);
    }
    CHECK(mismatches == 0 && plain_wrong == 0);
}

/* trace_parse_int64 as it was (commit 8d601c0). */
static int ref_parse_int64(const char *s, size_t len, int64_t *out)
{
    const char *p = s, *e = s + len;
    int neg = 0;
    if (p < e && *p == '-') {
        neg = 1;
        p++;
    }
    if (p == e || e - p > 19)
        return -1;
    uint64_t v = 0;
    for (; p < e; p++) {
        if ((unsigned)(*p - '0') >= 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* Integers: 0-21 digits, a sign sometimes, and sometimes one byte next to
 * a digit's range (/ : 0x00 0x80 0xff, space, '.', '+') anywhere. */
static void test_generated_int64(void)
{
    static const char odd[] = "/: .+-eA\x80\xff\xfa\x39";
    static const char *const cases[] = {
        "0", "-0", "1700000000000000000", "4611686018427387903", "9223372036854775807",
        "9223372036854775808", "-9223372036854775807", "-9223372036854775808", "9999999999999999999",
        "10000000000000000000", "00000000000000000001", "12345678", "123456789", "1234567/",
        "1234567:", "", "-", "+1", " 1",
    };
    long bad = 0;
    char s[40];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0] + 1000000; k++) {
        size_t n = 0;
        if (k < sizeof cases / sizeof cases[0]) {
            n = strlen(cases[k]);
            memcpy(s, cases[k], n + 1);
        } else {
            if (next(6) == 0)
                s[n++] = '-';
            unsigned digits = next(5) == 0 ? next(22) : 8 + next(12);
            for (unsigned d = 0; d < digits; d++)
                s[n++] = (char)('0' + next(10));
            if (n && next(4) == 0)
                s[next((unsigned)n)] = odd[next(sizeof odd - 1)];
            s[n] = '\0';
        }
        int64_t a = 7, b = 7;
        int ra = ref_parse_int64(s, n, &a), rb = trace_parse_int64(s, n, &b);
        if ((ra != rb || (ra == 0 && a != b)) && bad++ < 10)
            fprintf(stderr, "  '%s': before %d %lld, now %d %lld\n", s, ra, (long long)a, rb,
                    (long long)b);
    }
    CHECK(bad == 0);
}

int main(void)
{
    run_test("edge cases: before and now, bit for bit", test_edge_cases);
    run_test("170,000 cells of digits and dots: trace_number_plain", test_plain_shapes);
    run_test("trace_reasons_plain: every byte at every place", test_reasons_plain);
    run_test("1,000,000 generated decimals: before and now, and strtod", test_generated_decimals);
    run_test("1,000,000 generated strings over number bytes", test_generated_noise);
    run_test("trace_parse_int64: 1,000,000 generated integers, before and now", test_generated_int64);
    return check_exit_status();
}
