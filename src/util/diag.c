/* diag.c — see diag.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "utf8.h"

static const char *prog_name = "flinch";

void diag_set_prog(const char *prog) { prog_name = prog; }
const char *diag_prog(void) { return prog_name; }

size_t diag_escape(const char *s, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(s), o = 0;
    if (cap == 0)
        return 0;
    for (size_t i = 0; i < n && o + 5 < cap;) {
        unsigned char c = (unsigned char)s[i];
        int len = utf8_char_len(s + i, n - i);
        /* C1 controls (U+0080..U+009F) act like ESC on some terminals */
        int c1 = utf8_is_c1((const unsigned char *)s + i, len);
        if (len == 0 || c1 || (len == 1 && (c < 0x20 || c == 0x7F || c == '\\'))) {
            int bytes = c1 ? 2 : 1;
            for (int k = 0; k < bytes && o + 5 < cap; k++) {
                unsigned char b = (unsigned char)s[i + (size_t)k];
                out[o++] = '\\';
                out[o++] = 'x';
                out[o++] = hex[b >> 4];
                out[o++] = hex[b & 15];
            }
            i += (size_t)bytes;
            continue;
        }
        if (o + (size_t)len >= cap)
            break;
        memcpy(out + o, s + i, (size_t)len);
        o += (size_t)len;
        i += (size_t)len;
    }
    out[o] = '\0';
    return o;
}

static void emit(const char *kind, const char *fmt, va_list ap)
{
    char line[1024], safe[4 * sizeof line + 8];
    vsnprintf(line, sizeof line, fmt, ap);
    diag_escape(line, safe, sizeof safe);
    /* One write per message so lines from threads never interleave. */
    fprintf(stderr, "%s: %s%s\n", prog_name, kind, safe);
}

void diag_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("", fmt, ap);
    va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("warning: ", fmt, ap);
    va_end(ap);
}
