/* json_escape.c — see json_escape.h. */
#include <math.h>

#include "json_escape.h"
#include "utf8.h"

/* One ASCII character of a JSON string (RFC 8259): the short escapes where
 * JSON has one, \u00XX for the other controls. */
static void json_ascii(FILE *f, unsigned char c)
{
    static const char *const named[128] = {
        ['"'] = "\\\"", ['\\'] = "\\\\", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
        ['\b'] = "\\b", ['\f'] = "\\f",
    };
    if (named[c])
        fputs(named[c], f);
    else if (c < 0x20 || c == 0x7F)
        fprintf(f, "\\u%04x", c);
    else
        fputc(c, f);
}

void json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    utf8_write_escaped(f, s, json_ascii, NULL);
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
