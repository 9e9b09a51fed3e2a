/*
 * waiting_on.h — where the traced threads were inside each window: per
 * class (thread_class.h), thread-milliseconds and the threads involved,
 * from the threads file beside the trace (threads_file.h).
 *
 * Owns the intersection of thread spans with windows and the per-window
 * summary the reports print. A trace without a threads file has none
 * (a->waiting stays NULL) and reads exactly as before.
 */
#ifndef FLINCH_WAITING_ON_H
#define FLINCH_WAITING_ON_H

#include "analysis.h"
#include "thread_class.h"

struct waiting_thread {
    long tid;
    const char *name;       /* escaped comm (threads_file.h) */
    const char *detail;     /* what it was in most of this time: "accept on a socket" */
    double ms;
};

struct waiting_class {
    enum thread_class cls;
    double thread_ms;
    int nthreads;
    struct waiting_thread *threads;   /* largest first */
};

/* A host-cpu or waiting segment of the window's breakdown (w->bd) and the
 * thread-milliseconds of each class inside it. */
struct segment_waiting {
    int seg;                      /* index into w->bd.seg */
    double thread_ms[TC_COUNT];
    int dominant;                 /* the class with the most thread-ms, -1: no thread states */
};

struct window_waiting {
    int nclass;
    struct waiting_class cls[TC_COUNT];   /* non-zero classes, largest first */
    int nseg;
    struct segment_waiting *segs;         /* the window's host-cpu and waiting segments, in order */
    /* the dominant class of every segment of the window's breakdown (w->bd.seg), compute's and
     * collective's too; -1: no thread states there. What a GPU's idle gaps between traced
     * kernels are put down to (kernels_window.h). */
    signed char seg_dominant[BREAKDOWN_MAX_SEGMENTS];
};

struct waiting_on {
    char path[4096];
    long interval_ms;            /* sweep interval: each span edge is +- half of it */
    struct window_waiting *win;  /* one per window, in a->windows order */
    long nwin;
    char notes[4][200];          /* what the recorder could not read */
    int nnotes;
    /* private: interned names and details */
    char **strings;
    int nstrings, cap;
    struct tuple_index *string_at;  /* (hash, probe) -> index in strings */
};

/* Reads TRACE_PATH.threads, if there is one, into a->waiting. EXIT_OK, or
 * EXIT_USAGE after one diag_error line naming file and line. */
int waiting_on_read(struct analysis *a, const char *trace_path);
void waiting_on_free(struct waiting_on *w);

#endif
