/*
 * analysis_feed.h — an analysis fed the rows another stage reads, so that
 * plot and export read their trace once: the reader's rows go to their own
 * stage and, through this, to the windows' analysis (analysis.h).
 *
 * Owns: running analysis_run's stages on rows read elsewhere, and keeping
 * the analysis's messages where they were when it read the trace itself,
 * after the other stage had: they are held (diag_hold) while rows are
 * fed, and printed at analysis_feed_end, or dropped when the caller has no
 * use for the analysis (its labels were not in the trace). After a failure
 * the analysis takes no more rows; the other stage reads on, as it did
 * when it ran first.
 *
 *   struct analysis_feed af;
 *   analysis_feed_begin(&af, &opts, path, &tr, &a);   (tr: open, header read)
 *   while (trace_reader_next(&tr, &row) == 1) { other stage; analysis_feed_row(&af, &row); }
 *   rc = analysis_feed_end(&af, 1);   (or analysis_feed_end(&af, 0): discarded)
 *   ... analysis_free(&a);
 */
#ifndef FLINCH_ANALYSIS_FEED_H
#define FLINCH_ANALYSIS_FEED_H

#include "analysis.h"

struct ctx;

struct analysis_feed {
    struct ctx *c;               /* NULL when it could not start */
    struct analysis *a;
    int status;                  /* EXIT_OK while rows are taken */
};

/* Starts an analysis with options O (no external marks) over the rows of
 * TR, an open reader of PATH. Nothing is printed yet. */
void analysis_feed_begin(struct analysis_feed *f, const struct analysis_options *o, const char *path,
                         struct trace_reader *tr, struct analysis *a);
/* One row, as trace_reader_next returned it. */
void analysis_feed_row(struct analysis_feed *f, const struct trace_row *row);
/* After the last row. USE: print what the analysis held back and finish it
 * as analysis_run does (its exit code, after its message); 0: drop it all
 * and return EXIT_OK. Either way the caller frees *a with analysis_free. */
int analysis_feed_end(struct analysis_feed *f, int use);

#endif
