/*
 * live_line.h — the one line `flinch record --live` prints per finished
 * window.
 *
 * Owns its format (README, "Live answers"), the recorder's status line on a
 * terminal, and the check that the lines reached standard output:
 *   live NAME #N: t_start_ns=T duration_s=0.724000 energy_J=443.088 +-1.234
 *     compute_ms=700.000 host_cpu_ms=0.000 waiting_ms=24.000 verdict=compute (EVIDENCE; levels: ORIGIN, so far)
 * (one line; the breakdown only when the window has one)
 * duration_s and energy_J are printed exactly as `flinch analyze --format
 * csv` prints them (%.6f, %.3f), which they equal.
 */
#ifndef FLINCH_LIVE_LINE_H
#define FLINCH_LIVE_LINE_H

#include <stddef.h>
#include <stdio.h>

struct window;   /* analysis.h (not included: it would clash with the recorder's trace_row.h) */

/* levels_given: --idle-w/--busy-w fixed the levels (final, not "so far").
 * dropped: rows the live analysis missed so far (said when non-zero). */
size_t live_line_format(char *buf, size_t cap, const char *name, long nth, const struct window *w,
                        const char *levels_origin, int levels_given, long long dropped);

/* The status line `flinch record` keeps rewriting on a terminal (without
 * the "\r" and the erase around it):
 *   flinch record: 1.5 s, 150 rows, GPU 0 power 612.000 W; marks /tmp/flinch_marks, last 'infer_start'
 * gpu < 0: no GPU yet (--gpu auto). fifo NULL or "": no FIFO; last_mark ""
 * before the first mark; a label over 40 bytes is cut, ending in "...". */
size_t live_status_format(char *buf, size_t cap, const char *prog, double seconds, long long rows,
                          int gpu, const char *power, const char *fifo, const char *last_mark);

/* At the end of the recording: 0 when every line printed on OUT got there,
 * else -1 after one error line (a full disk, a closed pipe: lines lost). */
int live_lines_check(FILE *out);

#endif
