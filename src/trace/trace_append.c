/* trace_append.c — checks of an existing trace before appending; see trace_append.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_append.h"
#include "trace_schema.h"

/* The recorder's own `begin`: "T,W,MARK,begin," (label quoted or not) with
 * an empty arrival_mono_ns cell. A mark named begin that came through the
 * FIFO always has its arrival set. Only lines the recorder wrote match, so
 * a naive split is enough: its cells hold no commas. */
static int is_recorder_begin(const char *line, size_t len, int arrival_col)
{
    int col = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && line[i] != ',')
            continue;
        const char *cell = line + start;
        size_t n = i - start;
        if (col == 2 && !(n == 4 && memcmp(cell, "MARK", 4) == 0))
            return 0;
        if (col == 3 && !(n == 5 && memcmp(cell, "begin", 5) == 0) &&
            !(n == 7 && memcmp(cell, "\"begin\"", 7) == 0))
            return 0;
        if (col == arrival_col)
            return n == 0;
        col++;
        start = i + 1;
    }
    return 0;
}

static int64_t leading_int(const char *line, size_t len)
{
    int64_t v = 0;
    size_t i = 0;
    for (; i < len && i < 19 && line[i] >= '0' && line[i] <= '9'; i++)
        v = v * 10 + (line[i] - '0');
    return i > 0 && (i == len || line[i] == ',') ? v : -1;
}

/* One pass over the file in 1 MiB blocks; a line is held only while it is
 * incomplete and only its first 4 KiB (the recorder's rows are shorter). */
int trace_scan_file(int fd, off_t size, int arrival_col, struct trace_scan *s)
{
    enum { BLOCK = 1 << 20, LINE = 4096 };
    memset(s, 0, sizeof *s);
    s->nul_at = -1;
    s->last_mono_ns = -1;
    char *buf = malloc(BLOCK);
    char *line = malloc(LINE);
    if (!buf || !line) {
        free(buf);
        free(line);
        errno = ENOMEM;
        return -1;
    }
    size_t line_len = 0;
    long long lines = 0;
    off_t off = 0;
    int rc = 0;
    while (off < size) {
        size_t want = size - off < BLOCK ? (size_t)(size - off) : BLOCK;
        ssize_t n = pread(fd, buf, want, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -1 : 0;
            break;
        }
        if (s->nul_at < 0) {
            const char *z = memchr(buf, '\0', (size_t)n);
            if (z) {
                s->nul_at = off + (z - buf);
                s->nul_line = lines + 1;
                for (const char *p = buf; p < z; p++)
                    s->nul_line += *p == '\n';
            }
        }
        for (size_t i = 0; i < (size_t)n; i++) {
            char c = buf[i];
            if (c != '\n') {
                if (line_len < LINE)
                    line[line_len] = c;
                line_len++;
                continue;
            }
            lines++;
            s->whole_end = off + (off_t)i + 1;
            if (lines > 1) {
                size_t len = line_len < LINE ? line_len : LINE;
                s->recordings += is_recorder_begin(line, len, arrival_col);
                s->last_mono_ns = leading_int(line, len);
            }
            line_len = 0;
        }
        off += n;
    }
    s->rows = lines > 0 ? lines - 1 : 0;
    free(buf);
    free(line);
    return rc;
}

/* Splits a header into its names, in place; returns how many (at most max). */
static int split_names(char *h, char **names, int max)
{
    int n = 0;
    for (char *p = h; n < max;) {
        names[n++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p++ = '\0';
    }
    return n;
}

static int is_rapl_name(const char *name)
{
    return strncmp(name, RAPL_CUM_PREFIX, strlen(RAPL_CUM_PREFIX)) == 0 ||
           strncmp(name, RAPL_CUM_PREFIX_OLD, strlen(RAPL_CUM_PREFIX_OLD)) == 0;
}

const char *trace_header_mismatch(const char *found, const char *want)
{
    enum { MAXN = 128 };
    static char a[8192], b[8192];
    char *fa[MAXN], *fb[MAXN];
    snprintf(a, sizeof a, "%s", found);
    snprintf(b, sizeof b, "%s", want);
    int na = split_names(a, fa, MAXN), nb = split_names(b, fb, MAXN);
    int fixed_a = 0, fixed_b = 0, known = 1, old_rapl = 0;
    while (fixed_a < na && !is_rapl_name(fa[fixed_a]))
        fixed_a++;
    while (fixed_b < nb && !is_rapl_name(fb[fixed_b]))
        fixed_b++;
    for (int i = 0; i < na; i++) {
        if (strncmp(fa[i], RAPL_CUM_PREFIX_OLD, strlen(RAPL_CUM_PREFIX_OLD)) == 0)
            old_rapl = 1;
        else if (!is_rapl_name(fa[i]) && trace_column_by_name(fa[i]) < 0)
            known = 0;
    }
    int same_original = na >= TRACE_ORIGINAL_COLUMNS;
    for (int i = 0; same_original && i < TRACE_ORIGINAL_COLUMNS; i++)
        same_original = strcmp(fa[i], trace_column_names[i]) == 0;
    if (same_original && na == TRACE_ORIGINAL_COLUMNS)
        return "written by the original nvml_trace.py (its ten columns only)";
    if (same_original && known && (fixed_a < fixed_b || old_rapl))
        return "written by an older flinch, with fewer or older-named columns";
    if (same_original && known && fixed_a == fixed_b)
        return "recorded with other RAPL domains";
    return "recorded with other columns";
}

const char *trace_fmt_count(long long n, char *buf, size_t cap)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%lld", n < 0 ? 0 : n);
    size_t o = 0;
    for (int i = 0; i < len && o + 1 < cap; i++) {
        if (i > 0 && (len - i) % 3 == 0 && o + 2 < cap)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}
