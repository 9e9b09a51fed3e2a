/*
 * trace_limits.h — the limits every part of flinch agrees on for one trace.
 *
 * Owns: how many GPUs one trace may hold and how large a gpu_index may be.
 * The recorder writes at most TRACE_MAX_GPUS GPUs per host (NVML hosts have
 * 8, NVSwitch systems 16; 64 leaves room), and analyze, plot and export
 * accept the same: a trace flinch wrote is a trace flinch reads. gpu_index
 * is NVML's index (0..count-1), so any index over TRACE_MAX_GPU_INDEX is
 * not from a GPU and is refused by the readers.
 */
#ifndef FLINCH_TRACE_LIMITS_H
#define FLINCH_TRACE_LIMITS_H

#define TRACE_MAX_GPUS 64         /* GPUs in one host's trace */
#define TRACE_MAX_GPU_INDEX 1023  /* largest gpu_index cell accepted */

#endif
