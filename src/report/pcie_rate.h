/*
 * pcie_rate.h — a GPU's host<->GPU traffic in GB/s (TX + RX) from
 * consecutive rows of its PCIe byte counters (what export draws), with the
 * wraps and resets of pcie_counter.h handled: a reset row gives no rate.
 */
#ifndef FLINCH_PCIE_RATE_H
#define FLINCH_PCIE_RATE_H

#include <stdint.h>

#include "pcie_counter.h"
#include "trace_reader.h"

struct pcie_rate {
    struct pcie_counter c[2];  /* TX, RX */
    int64_t prev_t_ns;         /* INT64_MIN: no reading yet */
    double prev_bytes;
    int bits;                  /* the counters' width (flinch_fields pcie_bits), 0 unknown */
};

void pcie_rate_init(struct pcie_rate *r);

/* Feeds one row of the GPU; returns 1 with *gbps set when a rate over the
 * interval since its previous reading is known, 0 otherwise. */
int pcie_rate_step(struct pcie_rate *r, const struct trace_row *row, double *gbps);

#endif
