/*
 * clock.h — the two clocks every row is stamped with.
 *
 * t_mono_ns is CLOCK_MONOTONIC: spans are measured on it, and it is the
 * clock clients stamp marks with (Python's time.monotonic_ns() is the same
 * clock on Linux). t_wall_ns is CLOCK_REALTIME, for lining traces up with
 * other logs and other hosts.
 */
#ifndef FLINCH_CLOCK_H
#define FLINCH_CLOCK_H

#include <stdint.h>

int64_t mono_ns(void);
int64_t wall_ns(void);

#define NS_PER_SEC 1000000000LL
#define NS_PER_MS  1000000LL

#endif
