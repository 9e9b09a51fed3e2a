/*
 * trace_row.h — one row of the trace being built, cell by cell, before the
 * CSV writer quotes it and writes it with a single write(2).
 *
 * Owns: the number formats of every column (README, "trace columns"):
 * power in W with 3 decimals from integer mW (exact, no float rounding),
 * integers for percentages, clocks, temperatures, MiB and mJ, the
 * clock-event reasons as 0x%016llx, host CPU % with 1 decimal. A cell never
 * set stays empty. Rows are plain values, so a row holding the per-tick
 * cells (host CPU, RAPL, process) can be copied for each GPU.
 */
#ifndef FLINCH_TRACE_ROW_H
#define FLINCH_TRACE_ROW_H

#include <stdint.h>

#include "csv_writer.h"
#include "mark_line.h"
#include "rapl.h"
#include "trace_schema.h"

#define TRACE_ROW_MAX_COLS (COL_COUNT + RAPL_MAX_DOMAINS)
#define TRACE_CELL_MAX 32

struct trace_row {
    int ncols;
    char label[MARK_LABEL_MAX + 64];
    char attrs[MARK_ATTRS_MAX + 1];     /* mark_attrs cell, "" when empty */
    unsigned char set[TRACE_ROW_MAX_COLS];
    char text[TRACE_ROW_MAX_COLS][TRACE_CELL_MAX];
};

/* An empty row of ncols columns stamped with its times and type. */
void trace_row_init(struct trace_row *r, int ncols, int64_t mono, int64_t wall, const char *type);

void trace_row_label(struct trace_row *r, const char *label);
/* The mark_attrs cell, in canonical form (mark_attrs_format). */
void trace_row_attrs(struct trace_row *r, const struct mark_attrs *a);
void trace_row_int(struct trace_row *r, int col, long long v);
void trace_row_uint(struct trace_row *r, int col, unsigned long long v);
void trace_row_milli(struct trace_row *r, int col, unsigned long long milli); /* 612000 -> 612.000 */
void trace_row_hex64(struct trace_row *r, int col, unsigned long long v);
void trace_row_pct1(struct trace_row *r, int col, double pct);              /* 1 decimal */
void trace_row_char(struct trace_row *r, int col, char c);
/* Printable ASCII, up to TRACE_CELL_MAX - 1 bytes; others (and , ") become '_'. */
void trace_row_text(struct trace_row *r, int col, const char *s);

/* Formats and appends the row. Returns csv_out_write_cells's result. */
int trace_row_write(const struct trace_row *r, struct csv_out *out);

#endif
