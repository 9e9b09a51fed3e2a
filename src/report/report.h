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

struct report_options {
    enum report_format format;
    int windows_table;     /* --windows: one row per window in the text report */
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

/* Text of a window's flags: "incomplete, few-samples", "" when none. */
void window_flags_str(unsigned flags, char *buf, size_t cap);

#endif
