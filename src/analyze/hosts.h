/*
 * hosts.h — traces from several hosts on one timeline.
 *
 * A multi-node deployment records one trace per host. Each trace's times
 * are that host's CLOCK_MONOTONIC (t_mono_ns), which means nothing on
 * another host; t_wall_ns (CLOCK_REALTIME) is comparable across hosts as far
 * as their clocks are synchronised (NTP: ~1 ms, PTP: ~1 us). So each trace
 * gets one offset, the median of t_wall_ns - t_mono_ns over its rows (the
 * median ignores a clock step or a row stamped late), and its times go to
 * the shared timeline as t_mono_ns + offset: ns since 1970 by that host's
 * wall clock, but with the monotonic clock's smooth spacing.
 *
 * Owns: naming hosts ("HOST=PATH" or the file name without .csv), measuring
 * each trace's offset in bounded memory, converting between a host's
 * t_mono_ns and the shared timeline, and resolving "host:label" references
 * (used by `flinch export`; meant for `flinch analyze --start host1:label`).
 */
#ifndef FLINCH_HOSTS_H
#define FLINCH_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#define HOST_NAME_LEN 64         /* longest host name + 1 */
#define HOST_ERROR_MAX 600

struct host_trace {
    char name[HOST_NAME_LEN];    /* "node1" */
    const char *path;            /* the trace CSV (points into the argument) */
    int named;                   /* HOST=PATH: the name is the user's, never replaced */
    char recorded_name[HOST_NAME_LEN]; /* set by host_trace_measure: the host name the
                                    recorder wrote (flinch_host EVENT), "" if none */
    /* set by host_trace_measure: */
    int has_wall;                /* some row had t_wall_ns; else offset is 0 */
    int64_t wall_offset_ns;      /* median of t_wall_ns - t_mono_ns */
    int64_t offset_spread_ns;    /* max - min of those differences: a wall-clock step
                                    (NTP correction) during the recording shows here */
    int64_t min_mono_ns, max_mono_ns; /* earliest and latest t_mono_ns of any row */
    long rows;
};

/* Parses a command-line argument: "HOST=PATH", or "PATH" with the host
 * named after the file (directory and ".csv" removed). A host name is 1..63
 * bytes without ':' '=' '/' or control characters. 0, or -1 with ERR set. */
int host_trace_parse(const char *arg, struct host_trace *h, char *err, size_t errlen);

/* Reads h->path once (trace_reader.h) and sets the fields below `path`.
 * 0, or -1 with ERR set to the reader's "FILE:LINE: ..." message. */
int host_trace_measure(struct host_trace *h, char *err, size_t errlen);

/* The same measure fed rows read elsewhere (export reads a trace once):
 * begin (0, or -1 out of memory), each row, then end (0, or -1 with ERR:
 * no rows), which frees M. After a reader's error, free(m->diff). */
struct trace_row;
struct host_measure {
    int64_t *diff;
    long ndiff, stride, nwall;
    int64_t dmin, dmax;
};
int host_measure_begin(struct host_trace *h, struct host_measure *m);
void host_measure_row(struct host_trace *h, struct host_measure *m, const struct trace_row *row);
int host_measure_end(struct host_trace *h, struct host_measure *m, char *err, size_t errlen);

/* A guess at host_trace_measure's figures from the first MAX_ROWS rows
 * only (a reader's error there is left to the full read): the earliest
 * time and the recorded host name among them, and offset 0. One trace's
 * export (times relative to its earliest row, offsets cancel out) writes
 * its events with it while measuring, and checks it at the end. 0, or -1
 * with ERR set when the file cannot be opened as a trace. */
int host_trace_guess(struct host_trace *h, long max_rows, char *err, size_t errlen);

/* A host's t_mono_ns on the shared timeline, and back. */
int64_t host_shared_ns(const struct host_trace *h, int64_t t_mono_ns);
int64_t host_mono_ns(const struct host_trace *h, int64_t shared_ns);

/* Names each host not named HOST=PATH after the host name its recorder
 * wrote, where the trace has one and it is not also another trace's name
 * (two traces from one host keep their file names). */
void hosts_adopt_recorded_names(struct host_trace *hosts, int n);

/* Checks a set of measured hosts can share a timeline: names distinct, and
 * with more than one host, every trace has t_wall_ns. 0, or -1 with ERR. */
int hosts_check(const struct host_trace *hosts, int n, char *err, size_t errlen);

/* Index of the host named NAME (LEN bytes), or -1. */
int hosts_find(const struct host_trace *hosts, int n, const char *name, size_t len);

/* Resolves a window reference. When the text before the first ':' names one
 * of HOSTS, *HOST is its index and *LABEL points after the colon; otherwise
 * *HOST is -1 and *LABEL is REF itself (a plain label may contain ':'). */
void host_ref_parse(const struct host_trace *hosts, int n, const char *ref, int *host,
                    const char **label);

#endif
