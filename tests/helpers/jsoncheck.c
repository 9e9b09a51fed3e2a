/*
 * jsoncheck.c — is a file one valid JSON value (RFC 8259)? For the export
 * tests on machines without python3. Prints "valid" or "FILE:OFFSET: why"
 * and exits 0 or 1. Strings must be valid UTF-8 with no raw control
 * characters; numbers follow JSON's grammar (no NaN, no leading zeros).
 *
 *   jsoncheck FILE.json
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char *p, *end;
static const char *why;

static void ws(void) { while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++; }
static int fail(const char *m) { why = m; return 0; }
static int value(int depth);

static int utf8_len(void)
{
    unsigned c = p[0];
    int n = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3 : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
    if (n == 0 || end - p < n) return 0;
    for (int i = 1; i < n; i++) if ((p[i] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;
    if (c == 0xED && p[1] >= 0xA0) return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;
    if (c == 0xF4 && p[1] >= 0x90) return 0;
    return n;
}

static int string(void)
{
    if (p >= end || *p != '"') return fail("expected a string");
    for (p++; p < end && *p != '"';) {
        if (*p < 0x20) return fail("raw control character in a string");
        if (*p == '\\') {
            p++;
            if (p >= end) return fail("string ends in a backslash");
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++) if (p + i >= end || !strchr("0123456789abcdefABCDEF", p[i]) || !p[i]) return fail("bad \\u escape");
                p += 5;
            } else if (strchr("\"\\/bfnrt", *p) && *p) p++;
            else return fail("bad escape");
            continue;
        }
        int n = utf8_len();
        if (!n) return fail("invalid UTF-8 in a string");
        p += n;
    }
    if (p >= end) return fail("unterminated string");
    p++;
    return 1;
}

static int digits(void) { const unsigned char *s = p; while (p < end && *p >= '0' && *p <= '9') p++; return p > s; }

static int number(void)
{
    if (p < end && *p == '-') p++;
    if (p < end && *p == '0') p++;
    else if (!digits()) return fail("bad number");
    if (p < end && *p == '.') { p++; if (!digits()) return fail("bad fraction"); }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (!digits()) return fail("bad exponent");
    }
    return 1;
}

static int word(const char *w) { size_t n = strlen(w); if ((size_t)(end - p) < n || memcmp(p, w, n)) return fail("bad literal"); p += n; return 1; }

static int container(int depth, char close)
{
    p++;
    ws();
    if (p < end && *p == close) { p++; return 1; }
    for (;;) {
        ws();
        if (close == '}') {
            if (!string()) return 0;
            ws();
            if (p >= end || *p != ':') return fail("expected ':'");
            p++;
        }
        if (!value(depth + 1)) return 0;
        ws();
        if (p < end && *p == ',') { p++; continue; }
        if (p < end && *p == close) { p++; return 1; }
        return fail("expected ',' or a closing bracket");
    }
}

static int value(int depth)
{
    if (depth > 200) return fail("nested too deep");
    ws();
    if (p >= end) return fail("expected a value");
    switch (*p) {
    case '{': return container(depth, '}');
    case '[': return container(depth, ']');
    case '"': return string();
    case 't': return word("true");
    case 'f': return word("false");
    case 'n': return word("null");
    default: return number();
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: jsoncheck FILE.json\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    size_t cap = 1 << 20, n = 0, r;
    unsigned char *buf = malloc(cap);
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0)
        if ((n += r) == cap) buf = realloc(buf, cap *= 2);
    fclose(f);
    if (!buf) { fprintf(stderr, "jsoncheck: out of memory\n"); return 2; }
    p = buf;
    end = buf + n;
    int ok = value(0);
    if (ok) { ws(); if (p != end) ok = fail("text after the value"); }
    if (!ok) { printf("%s:%ld: %s\n", argv[1], (long)(p - buf), why); return 1; }
    puts("valid");
    return 0;
}
