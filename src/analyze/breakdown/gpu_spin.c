/* gpu_spin.c — see gpu_spin.h. */
#include <math.h>

#include "gpu_spin.h"

const char gpu_spin_reason[] = "gpu-spin";

/* The mean utilization read inside (a, b] ms, NAN when none. */
static double util_in(const struct gpu_sample *smp, long n, double t0, double a, double b)
{
    double sum = 0;
    long k = 0;
    for (long i = 0; i < n; i++) {
        double x = ((double)smp[i].t - t0) / 1e6;
        if (x > a && x <= b && !isnan(smp[i].util_pct)) {
            sum += smp[i].util_pct;
            k++;
        }
    }
    return k ? sum / (double)k : NAN;
}

void gpu_spin_mark(const struct gpu_sample *smp, long n, double t0, double d, double util_lag_ms,
                   struct timeline *tl)
{
    for (int p = 0; p < tl->n; p++) {
        /* a busy stretch, or one the SMs' idleness already outvoted */
        if (tl->st[p] != ST_BUSY && tl->st[p] != ST_IDLE)
            continue;
        double lo = tl->x[p], hi = tl->x[p + 1];
        int spans = 0, spins = 0;
        for (long i = 0; i < n; i++) {
            const struct gpu_sample *s = &smp[i];
            if (!(s->gpm_span_ms > 0) || isnan(s->sm_active_pct))
                continue;
            double end = ((double)s->t - t0) / 1e6, start = end - s->gpm_span_ms;
            /* whole inside the window, and inside this stretch for the most part */
            if (start < 0 || end > d || fmin(end, hi) - fmax(start, lo) < s->gpm_span_ms / 2)
                continue;
            spans++;
            /* a utilization reading is the mean over its period ending at
             * its last refresh, itself up to a period before the stamp: the
             * readings wholly about the span come 2 periods after its start
             * and up to one after its end */
            double ua = start + 2 * util_lag_ms, ub = end + util_lag_ms;
            double u = util_in(smp, n, t0, ua < ub ? ua : start + util_lag_ms, ub);
            if (isnan(u))
                u = util_in(smp, n, t0, start, end);
            spins += u >= SPIN_UTIL_PCT && s->sm_active_pct <= SPIN_SM_ACTIVE_PCT
                     && !isnan(s->dram_bw_pct) && s->dram_bw_pct <= SPIN_DRAM_BW_PCT;
        }
        if (spans > 0 && spins == spans)
            tl->st[p] = ST_SPIN;
    }
}
