/*
 * trace_number.c — the numbers in a trace's cells: decimals
 * (trace_parse_double, declared in trace_reader.h), the int64 timestamps
 * and the clock-event reason bits.
 *
 * Numbers: the cells of a trace are short decimals ("612.345", "98",
 * "1790000010000000000"). trace_parse_double checks the decimal grammar
 * itself and computes the common cases exactly: an integer of up to 19
 * digits is one correctly rounded uint64 -> double conversion (the ns
 * timestamps), and a significand up to 2^53 with a power of ten up to 1e22
 * is one correctly rounded multiply or divide of two exact doubles
 * (Clinger's fast path); anything else goes to strtod, so results are
 * always the correctly rounded value and match Python's float().
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_number.h"
#include "trace_reader.h"

static const double pow10_exact[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int parse_double_careful(const char *s, size_t len, double *out)
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
        if (sig < 19) {                /* 19 digits always fit in uint64_t */
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
        double v = (double)m;          /* one rounding, to nearest */
        *out = neg ? -v : v;
        return 0;
    }
    if (exact && m <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)m;
        v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
        *out = neg ? -v : v;
        return 0;
    }
    char tmp[128];
    if (len >= sizeof tmp)
        return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    *out = strtod(tmp, NULL);
    return isfinite(*out) ? 0 : -2;    /* "1e999": the grammar's only way to infinity */
}

/* See trace_reader.h. The hot path: "612.345", "98", "1790000010000000000" — at most 19 digits,
 * no exponent. The digits then fit in a uint64_t exactly, and one
 * conversion (an integer) or one division by an exact power of ten
 * (significand up to 2^53) is correctly rounded. Everything else goes
 * through parse_double_careful. */
int trace_parse_double(const char *s, size_t len, double *out)
{
    const char *p = s, *e = s + len;
    int neg = 0;
    if (p < e && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    uint64_t m = 0;              /* wraps past 19 digits: then unused */
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
        return parse_double_careful(s, len, out);
    if (int_digits + frac_digits == 0)
        return -1;
    double v;
    if (frac_digits == 0)
        v = (double)m;
    else if (m <= (UINT64_C(1) << 53) && frac_digits <= 22)
        v = (double)m / pow10_exact[frac_digits];
    else
        return parse_double_careful(s, len, out);
    *out = neg ? -v : v;
    return 0;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define EIGHT_DIGITS 1
/* The 8 bytes at P as an 8-digit decimal, or -1 when one is not a digit.
 * A byte is a digit when its high nibble is 3, before and after adding 6
 * (no carry crosses bytes once every high nibble is 3). The digits are
 * then combined in pairs, fours and eights (the first byte is the most
 * significant digit). */
static inline int64_t eight_digits(const char *p)
{
    const uint64_t hi = UINT64_C(0xF0F0F0F0F0F0F0F0), threes = UINT64_C(0x3030303030303030);
    uint64_t x;
    memcpy(&x, p, sizeof x);
    if ((x & hi) != threes || ((x + UINT64_C(0x0606060606060606)) & hi) != threes)
        return -1;
    x -= threes;
    x = (x * 10 + (x >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
    x = (x * 100 + (x >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
    x = (x * 10000 + (x >> 32)) & UINT64_C(0x00000000FFFFFFFF);
    return (int64_t)x;
}
#endif

/* The ns timestamps have 19 digits on every row: eight at a time. */
int trace_parse_int64(const char *s, size_t len, int64_t *out)
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
#ifdef EIGHT_DIGITS
    for (; e - p >= 8; p += 8) {
        int64_t d = eight_digits(p);
        if (d < 0)
            return -1;
        v = v * 100000000 + (uint64_t)d;
    }
#endif
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

/* The recorder writes "0x%016llx"; that form is read here directly (it is
 * on every row), anything else strtoull(base 0) accepts is read by it. */
int trace_parse_reasons(const char *s, size_t n, unsigned long long *bits)
{
    if (n > 2 && n <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        unsigned long long v = 0;
        for (size_t i = 2; i < n; i++) {
            unsigned ch = (unsigned char)s[i], d = ch - '0';
            if (d > 9) {                       /* a-f, A-F (| 0x20: lower case) */
                d = (ch | 0x20) - 'a';
                if (d > 5)
                    return -1;
                d += 10;
            }
            v = v << 4 | d;
        }
        *bits = v;
        return 0;
    }
    char *end;
    errno = 0;
    *bits = strtoull(s, &end, 0);
    return errno || *end || end == s || *s == '-' ? -1 : 0;
}
