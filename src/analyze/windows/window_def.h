/*
 * window_def.h — a named window definition: the MARK labels that open and
 * close it. Shared by the recorder's options and the live analysis, without
 * pulling the analysis headers into the recorder.
 */
#ifndef FLINCH_WINDOW_DEF_H
#define FLINCH_WINDOW_DEF_H

#define LIVE_MAX_DEFS 16

struct live_window_def {
    const char *name;            /* the `window` label */
    const char *start, *end;     /* MARK labels */
    const char *range;           /* instead: the range NAME (--range), paired by id */
};

#endif
