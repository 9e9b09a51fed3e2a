/* clock.c — see clock.h. */
#include <time.h>

#include "clock.h"

static int64_t read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

int64_t mono_ns(void) { return read_clock(CLOCK_MONOTONIC); }
int64_t wall_ns(void) { return read_clock(CLOCK_REALTIME); }
