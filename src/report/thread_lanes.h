/*
 * thread_lanes.h — the traced threads as lanes for flinch plot: the busy
 * or interesting threads of TRACE.threads (threads_file.h), each as one
 * class (thread_class.h) per pixel column.
 *
 * Owns choosing the threads and bucketing their spans. A thread's score is
 * its time in the plotted range in any class but sleep, lock and other
 * (the states of an idle worker); the THREAD_LANES_MAX highest with a
 * score of at least 1% of the range get a lane. A column shows the class the thread spent
 * most of that column's time in.
 */
#ifndef FLINCH_THREAD_LANES_H
#define FLINCH_THREAD_LANES_H

#include <stdint.h>

#include "threads_file.h"

#define THREAD_LANES_MAX 8
#define THREAD_LANE_NONE 255      /* no state recorded in this column */

struct thread_lane {
    long tid;
    char name[THREADS_NAME_MAX];
    unsigned char *cls;           /* ncols entries: enum thread_class, or THREAD_LANE_NONE */
};

struct thread_lanes {
    int nlanes, ncols;
    struct thread_lane lane[THREAD_LANES_MAX];
};

/* Reads TRACE.threads (twice) for the range [from_s, to_s] in seconds since
 * t0_ns. No file: no lanes. 0, or an exit code from diag.h after the
 * message. */
int thread_lanes_read(const char *trace, int64_t t0_ns, double from_s, double to_s, int ncols,
                      struct thread_lanes *out);
void thread_lanes_free(struct thread_lanes *l);

#endif
