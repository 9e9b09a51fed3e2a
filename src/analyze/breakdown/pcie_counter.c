/* pcie_counter.c — wrap and reset handling of a PCIe byte counter; see pcie_counter.h. */
#include <math.h>

#include "pcie_counter.h"

#define TWO_32 4294967296.0
/* Timestamps are the recorder's, not the driver's: allow this much beyond
 * the link's rate before calling a delta impossible. */
#define SLACK_BYTES 1048576.0

static int width(const struct pcie_counter *pc, int bits)
{
    if (bits == 32 || bits == 64)
        return bits;
    return pc->big ? 64 : 32;
}

double pcie_counter_add(struct pcie_counter *pc, double raw, double dt_s, int bits, int *event)
{
    *event = 0;
    if (isnan(raw) || raw < 0)
        return NAN;
    if (raw >= TWO_32)
        pc->big = 1;
    if (!pc->have) {
        pc->have = 1;
        pc->last_raw = raw;
        pc->total = 0;
        return 0;
    }
    double delta = raw - pc->last_raw;
    if (delta < 0) {
        double wrapped = raw + TWO_32 - pc->last_raw;
        if (width(pc, bits) == 32 && pc->last_raw < TWO_32 &&
            wrapped <= PCIE_MAX_BPS * fmax(dt_s, 0) + SLACK_BYTES) {
            delta = wrapped;
            pc->wraps++;
            *event = 1;
        } else {
            /* restarted from 0 in the interval: at least `raw` bytes moved */
            delta = raw;
            pc->resets++;
            *event = 2;
        }
    }
    pc->last_raw = raw;
    pc->total += delta;
    return pc->total;
}

int pcie_may_miss_wraps(int bits, double dt_s)
{
    return bits != 64 && dt_s * PCIE_MAX_BPS >= TWO_32;
}
