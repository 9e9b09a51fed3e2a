/*
 * live_counts.h — the counters `--metrics` / `--metrics-file` expose about
 * the trace itself (SAMPLE rows, ticks skipped, marks received), counted
 * from the bytes of every row as the CSV writer wrote it to the trace.
 *
 * They used to be counted by the live hub from the rows it read back
 * through the feed pipe, so once the feed overflowed (its rows dropped,
 * live_hub.h) they said what the live side saw, not what the trace holds
 * (issue 26: 2,112 samples for a trace of 2,500, 388 ticks "skipped" of
 * none, 32,289 marks of 300,000). Counting on the writer's side, under the
 * writer's lock, makes them the trace's own counts whatever the feed
 * loses; the feed's losses have their own counter
 * (flinch_live_rows_dropped_total).
 *
 * Written by whichever thread writes a row (under the writer's lock, so
 * one at a time), read by the hub thread: each field is stored and loaded
 * atomically.
 */
#ifndef FLINCH_LIVE_COUNTS_H
#define FLINCH_LIVE_COUNTS_H

#include <stddef.h>

struct live_counts {
    long long samples;        /* SAMPLE rows */
    long long marks;          /* MARK rows with an arrival time: came through the FIFO */
    long long ticks_skipped;  /* ticks missing from the tick column (first tick 0) */
    long long last_tick;      /* -1 before the first SAMPLE */
};

void live_counts_init(struct live_counts *c);
/* Counts one CSV row (as written: cells in trace_schema.h order, quoted
 * where needed, ending in "\n"). */
void live_counts_row(struct live_counts *c, const char *row, size_t len);
/* A consistent-enough copy for another thread (each field atomic). */
void live_counts_load(const struct live_counts *c, struct live_counts *out);

#endif
