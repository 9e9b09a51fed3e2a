/* trace_row.c — cell formats of a trace row; see trace_row.h. The numbers
 * go through num_format.h (snprintf's text without its cost per cell). */
#include <stdio.h>
#include <string.h>

#include "num_format.h"
#include "trace_row.h"

_Static_assert(TRACE_CELL_MAX >= 26, "a cell holds num_format_milli's longest text");

void trace_row_init(struct trace_row *r, int ncols, int64_t mono, int64_t wall, const char *type)
{
    r->ncols = ncols;
    r->label[0] = '\0';
    r->attrs[0] = '\0';
    memset(r->set, 0, sizeof r->set);
    trace_row_int(r, COL_T_MONO_NS, mono);
    trace_row_int(r, COL_T_WALL_NS, wall);
    size_t n = strnlen(type, TRACE_CELL_MAX - 1);    /* "SAMPLE", "MARK", "EVENT" */
    memcpy(r->text[COL_ROW_TYPE], type, n);
    r->text[COL_ROW_TYPE][n] = '\0';
    r->set[COL_ROW_TYPE] = 1;
}

void trace_row_label(struct trace_row *r, const char *label)
{
    snprintf(r->label, sizeof r->label, "%s", label);
}

void trace_row_attrs(struct trace_row *r, const struct mark_attrs *a)
{
    mark_attrs_format(a, r->attrs, sizeof r->attrs);
}

void trace_row_int(struct trace_row *r, int col, long long v)
{
    num_format_i64(r->text[col], v);
    r->set[col] = 1;
}

void trace_row_uint(struct trace_row *r, int col, unsigned long long v)
{
    num_format_u64(r->text[col], v);
    r->set[col] = 1;
}

void trace_row_milli(struct trace_row *r, int col, unsigned long long milli)
{
    num_format_milli(r->text[col], milli);
    r->set[col] = 1;
}

void trace_row_hex64(struct trace_row *r, int col, unsigned long long v)
{
    num_format_hex64(r->text[col], v);
    r->set[col] = 1;
}

void trace_row_pct1(struct trace_row *r, int col, double pct)
{
    num_format_fixed1(r->text[col], TRACE_CELL_MAX, pct);
    r->set[col] = 1;
}

void trace_row_text(struct trace_row *r, int col, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < TRACE_CELL_MAX; i++) {
        unsigned char ch = (unsigned char)s[i];
        r->text[col][i] = ch < 0x20 || ch >= 0x7f || ch == ',' || ch == '"' ? '_' : (char)ch;
    }
    r->text[col][i] = '\0';
    r->set[col] = 1;
}

void trace_row_char(struct trace_row *r, int col, char c)
{
    r->text[col][0] = c;
    r->text[col][1] = '\0';
    r->set[col] = 1;
}

int trace_row_write(const struct trace_row *r, struct csv_out *out)
{
    const char *cells[TRACE_ROW_MAX_COLS];
    for (int i = 0; i < r->ncols; i++)
        cells[i] = r->set[i] ? r->text[i] : NULL;
    cells[COL_LABEL] = r->label[0] ? r->label : NULL;
    if (r->ncols > COL_MARK_ATTRS)
        cells[COL_MARK_ATTRS] = r->attrs[0] ? r->attrs : NULL;
    /* Every label is quoted, needed or not: tools that guess the CSV
     * dialect from the first rows (DuckDB samples 20,480) then see quotes
     * from the `begin` row on, and a label with a comma much later cannot
     * break the load. RFC 4180 readers read "begin" as begin. */
    return csv_out_write_cells_quoting(out, cells, r->ncols, COL_LABEL);
}
