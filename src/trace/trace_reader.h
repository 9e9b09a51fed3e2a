/*
 * trace_reader.h — reads a flinch (or original nvml_trace.py) trace CSV one
 * typed row at a time.
 *
 * Owns: validating the header (columns looked up by name, see
 * trace_schema.h; the original ten-column traces read too), turning each
 * record into a struct trace_row with parsed numbers, and the bad-input
 * messages, which always name file, line and column:
 *   trace.csv:12: column gpu_power_W: not a number: 'abc'
 * Every number must be finite and within its column's range
 * (trace_column_ranges); a row longer than CSV_RECORD_MAX, a NUL byte, or a
 * quoted cell that swallows the lines after it is an error, too.
 * A truncated last line (no newline, fewer cells than the header: a
 * recorder that was killed) is skipped with a warning (printed here through
 * diag_warn, "FILE:LINE: truncated last line ignored ..."), not an error.
 *
 * Typical use:
 *   struct trace_reader tr;
 *   if (trace_reader_open(&tr, path) != 0) { diag_error("%s", tr.error); ... }
 *   struct trace_row row;
 *   int rc;
 *   while ((rc = trace_reader_next(&tr, &row)) == 1) { ... }
 *   if (rc < 0) diag_error("%s", tr.error);
 *   trace_reader_close(&tr);
 */
#ifndef FLINCH_TRACE_READER_H
#define FLINCH_TRACE_READER_H

#include <stdint.h>

#include "csv_reader.h"
#include "mark_line.h"
#include "trace_schema.h"

#define TRACE_RAPL_MAX 16      /* rapl_cum_uj:* columns read; more is an error */
#define TRACE_ERROR_MAX 512

enum trace_row_type { TRACE_SAMPLE, TRACE_MARK, TRACE_EVENT };

struct trace_row {
    enum trace_row_type type;
    long line;                 /* line number in the file, 1-based (header = 1) */
    int64_t t_mono_ns;         /* always present */
    int64_t t_wall_ns;         /* 0 when empty */
    int has_wall;
    const char *label;         /* MARK/EVENT label, "" otherwise; valid until the next call */
    int gpu;                   /* gpu_index; 0 without the column (original trace); -1 when empty */
    /* Each `flinch record` appended to a file starts with a `begin` MARK
     * that the recorder wrote itself (arrival_mono_ns empty; a mark sent
     * through the FIFO always has it set): the recordings are numbered
     * from 1, and starts_recording is set on such a begin row after the
     * first. Time may restart between recordings (a reboot): samples are
     * in order within a recording only, and a recording whose times go
     * back is moved, with one warning, to start 1 s after the latest time
     * before it, so every reader sees one increasing timeline. */
    int recording;
    int starts_recording;
    /* Every numeric fixed column as a double, NAN when the cell is empty,
     * the file lacks the column or the column mask leaves it out
     * (trace_reader_want). Indexed by enum trace_column; t_mono_ns and
     * t_wall_ns are also here (as doubles), row_type/label/proc_state/proc_top_thread are NAN. */
    double v[COL_COUNT];
    uint64_t clock_event_reasons;  /* exact bitmask; valid when !isnan(v[COL_GPU_CLOCK_EVENT_REASONS]) */
    char proc_state;               /* first byte of proc_state, 0 when empty or absent */
    int has_attrs;                 /* MARK with a mark_attrs cell (range edge, tid, domain) */
    struct mark_attrs attrs;       /* parsed; cleared when !has_attrs */
    const char *proc_top_thread;   /* proc_top_thread, "" when empty or absent; valid until the next call */
    double rapl_cum_uj[TRACE_RAPL_MAX]; /* per rapl_cum_uj:DOMAIN column, NAN when empty */
};

/* A SAMPLE row with no gpu_index and no GPU reading: the host's cells of
 * a tick before any GPU was recorded (`--gpu auto` before a GPU joined).
 * Such a row belongs to no GPU track. */
static inline int trace_row_host_only(const struct trace_row *r)
{
    return r->gpu < 0 && r->v[COL_GPU_POWER_W] != r->v[COL_GPU_POWER_W] &&
           r->v[COL_GPU_POWER_INSTANT_W] != r->v[COL_GPU_POWER_INSTANT_W] &&
           r->v[COL_GPU_ENERGY_MJ] != r->v[COL_GPU_ENERGY_MJ] &&
           r->v[COL_GPU_UTIL_PCT] != r->v[COL_GPU_UTIL_PCT];
}

struct trace_reader {
    const char *path;
    char error[TRACE_ERROR_MAX];   /* message of the last failure, without program prefix */
    int col[COL_COUNT];            /* field index of each fixed column, -1 when absent */
    int ncols;                     /* columns in the header */
    int n_rapl;                    /* rapl_cum_uj:* columns */
    char *rapl_domain[TRACE_RAPL_MAX]; /* their domain names ("package-0") */
    int rapl_col[TRACE_RAPL_MAX];
    const char *rapl_prefix[TRACE_RAPL_MAX]; /* RAPL_CUM_PREFIX or _OLD, as in the header */
    long rows;                     /* rows returned so far */
    int recording;                 /* recordings seen so far (see trace_row.recording) */
    int64_t max_t_ns;              /* latest t_mono_ns returned (after shifts) */
    int64_t shift_ns;              /* added to the current recording's times */
    int truncated_last_line;       /* set when a truncated last line was skipped */
    /* private */
    struct csv_reader csv;
    int n_num;                     /* numeric fixed columns present, in enum order, but the
                                      times (read as integers) */
    unsigned char num_col[COL_COUNT]; /* their enum trace_column values */
    signed char num_digits[COL_COUNT]; /* per num_col: -1 wanted; else the integer digits of
                                          a cell sure to lie in its column's range */
    int rapl_wanted;
    int64_t *last_sample_ns;       /* per GPU index: time order check */
    int last_sample_cap;
};

/* Opens PATH and validates its header. 0, or -1 with tr->error set. */
int trace_reader_open(struct trace_reader *tr, const char *path);

/* The column mask: which numeric columns a caller uses, for a pass that
 * needs few of them (a clock measure needs the times only). Bit
 * TRACE_WANT(c) for each enum trace_column c, TRACE_WANT_RAPL for every
 * rapl_cum_uj column; TRACE_WANT_ALL, the default, reads every cell.
 * Set it after trace_reader_open, before the first row.
 *
 * A numeric cell outside the mask is not converted: row->v[c] stays NAN
 * (row->rapl_cum_uj[k] too, row->clock_event_reasons 0) whatever the
 * cell holds. It is still checked, in the same order as every other cell:
 * a row that an unmasked read rejects is rejected with the same message,
 * so a masked pass reports exactly what a full pass would, and a pass
 * that must vouch for the whole trace (export's measure before a pipe
 * gets anything) can be masked. The usual cell ("612.345", "98") is only
 * scanned for its digits, a word at a time; anything else is read as an
 * unmasked read does, and its value dropped.
 *
 * Read whatever the mask says: row_type, label, t_mono_ns and t_wall_ns
 * (their v[] too), gpu_index (row->gpu and v[], and the time-order check
 * per GPU), the mark_attrs
 * of a MARK row, and the text columns proc_state and proc_top_thread.
 * (Every cell being checked, the scanner still splits the whole row: a
 * pass allowed to skip the check of a row's last cells would stop there,
 * but no pass is: each either vouches for the trace or reads every column.) */
#define TRACE_WANT(c) (UINT64_C(1) << (c))
#define TRACE_WANT_RAPL (UINT64_C(1) << 63)
#define TRACE_WANT_ALL (~UINT64_C(0))
void trace_reader_want(struct trace_reader *tr, uint64_t columns);
/* Next row: 1, 0 at end of file, -1 with tr->error set (malformed row,
 * SAMPLE rows of one GPU going back in time, read error). */
int trace_reader_next(struct trace_reader *tr, struct trace_row *row);
/* Whether the file has this fixed column. */
int trace_reader_has(const struct trace_reader *tr, enum trace_column c);
void trace_reader_close(struct trace_reader *tr);

/* Parses a decimal number (the usual "123", "-1.5", "6e-3"; correctly
 * rounded, like strtod). 0 on success, -1 when S is not entirely a number,
 * -2 when it is one but too large for a double ("1e999": never infinity). */
int trace_parse_double(const char *s, size_t len, double *out);

#endif
