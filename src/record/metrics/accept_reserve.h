/*
 * accept_reserve.h — accepting a connection when the process is out of
 * file descriptors (EMFILE, ENFILE), for the metrics server.
 *
 * A listening socket with a connection pending stays readable, so a
 * server whose accept() fails for lack of descriptors and that polls again
 * at once spins (issue 26: 1.5 CPU-s a second, scrapes timing out) while
 * the client waits for good. Owns one spare descriptor (/dev/null, opened
 * at start): when accept() fails so, the spare is closed, the pending
 * connections accepted and closed at once (its client sees the connection
 * end instead of hanging), the spare opened again, and the listening
 * socket is left out of poll() for ACCEPT_RESERVE_BACKOFF_MS.
 */
#ifndef FLINCH_ACCEPT_RESERVE_H
#define FLINCH_ACCEPT_RESERVE_H

#include <stdint.h>

#define ACCEPT_RESERVE_BACKOFF_MS 100
#define ACCEPT_RESERVE_SHED_MAX 64     /* pending connections closed per shortage */

struct accept_reserve {
    int spare;                 /* /dev/null, -1 when it could not be opened */
    int64_t resume_ns;         /* CLOCK_MONOTONIC: poll the listener again from then */
    long long shed;            /* connections closed for lack of descriptors */
};

/* Opens the spare. Never fails: without one, a pending connection is left
 * waiting through the back-off instead of being closed. */
void accept_reserve_open(struct accept_reserve *a);
void accept_reserve_close(struct accept_reserve *a);

/* accept4(lfd), non-blocking and close-on-exec. The new descriptor, or -1
 * when nothing is pending or it failed; out of descriptors, the pending
 * connection is shed and the back-off starts. */
int accept_reserve_accept(struct accept_reserve *a, int lfd, int64_t now_ns);

/* Whether the listener may be polled at now_ns; when not, *next_ns is
 * lowered to the end of the back-off. */
int accept_reserve_ready(const struct accept_reserve *a, int64_t now_ns, int64_t *next_ns);

#endif
