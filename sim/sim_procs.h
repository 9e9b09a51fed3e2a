/*
 * sim_procs.h — the processes of the program that loaded the simulated
 * NVML, for entry points that report per-process data (compute contexts,
 * per-process utilization).
 *
 * Owns: finding the loading process's descendants through the ppid links
 * of /proc. The simulator runs inside the recorder, so "the traced
 * command's processes" are the recorder's descendants: the command it
 * wraps and everything that command forks.
 */
#ifndef FLINCH_SIM_PROCS_H
#define FLINCH_SIM_PROCS_H

#pragma GCC visibility push(hidden)

/* Processes /proc is scanned for at most; a bigger host is cut short. */
#define SIM_PROCS_SCAN_MAX 32768

/* The pids of every live descendant of this process (not itself), at most
 * max of them, in /proc's order; returns how many. 0 when there are none
 * or /proc cannot be read. */
int sim_descendant_pids(unsigned *pids, int max);

#pragma GCC visibility pop

#endif
