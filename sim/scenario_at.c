/*
 * scenario_at.c — a scenario's `at` lines (sim/SCENARIO.md): the time, the
 * GPUs they name, and each key=value applied to a new step of those GPUs'
 * timelines, with its range and message.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

static int push_step(struct sim_timeline *tl, long long t_ms)
{
    if (tl->steps[tl->n - 1].t_ms == t_ms)
        return 0;
    if (tl->n == tl->cap) {
        size_t cap = tl->cap * 2;
        struct sim_step *s = realloc(tl->steps, cap * sizeof *s);
        if (!s)
            return -1;
        tl->steps = s;
        tl->cap = cap;
    }
    tl->steps[tl->n] = tl->steps[tl->n - 1];
    tl->steps[tl->n].t_ms = t_ms;
    tl->n++;
    return 0;
}

/* One `key=value` of an `at` line, applied to reading r. */
static int apply_key(struct parser *p, struct sim_reading *r, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq)
        return scenario_fail(p, "at: expected key=value, got '%s'", kv);
    size_t klen = (size_t)(eq - kv);
    const char *v = eq + 1;
    long long n;
    char *end;
    if (klen == 5 && strncmp(kv, "power", 5) == 0) {
        errno = 0;
        double w = strtod(v, &end);
        if (errno || end == v || *end || !isfinite(w) || w < 0 || w > 100000)
            return scenario_fail(p, "at: power: expected watts 0..100000, got '%s'", v);
        r->power_w = w;
        return 0;
    }
    if (klen == 7 && strncmp(kv, "compute", 7) == 0) {
        if (strcmp(v, "none") == 0)
            r->compute = 0;
        else if (strcmp(v, "child") == 0)
            r->compute = SIM_COMPUTE_CHILD;
        else if (strcmp(v, "tenant") == 0)
            r->compute = SIM_COMPUTE_TENANT;
        else if (strcmp(v, "child+tenant") == 0)
            r->compute = SIM_COMPUTE_CHILD | SIM_COMPUTE_TENANT;
        else
            return scenario_fail(p, "at: compute: expected none, child, tenant or child+tenant, got '%s'", v);
        return 0;
    }
    if (klen == 7 && strncmp(kv, "reasons", 7) == 0) {
        errno = 0;
        unsigned long long m = strtoull(v, &end, 0);
        if (errno || end == v || *end || *v == '-')
            return scenario_fail(p, "at: reasons: expected a bitmask (hex or decimal), got '%s'", v);
        r->reasons = m;
        return 0;
    }
    /* gpm: the GPM keys are ints, -1 meaning "derived" (sim_gpm.c) */
    static const struct { const char *key; long long max; size_t off; int gpm; } keys[] = {
        { "util", 100, offsetof(struct sim_reading, util_pct), 0 },
        { "mem_util", 100, offsetof(struct sim_reading, mem_util_pct), 0 },
        { "clock", 100000, offsetof(struct sim_reading, clock_mhz), 0 },
        { "temp", 200, offsetof(struct sim_reading, temp_c), 0 },
        { "mem_used", (long long)SIM_MEM_TOTAL_MIB, offsetof(struct sim_reading, mem_used_mib), 0 },
        { "pstate", 15, offsetof(struct sim_reading, pstate), 0 },
        { "pcie_tx", 1000000, offsetof(struct sim_reading, pcie_tx_mbps), 0 },
        { "pcie_rx", 1000000, offsetof(struct sim_reading, pcie_rx_mbps), 0 },
        { "sm_active", 100, offsetof(struct sim_reading, sm_active_pct), 1 },
        { "occupancy", 100, offsetof(struct sim_reading, sm_occupancy_pct), 1 },
        { "tensor", 100, offsetof(struct sim_reading, tensor_pct), 1 },
        { "dram_bw", 100, offsetof(struct sim_reading, dram_bw_pct), 1 },
        { "proc_child", 100, offsetof(struct sim_reading, proc_child_pct), 0 },
        { "proc_other", 100, offsetof(struct sim_reading, proc_other_pct), 0 },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (strlen(keys[i].key) != klen || strncmp(kv, keys[i].key, klen) != 0)
            continue;
        if (scenario_parse_ll(v, 0, keys[i].max, &n))
            return scenario_fail(p, "at: %s: expected an integer 0..%lld, got '%s'",
                                 keys[i].key, keys[i].max, v);
        if (keys[i].gpm)
            *(int *)((char *)r + keys[i].off) = (int)n;
        else
            *(unsigned *)((char *)r + keys[i].off) = (unsigned)n;
        return 0;
    }
    return scenario_fail(p, "at: unknown key '%.*s' (power, util, mem_util, clock, temp, mem_used, reasons, pstate, "
                         "pcie_tx, pcie_rx, compute, sm_active, occupancy, tensor, dram_bw, proc_child, proc_other)",
                         (int)klen, kv);
}

/* at T [gpu G|all] key=value... */
int scenario_parse_at(struct parser *p, char **tok, int ntok)
{
    long long t;
    if (ntok < 2 || scenario_int_arg(p, "at", tok[1], 0, 1000000000000LL, &t))
        return ntok < 2 ? scenario_fail(p, "at: expected a time in ms") : -1;
    if (t < p->last_at_ms)
        return scenario_fail(p, "at: time %lld is before the previous at (%lld); at lines must be in time order",
                             t, p->last_at_ms);
    p->last_at_ms = t;
    if (t >= p->max_at_ms) {
        p->max_at_ms = t;
        p->max_at_line = p->line;
    }
    unsigned first = 0, last = SIM_MAX_GPUS - 1;
    int k = 2;
    if (k < ntok && strcmp(tok[k], "gpu") == 0) {
        if (k + 1 >= ntok)
            return scenario_fail(p, "at: gpu: expected an index or 'all'");
        if (strcmp(tok[k + 1], "all") != 0) {
            if (scenario_note_gpu(p, "at: gpu", tok[k + 1], &first))
                return -1;
            last = first;
        }
        k += 2;
    }
    if (k >= ntok)
        return scenario_fail(p, "at: no readings given (key=value...)");
    for (unsigned g = first; g <= last; g++) {
        struct sim_timeline *tl = &p->sc->gpu[g];
        if (push_step(tl, t))
            return scenario_fail(p, "out of memory");
        for (int i = k; i < ntok; i++)
            if (apply_key(p, &tl->steps[tl->n - 1].r, tok[i]))
                return -1;
    }
    return 0;
}
