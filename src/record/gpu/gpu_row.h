/*
 * gpu_row.h — which CSV column each GPU reading goes to.
 *
 * Owns the mapping from a gpu_reading (gpu_sampler.h) to the cells of its
 * SAMPLE row: a reading the GPU did not give leaves its cell empty, never 0.
 */
#ifndef FLINCH_GPU_ROW_H
#define FLINCH_GPU_ROW_H

#include "gpu_sampler.h"
#include "trace_row.h"

/* Stamps ROW with the reading's times and DEV's index, and fills its cells. */
void gpu_row_fill(struct trace_row *row, const struct gpu_dev *dev, const struct gpu_reading *g);

#endif
