/*
 * tracecheck.c — reads a trace with flinch's own trace reader and prints
 * what is in it, for the fault, soak and security tests (tests/e2e/).
 *
 *   tracecheck FILE            one line: rows=N samples=N marks=N events=N
 *                              truncated=0|1 ticks=FIRST..LAST tick_gaps=G
 *                              skipped_ticks=S max_late_ns=L
 *   tracecheck --marks FILE    one line per MARK: T_MONO_NS ARRIVAL_NS LABEL
 *                              (ARRIVAL_NS is - when the cell is empty)
 *   tracecheck --events FILE   one line per EVENT: T_MONO_NS LABEL
 *
 * Exit status 0 when the whole file parsed (a truncated last line is
 * allowed and reported as truncated=1), 1 with the reader's message (file,
 * line, column) on stderr otherwise, 2 on bad usage. Ticks are counted per
 * GPU: a gap is a SAMPLE whose tick is not the previous one + 1, or a first
 * SAMPLE whose tick is not 0 (the recorder skipped ticks after an overrun),
 * skipped_ticks the ticks missing.
 * Unlike the other helpers it links libflinch.a (see the Makefile), so what
 * it checks is exactly what `flinch analyze` reads.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trace_reader.h"

#define MAX_GPU 64

int main(int argc, char **argv)
{
    int list_marks = 0, list_events = 0;
    if (argc == 3 && strcmp(argv[1], "--marks") == 0)
        list_marks = 1;
    else if (argc == 3 && strcmp(argv[1], "--events") == 0)
        list_events = 1;
    else if (argc != 2) {
        fprintf(stderr, "usage: tracecheck [--marks|--events] FILE\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    struct trace_reader tr;
    if (trace_reader_open(&tr, path) != 0) {
        fprintf(stderr, "tracecheck: %s\n", tr.error);
        return 1;
    }
    long samples = 0, marks = 0, events = 0, gaps = 0, skipped = 0;
    long long first_tick = -1, last_tick = -1, prev_tick[MAX_GPU];
    double max_late = 0;
    for (int i = 0; i < MAX_GPU; i++)
        prev_tick[i] = -1;
    struct trace_row row;
    int rc;
    while ((rc = trace_reader_next(&tr, &row)) == 1) {
        if (row.type == TRACE_MARK) {
            marks++;
            if (list_marks) {
                double a = row.v[COL_ARRIVAL_MONO_NS];
                if (isnan(a))
                    printf("%lld - %s\n", (long long)row.t_mono_ns, row.label);
                else
                    printf("%lld %.0f %s\n", (long long)row.t_mono_ns, a, row.label);
            }
        } else if (row.type == TRACE_EVENT) {
            events++;
            if (list_events)
                printf("%lld %s\n", (long long)row.t_mono_ns, row.label);
        } else {
            samples++;
            double t = row.v[COL_TICK], late = row.v[COL_LATE_NS];
            if (!isnan(late) && late > max_late)
                max_late = late;
            if (isnan(t) || row.gpu < 0 || row.gpu >= MAX_GPU)
                continue;
            long long tick = (long long)t;
            if (first_tick < 0)
                first_tick = tick;
            if (tick > last_tick)
                last_tick = tick;
            if (tick != prev_tick[row.gpu] + 1) {       /* tick 0 missing counts too */
                gaps++;
                skipped += tick - prev_tick[row.gpu] - 1;
            }
            prev_tick[row.gpu] = tick;
        }
    }
    if (rc < 0) {
        fprintf(stderr, "tracecheck: %s\n", tr.error);
        trace_reader_close(&tr);
        return 1;
    }
    if (!list_marks && !list_events)
        printf("rows=%ld samples=%ld marks=%ld events=%ld truncated=%d ticks=%lld..%lld "
               "tick_gaps=%ld skipped_ticks=%ld max_late_ns=%.0f\n",
               tr.rows, samples, marks, events, tr.truncated_last_line, first_tick, last_tick,
               gaps, skipped, max_late);
    trace_reader_close(&tr);
    return 0;
}
