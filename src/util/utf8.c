/* utf8.c — see utf8.h. */
#include <string.h>

#include "utf8.h"

static int is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

int utf8_char_len(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    if (u[0] < 0x80)
        return 1;
    if (u[0] >= 0xC2 && u[0] <= 0xDF)
        return n >= 2 && is_cont(u[1]) ? 2 : 0;
    if (u[0] >= 0xE0 && u[0] <= 0xEF) {
        if (n < 3 || !is_cont(u[1]) || !is_cont(u[2]))
            return 0;
        if (u[0] == 0xE0 && u[1] < 0xA0)   /* overlong */
            return 0;
        if (u[0] == 0xED && u[1] >= 0xA0)  /* UTF-16 surrogates */
            return 0;
        return 3;
    }
    if (u[0] >= 0xF0 && u[0] <= 0xF4) {
        if (n < 4 || !is_cont(u[1]) || !is_cont(u[2]) || !is_cont(u[3]))
            return 0;
        if (u[0] == 0xF0 && u[1] < 0x90)   /* overlong */
            return 0;
        if (u[0] == 0xF4 && u[1] >= 0x90)  /* above U+10FFFF */
            return 0;
        return 4;
    }
    return 0;
}

int utf8_is_c1(const unsigned char *c, int len)
{
    return len == 2 && c[0] == 0xC2 && c[1] < 0xA0;
}

void utf8_write_escaped(FILE *f, const char *s, void (*ascii)(FILE *f, unsigned char c),
                        int (*forbid)(const unsigned char *c, int len))
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        const unsigned char *c = (const unsigned char *)s + i;
        int len = utf8_char_len(s + i, n - i);
        if (len == 1)
            ascii(f, *c);
        else if (len == 0 || (forbid && forbid(c, len)))
            fputs(UTF8_REPLACEMENT, f);
        else
            fwrite(c, 1, (size_t)len, f);
        i += len > 0 ? (size_t)len : 1;
    }
}
