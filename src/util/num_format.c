/* num_format.c — printf-free number text; see num_format.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "num_format.h"

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes V's decimal digits ending just before END; returns where they start. */
static char *digits_before(char *end, unsigned long long v)
{
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100);
        v /= 100;
        end -= 2;
        memcpy(end, digit_pairs + 2 * d, 2);
    }
    if (v >= 10) {
        end -= 2;
        memcpy(end, digit_pairs + 2 * v, 2);
    } else {
        *--end = (char)('0' + v);
    }
    return end;
}

size_t num_format_u64(char *buf, unsigned long long v)
{
    char tmp[NUM_FORMAT_INT_MAX];
    char *end = tmp + sizeof tmp;
    char *s = digits_before(end, v);
    size_t n = (size_t)(end - s);
    memcpy(buf, s, n);
    buf[n] = '\0';
    return n;
}

size_t num_format_i64(char *buf, long long v)
{
    if (v >= 0)
        return num_format_u64(buf, (unsigned long long)v);
    buf[0] = '-';
    /* 0 - (unsigned)v: the magnitude, LLONG_MIN's included, without overflow */
    return 1 + num_format_u64(buf + 1, 0ull - (unsigned long long)v);
}

size_t num_format_milli(char *buf, unsigned long long milli)
{
    size_t n = num_format_u64(buf, milli / 1000);
    unsigned frac = (unsigned)(milli % 1000);
    buf[n] = '.';
    buf[n + 1] = (char)('0' + frac / 100);
    memcpy(buf + n + 2, digit_pairs + 2 * (frac % 100), 2);
    buf[n + 4] = '\0';
    return n + 4;
}

size_t num_format_hex64(char *buf, unsigned long long v)
{
    static const char hex[] = "0123456789abcdef";
    buf[0] = '0';
    buf[1] = 'x';
    for (int i = 17; i >= 2; i--, v >>= 4)
        buf[i] = hex[v & 15];
    buf[18] = '\0';
    return 18;
}

/*
 * "%.Nf" rounds the exact binary value of V to N decimals, ties to even.
 * Y = V * 10^N in doubles (10^N itself is exact) may itself be rounded, by
 * at most ulp(Y) / 2. For |Y| < 2^52 every half-integer is a double, and
 * rounding is monotone: a product whose exact value lies below (above) a
 * half cannot round past it, at most onto it. So R = nearbyint(Y) is
 * snprintf's answer unless Y lies exactly half way (the product's rounding
 * may have put it there), which asks snprintf itself, as do NaN,
 * infinities and large values.
 */
size_t num_format_fixed(char *buf, size_t cap, double v, int digits)
{
    static const double scale[10] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
    static const char *const fmt[10] = { "%.0f", "%.1f", "%.2f", "%.3f", "%.4f",
                                         "%.5f", "%.6f", "%.7f", "%.8f", "%.9f" };
    if (digits == 0)
        return num_format_fixed0(buf, cap, v);
    if (digits < 0 || digits > 9)
        return (size_t)snprintf(buf, cap, "%.*f", digits, v);
    double y = v * scale[digits];
    if (!(fabs(y) < 1e15) || cap < 32)
        return (size_t)snprintf(buf, cap, fmt[digits], v);
    double r = nearbyint(y);
    double d = y - r;
    if (d == 0.5 || d == -0.5)
        return (size_t)snprintf(buf, cap, fmt[digits], v);
    unsigned long long q = (unsigned long long)fabs(r), unit = (unsigned long long)scale[digits];
    size_t n = 0;
    if (signbit(v))
        buf[n++] = '-';              /* "-0.0" for -0.04, as printf */
    n += num_format_u64(buf + n, q / unit);
    buf[n++] = '.';
    unsigned long long frac = q % unit;
    for (int i = digits; i > 0; i--, frac /= 10)
        buf[n + (size_t)i - 1] = (char)('0' + frac % 10);
    n += (size_t)digits;
    buf[n] = '\0';
    return n;
}

size_t num_format_fixed1(char *buf, size_t cap, double v)
{
    return num_format_fixed(buf, cap, v, 1);
}

/*
 * "%.10g" (the Perfetto export's counter values). Values that are exactly
 * the double nearest some thousandth M / 1000 with |M| < 1e9 (watts,
 * percentages, clocks: almost every counter) have at most 9 significant
 * digits, so printf's 10-digit rounding gives M / 1000 itself, trailing
 * zeros dropped, and never an exponent (0.001 <= |V| < 1e6). Everything
 * else asks snprintf.
 */
size_t num_format_g10(char *buf, size_t cap, double v)
{
    if (!(fabs(v) < 1e6) || cap < 24)
        return (size_t)snprintf(buf, cap, "%.10g", v);
    double scaled = v * 1000.0;
    long long m = llrint(scaled);
    if ((double)m / 1000.0 != v || (m == 0 && signbit(v)))
        return (size_t)snprintf(buf, cap, "%.10g", v);
    size_t n = 0;
    if (m < 0)
        buf[n++] = '-';
    unsigned long long a = m < 0 ? 0ull - (unsigned long long)m : (unsigned long long)m;
    n += num_format_u64(buf + n, a / 1000);
    unsigned frac = (unsigned)(a % 1000);
    if (frac) {
        buf[n++] = '.';
        buf[n++] = (char)('0' + frac / 100);
        frac %= 100;
        if (frac) {
            buf[n++] = (char)('0' + frac / 10);
            if (frac % 10)
                buf[n++] = (char)('0' + frac % 10);
        }
    }
    buf[n] = '\0';
    return n;
}

/*
 * "%.0f": printf rounds V's exact binary value to the nearest integer, an
 * exact half to even in the default rounding mode, which is nearbyint's
 * answer; below 1e15 that integer is exact in a double and in an unsigned
 * long long. The sign is V's own ("-0" for -0.4, as printf). NaN,
 * infinities and large values ask snprintf.
 */
size_t num_format_fixed0(char *buf, size_t cap, double v)
{
    if (!(fabs(v) < 1e15) || cap < 24)
        return (size_t)snprintf(buf, cap, "%.0f", v);
    unsigned long long q = (unsigned long long)fabs(nearbyint(v));
    size_t n = 0;
    if (signbit(v))
        buf[n++] = '-';
    return n + num_format_u64(buf + n, q);
}

size_t num_format_append(char *buf, size_t cap, size_t len, const char *fmt, ...)
{
    if (len >= cap)
        return len;
    char text[512];
    size_t n = 0;
    int whole = 1;                  /* every directive is one written here */
    va_list ap;
    va_start(ap, fmt);
    for (const char *f = fmt; *f && whole; f++) {
        if (n + 32 >= sizeof text) {
            whole = 0;
        } else if (*f != '%') {
            text[n++] = *f;
        } else if (f[1] == '%') {
            text[n++] = '%';
            f++;
        } else if (f[1] == 's') {
            const char *s = va_arg(ap, const char *);
            size_t l = strlen(s);
            if (n + l + 32 >= sizeof text)
                whole = 0;
            else
                memcpy(text + n, s, l);
            n += l;
            f++;
        } else if (f[1] == '.' && f[2] == '0' && f[3] == 'f') {
            double v = va_arg(ap, double);
            if (fabs(v) < 1e15)
                n += num_format_fixed0(text + n, sizeof text - n, v);
            else
                whole = 0;          /* NaN, infinities, and long digit strings */
            f += 3;
        } else {
            whole = 0;
        }
    }
    va_end(ap);
    if (!whole) {
        va_start(ap, fmt);
        int w = vsnprintf(buf + len, cap - len, fmt, ap);
        va_end(ap);
        return len + (size_t)w;
    }
    size_t room = cap - len - 1;
    memcpy(buf + len, text, n < room ? n : room);
    buf[len + (n < room ? n : room)] = '\0';
    return len + n;
}
