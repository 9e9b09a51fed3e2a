/* pcie_rate.c — PCIe traffic rate between rows; see pcie_rate.h. */
#include <math.h>
#include <string.h>

#include "pcie_rate.h"

void pcie_rate_init(struct pcie_rate *r)
{
    memset(r, 0, sizeof *r);
    r->prev_t_ns = INT64_MIN;
}

int pcie_rate_step(struct pcie_rate *r, const struct trace_row *row, double *gbps)
{
    double raw[2] = { row->v[COL_GPU_PCIE_TX_BYTES], row->v[COL_GPU_PCIE_RX_BYTES] };
    if (isnan(raw[0]) && isnan(raw[1]))
        return 0;
    double dt = r->prev_t_ns == INT64_MIN ? 0 : (double)(row->t_mono_ns - r->prev_t_ns) / 1e9;
    double bytes = 0;
    int reset = 0;
    for (int d = 0; d < 2; d++) {
        int ev;
        double v = pcie_counter_add(&r->c[d], raw[d], dt, r->bits, &ev);
        bytes += isnan(v) ? 0 : v;
        reset |= ev == 2;
    }
    int known = r->prev_t_ns != INT64_MIN && dt > 0 && !reset;
    if (known)
        *gbps = (bytes - r->prev_bytes) / dt / 1e9;
    r->prev_t_ns = row->t_mono_ns;
    r->prev_bytes = bytes;
    return known;
}
