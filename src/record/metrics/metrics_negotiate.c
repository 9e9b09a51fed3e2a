/*
 * metrics_negotiate.c — which exposition format a scrape's Accept header
 * asks for (metrics_negotiate, declared in metrics_http.h): the media
 * ranges and their q values, nothing about sockets.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metrics_http.h"

/* One media range's q (default 1; a malformed q counts as 0). */
static double media_q(const char *params, size_t len)
{
    for (size_t i = 0; i + 2 <= len; i++) {
        if (params[i] != ';')
            continue;
        size_t j = i + 1;
        while (j < len && params[j] == ' ')
            j++;
        if (j + 2 <= len && (params[j] == 'q' || params[j] == 'Q') && params[j + 1] == '=') {
            char num[16];
            size_t n = 0;
            for (j += 2; j < len && n + 1 < sizeof num && params[j] != ';' && params[j] != ' '; j++)
                num[n++] = params[j];
            num[n] = '\0';
            char *end;
            double q = strtod(num, &end);
            return n && !*end && q >= 0 && q <= 1 ? q : 0;
        }
    }
    return 1;
}

enum metrics_format metrics_negotiate(const char *accept, size_t len)
{
    double q_om = -1, q_text = -1, q_any = -1;
    for (size_t i = 0; i < len;) {
        size_t n = 0;
        while (i + n < len && accept[i + n] != ',')
            n++;
        const char *m = accept + i;
        size_t k = 0;
        while (k < n && m[k] == ' ')
            k++;
        m += k;
        size_t mlen = n - k, tlen = 0;
        while (tlen < mlen && m[tlen] != ';' && m[tlen] != ' ')
            tlen++;
        double q = media_q(m + tlen, mlen - tlen);
#define IS(lit) (tlen == sizeof lit - 1 && strncasecmp(m, lit, tlen) == 0)
        if (IS("application/openmetrics-text") && q > q_om)
            q_om = q;
        else if (IS("text/plain") && q > q_text)
            q_text = q;
        else if ((IS("text/*") || IS("*/*")) && q > q_any)
            q_any = q;
#undef IS
        i += n + 1;
    }
    if (q_text < 0)
        q_text = q_any;
    return q_om > 0 && q_om >= q_text ? METRICS_OPENMETRICS : METRICS_TEXT;
}
