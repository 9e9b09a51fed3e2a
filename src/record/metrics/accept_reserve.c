/*
 * accept_reserve.c — see accept_reserve.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "accept_reserve.h"
#include "clock.h"

void accept_reserve_open(struct accept_reserve *a)
{
    a->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    a->resume_ns = 0;
    a->shed = 0;
}

void accept_reserve_close(struct accept_reserve *a)
{
    if (a->spare >= 0)
        close(a->spare);
    a->spare = -1;
}

int accept_reserve_accept(struct accept_reserve *a, int lfd, int64_t now_ns)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0 || (errno != EMFILE && errno != ENFILE && errno != ENOBUFS && errno != ENOMEM))
        return fd;
    /* Out of descriptors (or kernel memory): give the spare's slot to the
     * pending connection just long enough to close it, then take it back.
     * Every connection pending is shed (up to ACCEPT_RESERVE_SHED_MAX), so
     * the back-off does not leave a queue of them waiting. Another thread
     * may take the slot in between; then the spare is missing until a later
     * shed finds one free. */
    if (a->spare >= 0) {
        close(a->spare);
        a->spare = -1;
    }
    for (int k = 0; k < ACCEPT_RESERVE_SHED_MAX; k++) {
        int victim = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (victim < 0)
            break;
        close(victim);
        a->shed++;
    }
    a->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    a->resume_ns = now_ns + (int64_t)ACCEPT_RESERVE_BACKOFF_MS * NS_PER_MS;
    return -1;
}

int accept_reserve_ready(const struct accept_reserve *a, int64_t now_ns, int64_t *next_ns)
{
    if (now_ns >= a->resume_ns)
        return 1;
    if (a->resume_ns < *next_ns)
        *next_ns = a->resume_ns;
    return 0;
}
