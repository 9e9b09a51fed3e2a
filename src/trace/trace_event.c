/* trace_event.c — key=value lookup in identity EVENT labels; see trace_event.h. */
#include <string.h>

#include "trace_event.h"

int trace_event_is(const char *label, const char *kind)
{
    size_t n = strlen(kind);
    return strncmp(label, kind, n) == 0 && (label[n] == ' ' || label[n] == '\0');
}

int trace_event_value(const char *label, const char *key, char *out, size_t len)
{
    size_t klen = strlen(key);
    const char *p = strchr(label, ' ');
    while (p) {
        p++;
        const char *end;
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            const char *v = p + klen + 1;
            if (*v == '"') {
                v++;
                end = strchr(v, '"');
                if (!end)
                    return -1;
            } else {
                end = v + strcspn(v, " ");
            }
            size_t n = (size_t)(end - v);
            if (len == 0)
                return -1;
            if (n >= len)
                n = len - 1;
            memcpy(out, v, n);
            out[n] = 0;
            return 0;
        }
        /* skip this token, a quoted value included */
        const char *eq = strchr(p, '=');
        const char *sp = strchr(p, ' ');
        if (eq && (!sp || eq < sp) && eq[1] == '"') {
            const char *q = strchr(eq + 2, '"');
            if (!q)
                return -1;
            p = strchr(q, ' ');
        } else {
            p = sp;
        }
    }
    return -1;
}
