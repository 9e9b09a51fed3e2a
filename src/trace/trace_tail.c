/* trace_tail.c — see trace_tail.h. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_number.h"
#include "trace_tail.h"

/* The last bytes looked at: a few dozen rows of any recorder's width. */
#define TAIL_BYTES 16384

/* The t_mono_ns cell (field COL) of the line [s, e), when no quote comes
 * before its end (a quoted label later in the row is fine). */
static int line_t_mono(const char *s, const char *e, int col, int64_t *out)
{
    const char *line = s;
    for (int i = 0; i < col; i++) {
        const char *comma = memchr(s, ',', (size_t)(e - s));
        if (!comma)
            return -1;
        s = comma + 1;
    }
    const char *comma = memchr(s, ',', (size_t)(e - s));
    const char *end = comma ? comma : e;
    if (end > s && end[-1] == '\r')
        end--;
    if (memchr(line, '"', (size_t)(end - line)))
        return -1;
    return trace_parse_int64(s, (size_t)(end - s), out);
}

int trace_tail_max_t_mono(const struct trace_reader *tr, int64_t *out)
{
    static char buf[TAIL_BYTES];
    struct stat st;
    int col = tr->col[COL_T_MONO_NS];
    if (col < 0 || fstat(tr->csv.fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return -1;
    off_t at = st.st_size > TAIL_BYTES ? st.st_size - TAIL_BYTES : 0;
    ssize_t n = pread(tr->csv.fd, buf, (size_t)(st.st_size - at), at);
    if (n <= 0)
        return -1;
    /* complete lines only: after the first newline (unless the read began
     * at the file's start, where the header is no row) and up to the last */
    const char *p = memchr(buf, '\n', (size_t)n), *end = buf + n;
    while (end > buf && end[-1] != '\n')
        end--;
    int found = 0;
    while (p && p + 1 < end) {
        const char *s = p + 1, *e = memchr(s, '\n', (size_t)(end - s));
        int64_t t;
        if (e && line_t_mono(s, e, col, &t) == 0 && (!found || t > *out)) {
            *out = t;
            found = 1;
        }
        p = e;
    }
    return found ? 0 : -1;
}
