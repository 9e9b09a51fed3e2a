/* clock.c — see clock.h. */
#include <errno.h>
#include <stdatomic.h>
#include <time.h>

#include "clock.h"

static int64_t (*_Atomic virtual_now)(void);
static int (*virtual_sleep)(int64_t);
static int64_t virtual_wall_offset;

static int64_t read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

int64_t mono_ns(void)
{
    int64_t (*now)(void) = atomic_load(&virtual_now);
    return now ? now() : read_clock(CLOCK_MONOTONIC);
}

int64_t wall_ns(void)
{
    int64_t (*now)(void) = atomic_load(&virtual_now);
    return now ? now() + virtual_wall_offset : read_clock(CLOCK_REALTIME);
}

int clock_sleep_until(int64_t when_ns)
{
    if (atomic_load(&virtual_now))
        return virtual_sleep(when_ns);
    struct timespec ts = { (time_t)(when_ns / NS_PER_SEC), (long)(when_ns % NS_PER_SEC) };
    /* EINVAL cannot happen with a valid timespec; only a signal wakes early. */
    return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR ? -1 : 0;
}

void clock_virtualize(int64_t (*now)(void), int (*sleep_until)(int64_t), int64_t wall_offset_ns)
{
    virtual_sleep = sleep_until;
    virtual_wall_offset = wall_offset_ns;
    atomic_store(&virtual_now, now);
}

int clock_is_virtual(void)
{
    return atomic_load(&virtual_now) != NULL;
}
