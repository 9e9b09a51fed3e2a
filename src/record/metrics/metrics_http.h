/*
 * metrics_http.h — the tiny HTTP server behind `flinch record --metrics`.
 *
 * Owns: the listening socket (a bare PORT binds 127.0.0.1; any other
 * address only when given: 0.0.0.0 for all IPv4 interfaces, [::1] for IPv6
 * loopback, [::] for all, IPv4 too), the server thread,
 * and every limit on clients: at most METRICS_HTTP_MAX_CONN connections at
 * once (more are closed at once), a request of at most
 * METRICS_HTTP_MAX_REQUEST bytes, METRICS_HTTP_REQUEST_MS to send it and
 * METRICS_HTTP_RESPONSE_MS to take the answer. Only GET (or HEAD) of
 * /metrics and /healthz are answered; anything else gets 404/405/400 and
 * the connection is closed. The thread uses non-blocking sockets and
 * poll(), so a slow or hostile client costs it nothing but a slot; out of
 * file descriptors it sheds the pending connection and backs off
 * (accept_reserve.h) instead of spinning.
 *
 * A GET of /metrics is answered in OpenMetrics when its Accept header
 * prefers it (metrics_negotiate; Prometheus asks for it by default), in the
 * text format otherwise. The text served is a snapshot published by the live hub: published
 * under a short lock as a reference-counted buffer, so serving never waits
 * on the writer nor the writer on a client.
 */
#ifndef FLINCH_METRICS_HTTP_H
#define FLINCH_METRICS_HTTP_H

#include <pthread.h>
#include <stddef.h>

#include "accept_reserve.h"
#include "metrics_format.h"

#define METRICS_HTTP_MAX_CONN 8
#define METRICS_HTTP_MAX_REQUEST 4096
#define METRICS_HTTP_REQUEST_MS 2000
#define METRICS_HTTP_RESPONSE_MS 5000
#define METRICS_HTTP_LINGER_MS 1000   /* after an error answer: the client's leftover bytes */

struct metrics_snap;

struct metrics_server {
    int lfd;
    int stop_pipe[2];
    pthread_t thread;
    int running;
    char bound[64];                  /* "127.0.0.1:9400", "[::1]:9400" */
    pthread_mutex_t lock;            /* guards cur */
    struct metrics_snap *cur[METRICS_FORMATS];
    long long served, refused;       /* server thread only */
    struct accept_reserve acc;       /* out of descriptors: shed, back off */
};

/* Parses [ADDR:]PORT or [IPV6]:PORT, binds and listens (before the recording starts, so
 * a busy port is a usage error). 0, or -1 after one error line. */
int metrics_server_open(struct metrics_server *s, const char *spec);
/* Starts the thread. 0, or -1 after one error line. */
int metrics_server_start(struct metrics_server *s);
/* Replaces the text served in format fmt (copied). */
void metrics_server_publish(struct metrics_server *s, enum metrics_format fmt, const char *text,
                            size_t len);
/* The format an Accept header value asks for: OpenMetrics when it names
 * application/openmetrics-text with a q at least that of text/plain (or of
 * the wildcard that covers it); otherwise the text format. */
enum metrics_format metrics_negotiate(const char *accept, size_t len);
/* Stops the thread, closes every socket, frees the snapshot. */
void metrics_server_stop(struct metrics_server *s);

#endif
