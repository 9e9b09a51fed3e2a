/*
 * pcie_counter.h — NVML's PCIe byte counters (fields 197 TX, 198 RX, trace
 * columns gpu_pcie_tx_bytes / gpu_pcie_rx_bytes) made into a continuous
 * byte count that the integrators can difference at any instant.
 *
 * Owns: wrap and reset handling of one raw counter. nvml.h says only
 * "PCIe transmit bytes. Value can be wrapped."; the width is the entry's
 * valueType, which the recorder writes into its flinch_fields EVENT row as
 * pcie_bits=32|64 (an older trace says nothing: then a reading at or above
 * 2^32 proves 64 bits, and otherwise 32 is assumed). A reading below the
 * previous one is:
 *   - a wrap, when the counter is 32 bits wide and the bytes it implies
 *     (reading + 2^32 - previous) fit in the interval at PCIE_MAX_BPS: the
 *     interval's bytes are then exact (one wrap; more than one cannot be
 *     seen, see pcie_may_miss_wraps);
 *   - else a reset (driver reload, GPU reset): the counter restarted from 0
 *     somewhere in the interval, so the reading itself is a lower bound of
 *     the bytes moved, and the interval is counted as a reset.
 */
#ifndef FLINCH_PCIE_COUNTER_H
#define FLINCH_PCIE_COUNTER_H

#include <stdint.h>

/* The fastest host link a GPU has per direction: PCIe 6.0 x16 is
 * 64 GT/s x 16 lanes = 128 GB/s raw (PCIe 5.0 x16, H100/H200: 64 GB/s).
 * A counter delta beyond this is not traffic. */
#define PCIE_MAX_BPS 128e9

struct pcie_counter {
    int have;          /* a previous reading exists */
    double last_raw;   /* previous raw reading */
    double total;      /* bytes since the first reading, wraps and resets folded in */
    long wraps, resets;
    int big;           /* a reading >= 2^32 was seen: the counter is 64 bits wide */
};

/* Next raw reading (NAN: missing, returns NAN and changes nothing), dt_s
 * after the previous reading; bits: 32, 64, or 0 when the trace does not
 * say. Returns the continuous count. *event: 0, 1 wrap, 2 reset. */
double pcie_counter_add(struct pcie_counter *pc, double raw, double dt_s, int bits, int *event);

/* Whether an interval of dt_s between readings of a counter this wide can
 * hide a whole extra wrap (32-bit counters at PCIE_MAX_BPS: above 33.5 ms). */
int pcie_may_miss_wraps(int bits, double dt_s);

#endif
