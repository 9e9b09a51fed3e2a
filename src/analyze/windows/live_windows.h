/*
 * live_windows.h — windows answered while the trace is still being written
 * (`flinch record --live`, and the per-window metrics of --metrics).
 *
 * Owns: running analyze's own streaming pass (analysis.c, one per window
 * definition) over rows as they come, handing each window to a callback
 * the moment both of its edges are resolved (its end mark is in and so are
 * the samples after it), and keeping memory bounded however many windows
 * go by: a finished window is dropped once reported, and at most
 * LIVE_MAX_OPEN windows of one definition stay open: past that the one
 * open longest is dropped unfinished and counted (a range whose end never
 * came, from a client that died inside it, must not hold memory forever). Duration and energy
 * are the numbers `flinch analyze` gives for the same window of the
 * finished trace; the verdict uses the power levels learned so far.
 */
#ifndef FLINCH_LIVE_WINDOWS_H
#define FLINCH_LIVE_WINDOWS_H

#include "analysis.h"
#include "trace_reader.h"
#include "window_def.h"
#include "windows.h"

/* Called for each finished window of definition `def`, in the order they
 * resolve; nth counts that definition's windows from 1. levels_origin: where
 * the first GPU's idle/busy levels came from. An exit code; non-zero stops. */
typedef int (*live_window_fn)(void *arg, int def, long nth, const struct window *w,
                              const char *levels_origin);

#define LIVE_MAX_OPEN 1024

struct ctx;
struct live_windows {
    int n;                       /* contexts: the definitions, then the ranges' */
    struct analysis_options opt[LIVE_MAX_DEFS + 1];
    struct analysis *a;          /* n */
    struct ctx *ctx;             /* n */
    long nth[LIVE_MAX_DEFS + 1];
    live_window_fn fn;
    void *arg;
    long abandoned;              /* windows dropped unfinished (LIVE_MAX_OPEN) */
};

/* tr: an open reader (its header gives the columns). base: thresholds and
 * --idle-w/--busy-w; labels come from defs. namer, when not NULL, adds
 * one more context (def == n in the callback) that makes a window of every
 * range, named by namer (windows.h, pairing_init_any: w->start_label is
 * the name). 0, or an exit code after one error line. */
int live_windows_open(struct live_windows *lw, struct trace_reader *tr,
                      const struct live_window_def *defs, int n,
                      const struct analysis_options *base, range_namer_fn namer,
                      void *namer_arg, live_window_fn fn, void *arg);
int live_windows_row(struct live_windows *lw, const struct trace_row *row);
/* End of the trace: resolves the last edges (as analyze does at end of
 * file) and reports what finishes. */
int live_windows_finish(struct live_windows *lw);
void live_windows_free(struct live_windows *lw);

#endif
