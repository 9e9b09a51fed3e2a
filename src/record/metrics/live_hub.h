/*
 * live_hub.h — the recorder's live side: `--live` lines, the `--metrics`
 * server and the `--metrics-file` textfile.
 *
 * Owns: a copy of every trace row as it is written (the CSV writer's tee:
 * one non-blocking write of the whole row to a pipe, so a full pipe drops
 * the copy and counts it, never delaying a sample or a mark; the trace's
 * own counters are counted there too, live_counts.h), and the hub
 * thread that reads that pipe with the trace reader, feeds analyze's own
 * code (live_windows.h), keeps the metric state, prints a line per finished
 * window, and publishes the exposition (at most every LIVE_PUBLISH_MS to
 * the server, every LIVE_FILE_MS to the file, and once more at the end).
 */
#ifndef FLINCH_LIVE_HUB_H
#define FLINCH_LIVE_HUB_H

#include <pthread.h>
#include <stdint.h>

#include "csv_writer.h"
#include "live_counts.h"
#include "metrics_http.h"
#include "window_def.h"

#define LIVE_PUBLISH_MS 200
#define LIVE_FILE_MS 1000
#define LIVE_PIPE_BYTES (1 << 20)

struct live_hub_opts {
    const char *metrics;          /* --metrics [ADDR:]PORT, NULL: none */
    const char *metrics_file;     /* --metrics-file PATH, NULL: none */
    int live;                     /* --live: a line per window on stdout */
    int ndefs;                    /* --window NAME=START:END and --start/--end */
    struct live_window_def defs[LIVE_MAX_DEFS];
    double idle_w, busy_w;        /* --idle-w / --busy-w, NAN: learned */
    int metrics_ranges;           /* --metrics-ranges N: range names with series; 0: none */
};

struct mark_fifo;

struct live_hub {
    struct live_hub_opts o;
    int on;                       /* anything asked for */
    int pipe_r, pipe_w;
    pthread_t thread;
    int thread_running;
    struct metrics_server srv;
    int have_srv;
    struct csv_out *csv;
    struct mark_fifo *fifo;
    long long dropped;            /* rows the tee could not pass on (atomic) */
    struct live_counts counts;    /* the trace's samples, ticks skipped, marks (the tee's) */
    struct live_hub_state *s;     /* hub thread only, once started */
};

/* Before the recording starts: binds the server, checks the file path
 * (that it is no other file of the run, record checked before). 0, or -1
 * after one error line. */
int live_hub_open(struct live_hub *h, const struct live_hub_opts *o);
/* GPU identities for the labels (before start): index and UUID (asked
 * of NVML only here, only when metrics are on). */
struct nvml_lib;
struct gpu_dev;
void live_hub_gpus(struct live_hub *h, const struct nvml_lib *nvml, const struct gpu_dev *gpus,
                   int n);
/* Starts the feed (header first) and the threads. fifo: for the rejected
 * count, may be NULL. 0, or -1 after one error line. */
int live_hub_start(struct live_hub *h, struct csv_out *csv, const char *header,
                   struct mark_fifo *fifo);
/* After the last row (the `end` mark): ends the feed, waits for the hub to
 * report the last windows and write the final file, stops the server. */
void live_hub_stop(struct live_hub *h);

#endif
