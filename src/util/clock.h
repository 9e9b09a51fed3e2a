/*
 * clock.h — the two clocks every row is stamped with.
 *
 * t_mono_ns is CLOCK_MONOTONIC: spans are measured on it, and it is the
 * clock clients stamp marks with (Python's time.monotonic_ns() is the same
 * clock on Linux). t_wall_ns is CLOCK_REALTIME, for lining traces up with
 * other logs and other hosts.
 *
 * Owns: reading both clocks and sleeping to a CLOCK_MONOTONIC deadline,
 * the only place the recorder's time comes from (see clock_virtualize).
 */
#ifndef FLINCH_CLOCK_H
#define FLINCH_CLOCK_H

#include <stdint.h>

int64_t mono_ns(void);
int64_t wall_ns(void);

/* Sleeps until mono_ns() reaches when_ns; -1 if a signal interrupted it. */
int clock_sleep_until(int64_t when_ns);

/* The seam that lets a simulator run the recorder on its own time: after
 * this call mono_ns() is now(), wall_ns() is now() + wall_offset_ns, and
 * clock_sleep_until() calls sleep_until() instead of sleeping. Only the
 * simulated NVML offers such a clock (nvml_loader.c looks for it). */
void clock_virtualize(int64_t (*now)(void), int (*sleep_until)(int64_t), int64_t wall_offset_ns);
int clock_is_virtual(void);

#define NS_PER_SEC 1000000000LL
#define NS_PER_MS  1000000LL

#endif
