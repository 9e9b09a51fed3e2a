/*
 * report.h — analyze's output: the original's three lines, the text report,
 * the --windows table, and --format csv / json.
 *
 * Owns formatting only; every number comes from struct analysis.
 */
#ifndef FLINCH_REPORT_H
#define FLINCH_REPORT_H

#include <stdio.h>

#include "analysis.h"

enum report_format { REPORT_TEXT, REPORT_CSV, REPORT_JSON };

/* --windows prints at most this many answer lines; the table has all. */
#define REPORT_ANSWER_LINES 20

struct report_options {
    enum report_format format;
    int windows_table;     /* --windows: one row per window in the text report */
    int verbose;           /* -v: keep evidence lines that carry nothing for this trace */
};

void report_write(FILE *out, const struct analysis *a, const struct report_options *ro);

/* The machine formats (report_machine.c). */
void report_csv(FILE *out, const struct analysis *a);
void report_json(FILE *out, const struct analysis *a);

/* Where the traced threads were in window wi (report_waiting.c): one text
 * line, or the JSON members "waiting_on" (null without a threads file). */
void report_waiting_text(FILE *out, const struct analysis *a, long wi);
void report_waiting_json(FILE *out, const struct analysis *a, long wi);
/* The same as CSV cells after the window's others (README "Waiting on
 * what"): ",waiting_on_resolution_ms,threads_CLASS_ms...,waiting_on,
 * segments_waiting_on"; empty cells without a threads file. */
void report_waiting_csv_header(FILE *out);
/* The cgroup CPU throttling of window wi (report_cgroup.c): a text line
 * (none without readings), the JSON member "cgroup" (null without), the
 * CSV cells cgroup_throttled_ms,cgroup_throttled_periods (empty without). */
void report_cgroup_text(FILE *out, const struct analysis *a, long wi);
void report_cgroup_json(FILE *out, const struct analysis *a, long wi);
void report_cgroup_csv(FILE *out, const struct analysis *a, long wi);
void report_waiting_csv(FILE *out, const struct analysis *a, long wi);

/* GPM evidence (report_gpm.c): the header line of a GPU whose GPM was
 * not recorded (and why), a window GPU's line, its JSON member "gpm", and
 * its CSV cells (REPORT_GPM_CSV_COLS, named report_gpm_csv_cols, per GPU;
 * written only when the trace has GPM values). */
void report_gpm_text_gpu(FILE *out, const struct analysis *a, int gpu);
void report_gpm_text(FILE *out, const struct window *w, const struct window_gpu *g);
void report_gpm_json(FILE *out, const struct analysis *a, const struct window_gpu *g);
#define REPORT_GPM_CSV_COLS 6
extern const char *const report_gpm_csv_cols[REPORT_GPM_CSV_COLS];
void report_gpm_csv(FILE *out, const struct window_gpu *g);
/* The traced kernels' CSV cells (report_kernels.c), only when
 * report_kernels_seen: the window's collective_ms, then per GPU
 * REPORT_KERNELS_CSV_COLS named report_kernels_csv_cols (g NULL: empty). */
#define REPORT_KERNELS_CSV_COLS 11
extern const char *const report_kernels_csv_cols[REPORT_KERNELS_CSV_COLS];
int report_kernels_seen(const struct analysis *a);
void report_kernels_csv_window(FILE *out, const struct window *w);
void report_kernels_csv(FILE *out, const struct analysis *a, const struct window_gpu *g);
/* One CSV cell's text, quoted when it needs it (RFC 4180). */
void report_csv_str(FILE *out, const char *s);

/* A window's host<->GPU traffic (report_pcie.c): the text lines, the JSON
 * member "pcie" (null without counters), and the CSV columns and cells. */
void report_pcie_text(FILE *out, const struct window *w, int verbose);
void report_pcie_json(FILE *out, const struct pcie_traffic *p, double duration_s);
extern const char *const report_pcie_csv_cols;
void report_pcie_csv(FILE *out, const struct window *w);

/* The recorder's identity rows (report_ident.c): JSON members of the host
 * (hostname, driver, nvml) and of a GPU (name, uuid, pci, power_limit_W,
 * compute_mode, mig, warnings), the
 * CSV columns hostname, gpuN_name, gpuN_uuid, gpuN_warnings. */
const struct gpu_ident *report_ident_of(const struct analysis *a, int gpu_index);
/* What the identity warns of (persistence mode off, MIG on): up to max
 * sentences into w; how many. g may be NULL. */
#define REPORT_IDENT_WARNINGS 4
int report_ident_warnings(const struct gpu_ident *g, const char **w, int max);
void report_ident_json_host(FILE *out, const struct analysis *a);
void report_ident_json_gpu(FILE *out, const struct analysis *a, int gpu_index);
void report_ident_csv_header(FILE *out, const struct analysis *a);
void report_ident_csv_row(FILE *out, const struct analysis *a);

/* The mean utilization of a window's GPUs that read one, NAN if none. */
double report_window_util(const struct window *w);
/* --windows (report_table.c): a header, then a row per window and its
 * segments. */
void report_table_text(FILE *out, const struct analysis *a);

/* The answer first (report_answer.c): the window's answer line; its
 * evidence with the clauses that carry nothing left out (all with
 * verbose); the evidence's first clause past the parts (the table's
 * reason column). */
void report_answer_line(FILE *out, const struct window *w);
const char *report_evidence_text(const struct window *w, int verbose, char *buf, size_t cap);
const char *report_reason_text(const struct window *w, char *buf, size_t cap);

/* Several recordings in one file (report_recordings.c; nothing with one):
 * the `levels` lines of GPU i per recording (1: printed, 0: the caller
 * prints its one line), each recording's summary before the total's, and
 * the JSON member "recordings". */
int report_recordings_levels_text(FILE *out, const struct analysis *a, int i, const char *name);
void report_recordings_summary_text(FILE *out, const struct analysis *a);
void report_recordings_json(FILE *out, const struct analysis *a);
/* A number as text with fmt, or "n/a" when not finite (report.c): the
 * text report never prints nan or inf. NUM(fmt, v) uses a fresh buffer
 * each time, so several may stand in one printf. */
const char *report_num_text(char *buf, size_t cap, const char *fmt, double v);
#define REPORT_NUM_MAX 48
#define NUM(fmt, v) report_num_text((char[REPORT_NUM_MAX]){ 0 }, REPORT_NUM_MAX, fmt, v)

/* Text of a window's flags: "incomplete, few-samples", "" when none. */
void window_flags_str(unsigned flags, char *buf, size_t cap);

#endif
