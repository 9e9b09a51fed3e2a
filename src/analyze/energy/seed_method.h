/*
 * seed_method.h — `flinch analyze --method seed`: the original
 * analyze_trace.py's arithmetic, reproduced exactly so users can compare.
 *
 * First MARK of each label; trapezoid over gpu_power_W of the SAMPLE rows
 * with start <= t <= end (all GPUs' rows together, sorted by time, as the
 * original did); average utilization over every sample but the last; its
 * output lines and error texts.
 */
#ifndef FLINCH_SEED_METHOD_H
#define FLINCH_SEED_METHOD_H

#include <stdio.h>

/* Prints the original's lines to out. An exit code from diag.h. */
int seed_analyze(const char *path, const char *start_label, const char *end_label, FILE *out);

#endif
