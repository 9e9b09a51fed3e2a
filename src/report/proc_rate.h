/*
 * proc_rate.h — the traced process's CPU use in cores, from consecutive
 * proc_cpu_ns cells of a trace (what plot and export draw).
 *
 * cores = d(proc_cpu_ns) / d(t_mono_ns) between two rows that carry the
 * cell. A different pid, or a counter that goes back, restarts the
 * difference instead of producing a bogus rate.
 */
#ifndef FLINCH_PROC_RATE_H
#define FLINCH_PROC_RATE_H

#include <stdint.h>

#include "trace_reader.h"

struct proc_rate {
    double prev_cpu_ns, prev_pid;
    int64_t prev_t_ns;
};

void proc_rate_init(struct proc_rate *r);

/* Feeds one row; returns 1 with *cores set when a rate is known at this
 * row, 0 otherwise (no cell, first reading, new pid). */
int proc_rate_step(struct proc_rate *r, const struct trace_row *row, double *cores);

#endif
