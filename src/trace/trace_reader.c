/*
 * trace_reader.c — see trace_reader.h.
 *
 * The numbers in the cells are read by trace_number.c.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "trace_limits.h"
#include "trace_number.h"
#include "trace_reader.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define TRACE_NS_MAX_TEXT "4611686018427387903"
#define TRACE_MAX_GPU_INDEX_TEXT STR(TRACE_MAX_GPU_INDEX)

static int fail(struct trace_reader *tr, long line, const char *fmt, const char *a, const char *b)
{
    char msg[TRACE_ERROR_MAX - 64];
    snprintf(msg, sizeof msg, fmt, a, b);
    if (line > 0)
        snprintf(tr->error, sizeof tr->error, "%s:%ld: %s", tr->path, line, msg);
    else
        snprintf(tr->error, sizeof tr->error, "%s: %s", tr->path, msg);
    return -1;
}

/* A cell for an error message: at most 40 bytes. */
static const char *quote_cell(const char *s, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.40s%s", s, strlen(s) > 40 ? "..." : "");
    return buf;
}

/* csv_next() failed: the reason, with the line where it applies. */
static int csv_failure(struct trace_reader *tr)
{
    const struct csv_reader *csv = &tr->csv;
    char a[160];
    if (csv->err != CSV_ERR_ROW_TOO_LONG)
        return fail(tr, 0, "read error: %s%s", strerror(errno), "");
    if (csv->in_quote_at_cut && csv->quoted_newlines > 0) {
        snprintf(a, sizeof a, "%ld bytes (%ld lines)", (long)CSV_RECORD_MAX, csv->quoted_newlines + 1);
        return fail(tr, csv->line, "a quoted cell opened on this line is not closed within %s: "
                    "a stray '\"'?%s", a, "");
    }
    snprintf(a, sizeof a, "%ld", (long)CSV_RECORD_MAX);
    return fail(tr, csv->line, "row longer than %s bytes without a newline: not a trace row "
                "(a corrupt file, or NULs from a crash?)%s", a, "");
}

int trace_reader_has(const struct trace_reader *tr, enum trace_column c)
{
    return tr->col[c] >= 0;
}

static int open_header(struct trace_reader *tr, const char *path);

/* On failure everything is already released (closing again is harmless),
 * so a caller that returns at once leaks nothing. */
int trace_reader_open(struct trace_reader *tr, const char *path)
{
    if (open_header(tr, path) == 0)
        return 0;
    trace_reader_close(tr);
    return -1;
}

static int open_header(struct trace_reader *tr, const char *path)
{
    memset(tr, 0, sizeof *tr);
    tr->path = path;
    for (int c = 0; c < COL_COUNT; c++)
        tr->col[c] = -1;
    if (csv_open(&tr->csv, path) != 0)
        return fail(tr, 0, "cannot open: %s%s", strerror(errno), "");
    int rc = csv_next(&tr->csv);
    if (rc < 0)
        return csv_failure(tr);
    if (rc == 0)
        return fail(tr, 0, "empty file, not a trace (no header line)%s%s", "", "");
    /* A UTF-8 byte-order mark (a spreadsheet's "CSV UTF-8") is not part
     * of the first column's name. */
    if (tr->csv.field_len[0] >= 3 && memcmp(tr->csv.field[0], "\xEF\xBB\xBF", 3) == 0) {
        tr->csv.field[0] += 3;
        tr->csv.field_len[0] -= 3;
    }
    tr->ncols = tr->csv.nfields;
    for (int i = 0; i < tr->csv.nfields; i++) {
        const char *name = tr->csv.field[i];
        int c = trace_column_by_name(name);
        if (c >= 0) {
            if (tr->col[c] >= 0)
                return fail(tr, 1, "column %s appears twice in the header%s", name, "");
            tr->col[c] = i;
        } else if (strncmp(name, RAPL_CUM_PREFIX, strlen(RAPL_CUM_PREFIX)) == 0 ||
                   strncmp(name, RAPL_CUM_PREFIX_OLD, strlen(RAPL_CUM_PREFIX_OLD)) == 0) {
            if (tr->n_rapl == TRACE_RAPL_MAX)
                return fail(tr, 1, "more than 16 %s columns%s", RAPL_CUM_PREFIX, "");
            const char *prefix = name[strlen(RAPL_CUM_PREFIX) - 1] == ':' ? RAPL_CUM_PREFIX_OLD
                                                                           : RAPL_CUM_PREFIX;
            tr->rapl_prefix[tr->n_rapl] = prefix;
            tr->rapl_domain[tr->n_rapl] = strdup(name + strlen(prefix));
            tr->rapl_col[tr->n_rapl++] = i;
        }
    }
    static const enum trace_column required[] = { COL_T_MONO_NS, COL_ROW_TYPE, COL_LABEL };
    for (size_t k = 0; k < sizeof required / sizeof required[0]; k++) {
        if (tr->col[required[k]] < 0) {
            char head[80];
            return fail(tr, 1, "not a flinch trace: no column %s (header starts '%s')",
                        trace_column_names[required[k]],
                        quote_cell(tr->csv.field[0], head, sizeof head));
        }
    }
    /* t_mono_ns and t_wall_ns are read as integers (trace_reader_next),
     * their doubles taken from those */
    for (int c = 0; c < COL_COUNT; c++)
        if (tr->col[c] >= 0 && c != COL_ROW_TYPE && c != COL_LABEL && c != COL_PROC_STATE &&
            c != COL_MARK_ATTRS && c != COL_PROC_TOP_THREAD && c != COL_T_MONO_NS &&
            c != COL_T_WALL_NS)
            tr->num_col[tr->n_num++] = (unsigned char)c;
    trace_reader_want(tr, TRACE_WANT_ALL);
    return 0;
}

/* The integer digits a cell of column C may have and still lie in C's
 * range whatever follows them: D with 10^D <= hi (the range's low end is
 * 0 or below, and a cell without a sign is >= 0); 16 (the most a plain
 * cell has) without a range; -2 (never) for a range above 0. */
static signed char plain_digits(enum trace_column c)
{
    struct trace_column_range r = trace_column_ranges[c];
    if (!(r.hi > r.lo))
        return 16;
    if (r.lo > 0)
        return -2;
    signed char d = 0;
    for (double p = 10; d < 16 && p <= r.hi; p *= 10)
        d++;
    return d;
}

void trace_reader_want(struct trace_reader *tr, uint64_t columns)
{
    for (int k = 0; k < tr->n_num; k++) {
        int c = tr->num_col[k];
        /* gpu_index: the reader's own (row->gpu, the time order) */
        int wanted = (columns & TRACE_WANT(c)) || c == COL_GPU_INDEX;
        tr->num_digits[k] = wanted ? -1 : plain_digits((enum trace_column)c);
    }
    tr->rapl_wanted = (columns & TRACE_WANT_RAPL) != 0;
}

void trace_reader_close(struct trace_reader *tr)
{
    csv_close(&tr->csv);
    for (int i = 0; i < tr->n_rapl; i++)
        free(tr->rapl_domain[i]);
    tr->n_rapl = 0;
    free(tr->last_sample_ns);
    tr->last_sample_ns = NULL;
}

/* Samples of each GPU must go forward in time; -1 (no gpu_index) is slot 0. */
static int check_order(struct trace_reader *tr, const struct trace_row *row)
{
    int slot = row->gpu + 1;
    if (slot >= tr->last_sample_cap) {
        int ncap = slot + 8;
        int64_t *n = realloc(tr->last_sample_ns, sizeof *n * 2 * (size_t)ncap);
        if (!n)
            return fail(tr, row->line, "out of memory%s%s", "", "");
        for (int i = tr->last_sample_cap; i < ncap; i++)
            n[2 * i] = INT64_MIN;
        tr->last_sample_ns = n;
        tr->last_sample_cap = ncap;
    }
    int64_t *last = &tr->last_sample_ns[2 * slot];
    if (row->t_mono_ns < last[0]) {
        char a[96];
        snprintf(a, sizeof a, "%lld < %lld of the previous sample of GPU %d at line %lld",
                 (long long)row->t_mono_ns, (long long)last[0], row->gpu, (long long)last[1]);
        return fail(tr, row->line, "column t_mono_ns: sample out of time order (%s)%s", a, "");
    }
    last[0] = row->t_mono_ns;
    last[1] = row->line;
    return 0;
}

/* A `begin` MARK the recorder wrote itself: arrival_mono_ns empty (or a
 * trace from before that column, where only the recorder wrote `begin`). */
static int recorder_begin(const struct trace_reader *tr, const struct trace_row *row)
{
    int a = tr->col[COL_ARRIVAL_MONO_NS];
    return row->type == TRACE_MARK && strcmp(row->label, "begin") == 0 &&
           (a < 0 || tr->csv.field_len[a] == 0);
}

/* Numbers the recordings and keeps one increasing timeline across them
 * (trace_row.recording). */
static int next_recording(struct trace_reader *tr, struct trace_row *row)
{
    row->starts_recording = 0;
    if (tr->recording == 0)
        tr->recording = 1;
    if (tr->rows > 0 && recorder_begin(tr, row)) {
        tr->recording++;
        row->starts_recording = 1;
        tr->shift_ns = 0;
        if (row->t_mono_ns <= tr->max_t_ns) {
            /* both within 0..TRACE_NS_MAX: no overflow */
            tr->shift_ns = tr->max_t_ns - row->t_mono_ns + 1000000000;
            static const char *warned_path;
            static long warned_line;
            if (warned_path != tr->path || warned_line != row->line) {
                warned_path = tr->path;
                warned_line = row->line;
                diag_warn("%s:%ld: recording %d starts %.3f s before the latest time of the one "
                          "before it (the clock restarted: a reboot?); its times are read %.3f s "
                          "later, to follow it", tr->path, row->line, tr->recording,
                          (double)(tr->max_t_ns - row->t_mono_ns) / 1e9, (double)tr->shift_ns / 1e9);
            }
        }
    }
    row->recording = tr->recording;
    if (row->starts_recording)     /* in order from here on: after everything before */
        for (int i = 0; i < tr->last_sample_cap; i++)
            tr->last_sample_ns[2 * i] = tr->max_t_ns;
    if (tr->shift_ns) {
        if (row->t_mono_ns > TRACE_NS_MAX - tr->shift_ns)
            return fail(tr, row->line, "column t_mono_ns: the recording moved after the one before "
                        "it runs past %s ns%s", TRACE_NS_MAX_TEXT, "");
        row->t_mono_ns += tr->shift_ns;
        row->v[COL_T_MONO_NS] = (double)row->t_mono_ns;
        if (!isnan(row->v[COL_ARRIVAL_MONO_NS]))
            row->v[COL_ARRIVAL_MONO_NS] += (double)tr->shift_ns;
    }
    return 0;
}
/* One numeric cell: a number, finite, within the column's range. The
 * slow path of parse_number: every failure, and the cells
 * trace_number_fast leaves to trace_parse_double. */
static int parse_number_careful(struct trace_reader *tr, long line, const char *column,
                                const char *s, size_t n, struct trace_column_range range,
                                double *out)
{
    char cellbuf[64], msg[160];
    int rc = trace_parse_double(s, n, out);
    if (rc == -1)
        return fail(tr, line, "column %s: not a number: '%s'", column,
                    quote_cell(s, cellbuf, sizeof cellbuf));
    if (rc == -2)
        return fail(tr, line, "column %s: not a finite number: '%s'", column,
                    quote_cell(s, cellbuf, sizeof cellbuf));
    if (range.hi > range.lo && (*out < range.lo || *out > range.hi)) {
        snprintf(msg, sizeof msg, "%s' is out of range (%.17g .. %.17g)",
                 quote_cell(s, cellbuf, sizeof cellbuf), range.lo, range.hi);
        return fail(tr, line, "column %s: '%s", column, msg);
    }
    return 0;
}

/* The usual cell in range: 1 with *out set; 0 when parse_number_careful
 * must look at it (same value for the cells taken here: trace_number.h). */
static inline int number_in_range(const char *s, size_t n, struct trace_column_range range,
                                  double *out)
{
    return trace_number_fast(s, n, out) == 0 &&
           (!(range.hi > range.lo) || (*out >= range.lo && *out <= range.hi));
}

/* Every row reads all its numeric cells (an invalid cell is an error
 * wherever it is), so this loop is most of the reader's time: it walks
 * the numeric columns the header has (tr->num_col, in enum order, so the
 * first bad cell reported is the same) and reads the usual cells inline.
 * A cell of a column outside the mask (trace_reader_want) is read the
 * same way into a value that is dropped, unless trace_number_plain vouches for
 * it: the same cells fail, with the same messages. */
static int parse_cells(struct trace_reader *tr, struct trace_row *row)
{
    struct csv_reader *csv = &tr->csv;
    char cellbuf[64];
    for (int c = 0; c < COL_COUNT; c++)
        row->v[c] = NAN;
    for (int k = 0; k < tr->n_num; k++) {
        int c = tr->num_col[k];
        int i = tr->col[c];
        const char *s = csv->field[i];
        size_t n = csv->field_len[i];
        if (n == 0)
            continue;
        int wanted = tr->num_digits[k] == -1;
        double dropped, *out = wanted ? &row->v[c] : &dropped;
        if (c == COL_GPU_CLOCK_EVENT_REASONS) {
            unsigned long long bits;
            if (!wanted && trace_reasons_plain(s, n))
                continue;
            if (trace_parse_reasons(s, n, &bits) != 0)
                return fail(tr, row->line, "column gpu_clock_event_reasons: not a bitmask: '%s'%s",
                            quote_cell(s, cellbuf, sizeof cellbuf), "");
            if (wanted) {
                row->clock_event_reasons = bits;
                row->v[c] = (double)bits;
            }
        } else if (!(!wanted && trace_number_plain(s, n, tr->num_digits[k])) &&
                   !number_in_range(s, n, trace_column_ranges[c], out) &&
                   parse_number_careful(tr, row->line, trace_column_names[c], s, n,
                                        trace_column_ranges[c], out) != 0) {
            return -1;
        }
    }
    static const struct trace_column_range rapl_range = { 0, TRACE_COUNTER_MAX };
    for (int k = 0; k < tr->n_rapl; k++) {
        int i = tr->rapl_col[k];
        double dropped, *out = tr->rapl_wanted ? &row->rapl_cum_uj[k] : &dropped;
        row->rapl_cum_uj[k] = NAN;
        if (csv->field_len[i] &&
            !(!tr->rapl_wanted && trace_number_plain(csv->field[i], csv->field_len[i], 15)) &&
            !number_in_range(csv->field[i], csv->field_len[i], rapl_range, out)) {
            char name[80];
            snprintf(name, sizeof name, "%s%s", tr->rapl_prefix[k], tr->rapl_domain[k]);
            if (parse_number_careful(tr, row->line, name, csv->field[i], csv->field_len[i],
                                     rapl_range, out) != 0)
                return -1;
        }
    }
    return 0;
}

int trace_reader_next(struct trace_reader *tr, struct trace_row *row)
{
    struct csv_reader *csv = &tr->csv;
    char cellbuf[64];
    for (;;) {
        int rc = csv_next(csv);
        if (rc < 0)
            return csv_failure(tr);
        if (rc == 0)
            return 0;
        if (csv->has_nul)
            return fail(tr, csv->line, "NUL bytes in the row: not trace text (a file cut short by a "
                        "crash or power loss?)%s%s", "", "");
        if (csv->nfields == 1 && csv->field_len[0] == 0)
            continue;                       /* blank line */
        if (csv->open_quote && csv->quoted_newlines > 0) {
            /* Not a cut-off last line: a stray quote swallowed the rows after it. */
            return fail(tr, csv->line, "a quoted cell opened on this line is never closed: every "
                        "line after it, to the end of the file, would be part of that cell%s%s", "", "");
        }
        if (csv->no_newline && (csv->nfields < tr->ncols || csv->open_quote)) {
            tr->truncated_last_line = 1;
            diag_warn("%s:%ld: truncated last line ignored (%d of %d cells, no newline)",
                      tr->path, csv->line, csv->nfields, tr->ncols);
            return 0;
        }
        break;
    }
    row->line = csv->line;
    if (csv->nfields != tr->ncols) {
        char a[32], b[96];
        snprintf(a, sizeof a, "%d", csv->nfields);
        if (csv->quoted_newlines > 0)
            snprintf(b, sizeof b, "%d (the row runs over %ld lines through a quoted cell: a stray "
                     "'\"'?)", tr->ncols, csv->quoted_newlines + 1);
        else
            snprintf(b, sizeof b, "%d", tr->ncols);
        return fail(tr, row->line, "%s cells where the header has %s", a, b);
    }
    const char *type = csv->field[tr->col[COL_ROW_TYPE]];
    if (strcmp(type, ROW_SAMPLE) == 0)
        row->type = TRACE_SAMPLE;
    else if (strcmp(type, ROW_MARK) == 0)
        row->type = TRACE_MARK;
    else if (strcmp(type, ROW_EVENT) == 0)
        row->type = TRACE_EVENT;
    else
        return fail(tr, row->line, "column row_type: unknown row type '%s' (not SAMPLE, MARK or EVENT)%s",
                    quote_cell(type, cellbuf, sizeof cellbuf), "");
    row->label = csv->field[tr->col[COL_LABEL]];
    int i = tr->col[COL_T_MONO_NS];
    if (trace_parse_int64(csv->field[i], csv->field_len[i], &row->t_mono_ns) != 0)
        return fail(tr, row->line, "column t_mono_ns: not an integer: '%s'%s",
                    quote_cell(csv->field[i], cellbuf, sizeof cellbuf), "");
    if (row->t_mono_ns < 0 || row->t_mono_ns > TRACE_NS_MAX)
        return fail(tr, row->line, "column t_mono_ns: '%s' is out of range (0 .. %s ns)",
                    quote_cell(csv->field[i], cellbuf, sizeof cellbuf), TRACE_NS_MAX_TEXT);
    row->has_wall = 0;
    row->t_wall_ns = 0;
    i = tr->col[COL_T_WALL_NS];
    if (i >= 0 && csv->field_len[i]) {
        if (trace_parse_int64(csv->field[i], csv->field_len[i], &row->t_wall_ns) != 0)
            return fail(tr, row->line, "column t_wall_ns: not an integer: '%s'%s",
                        quote_cell(csv->field[i], cellbuf, sizeof cellbuf), "");
        if (row->t_wall_ns < 0 || row->t_wall_ns > TRACE_NS_MAX)
            return fail(tr, row->line, "column t_wall_ns: '%s' is out of range (0 .. %s ns)",
                        quote_cell(csv->field[i], cellbuf, sizeof cellbuf), TRACE_NS_MAX_TEXT);
        row->has_wall = 1;
    }
    row->clock_event_reasons = 0;
    if (parse_cells(tr, row) != 0)
        return -1;
    /* the times' doubles: what reading their text as a double gave (the
     * same integer, rounded the same way; "-0", the one negative text
     * in range, is -0.0) */
    i = tr->col[COL_T_MONO_NS];
    row->v[COL_T_MONO_NS] = csv->field[i][0] == '-' ? -(double)row->t_mono_ns : (double)row->t_mono_ns;
    i = tr->col[COL_T_WALL_NS];
    if (row->has_wall)
        row->v[COL_T_WALL_NS] = csv->field[i][0] == '-' ? -(double)row->t_wall_ns
                                                        : (double)row->t_wall_ns;
    row->gpu = 0;
    if (tr->col[COL_GPU_INDEX] >= 0) {
        double g = row->v[COL_GPU_INDEX];
        if (isnan(g))
            row->gpu = -1;
        else if (g < 0 || g > TRACE_MAX_GPU_INDEX || g != floor(g))
            return fail(tr, row->line, "column gpu_index: not a GPU index (0 .. %s): '%s'",
                        TRACE_MAX_GPU_INDEX_TEXT,
                        quote_cell(csv->field[tr->col[COL_GPU_INDEX]], cellbuf, sizeof cellbuf));
        else
            row->gpu = (int)g;
    }
    i = tr->col[COL_PROC_TOP_THREAD];
    row->proc_top_thread = i >= 0 ? csv->field[i] : "";
    row->proc_state = 0;
    i = tr->col[COL_PROC_STATE];
    if (i >= 0 && csv->field_len[i])
        row->proc_state = csv->field[i][0];
    row->has_attrs = 0;
    memset(&row->attrs, 0, sizeof row->attrs);
    i = tr->col[COL_MARK_ATTRS];
    if (i >= 0 && csv->field_len[i] && row->type == TRACE_MARK) {
        if (mark_attrs_parse(csv->field[i], csv->field_len[i], &row->attrs) != 0 ||
            row->attrs.has_dropped)
            return fail(tr, row->line, "column mark_attrs: not start=ID, end=ID, tid=N, domain=NAME, category=NAME or payload=NUMBER: '%s'%s",
                        quote_cell(csv->field[i], cellbuf, sizeof cellbuf), "");
        row->has_attrs = 1;
    }
    if (next_recording(tr, row) != 0)
        return -1;
    if (row->type == TRACE_SAMPLE && check_order(tr, row) != 0)
        return -1;
    if (row->t_mono_ns > tr->max_t_ns || tr->rows == 0)
        tr->max_t_ns = row->t_mono_ns;
    tr->rows++;
    return 1;
}
