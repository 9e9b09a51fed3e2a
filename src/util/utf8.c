/* utf8.c — see utf8.h. */
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
