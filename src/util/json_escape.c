/* json_escape.c — see json_escape.h. */
#include <math.h>
#include <string.h>

#include "json_escape.h"
#include "utf8.h"

void json_write_string(FILE *f, const char *s)
{
    size_t n = strlen(s);
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        int len = utf8_char_len(s + i, n - i);
        if (len == 0) {
            fputs("\xEF\xBF\xBD", f);  /* U+FFFD for a byte that is not UTF-8 */
            i++;
            continue;
        }
        if (len > 1) {
            fwrite(s + i, 1, (size_t)len, f);
            i += (size_t)len;
            continue;
        }
        switch (c) {
        case '"':  fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if (c < 0x20 || c == 0x7F)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
        }
        i++;
    }
    fputc('"', f);
}

int json_write_number(FILE *f, const char *fmt, double v)
{
    if (isfinite(v)) {
        fprintf(f, fmt, v);
        return 0;
    }
    fputs("null", f);
    return isinf(v) ? -1 : 0;
}
