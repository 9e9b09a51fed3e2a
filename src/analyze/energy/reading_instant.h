/*
 * reading_instant.h — when a row's energy counter reading was taken, for
 * the energy estimator: the driver's own timestamp of the value when the
 * row has one, else the row's stamp.
 *
 * Owns: the choice between the two and the clock conversion.
 */
#ifndef FLINCH_READING_INSTANT_H
#define FLINCH_READING_INSTANT_H

#include <stdint.h>

#include "trace_reader.h"

/* Farthest the driver's timestamp may lie from the row's stamp and still be
 * used: a stall of the call may take a while, a clock step may not. */
#define READING_INSTANT_MAX_NS 1000000000LL

/* The instant (t_mono_ns clock) at which row r's gpu_energy_mJ held. */
int64_t energy_reading_ns(const struct trace_row *r);

#endif
