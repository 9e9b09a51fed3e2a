/*
 * scenario.c — parses a scenario file (sim/SCENARIO.md) into a sim_scenario.
 *
 * Owns: the directive syntax, value ranges and error messages. Every `at`
 * line is applied to all SIM_MAX_GPUS timelines it names as it is read, so
 * `gpus N` may come anywhere; references to a GPU beyond N are reported at
 * the end with the line that made them. A bad line stops the parse with
 * "FILE:LINE: message" — a test scenario with a typo must fail loudly, not
 * play something else. The `at` lines themselves are scenario_at.c's.
 */
#include "scenario.h"
#include "scenario_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 32
#define MAX_LINE 1024

static const char *const func_names[SIM_FN_N] = {
    "nvmlDeviceGetCount", "nvmlDeviceGetHandleByIndex", "nvmlDeviceGetName",
    "nvmlDeviceGetPowerUsage", "nvmlDeviceGetUtilizationRates",
    "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetClockInfo",
    "nvmlDeviceGetTemperature", "nvmlDeviceGetTotalEnergyConsumption",
    "nvmlDeviceGetFieldValues", "nvmlDeviceGetEnforcedPowerLimit",
    "nvmlDeviceGetCurrentClocksEventReasons",
    "nvmlDeviceGetCurrentClocksThrottleReasons", "nvmlDeviceGetTemperatureV",
    "nvmlDeviceGetPerformanceState", "nvmlDeviceGetUUID", "nvmlDeviceGetPciInfo_v3",
    "nvmlDeviceGetPersistenceMode", "nvmlDeviceGetComputeMode", "nvmlDeviceGetMigMode",
    "nvmlDeviceGetComputeRunningProcesses",
    "nvmlGpmQueryDeviceSupport", "nvmlGpmSampleGet", "nvmlGpmMetricsGet",
    "nvmlDeviceGetProcessUtilization", "nvmlDeviceGetMaxClockInfo",
};

int sim_func_lookup(const char *name)
{
    size_t len = strlen(name);
    if (len > 3 && (strcmp(name + len - 3, "_v2") == 0 || strcmp(name + len - 3, "_v3") == 0))
        len -= 3;
    for (int i = 0; i < SIM_FN_N; i++)
        if (strlen(func_names[i]) == len && strncmp(func_names[i], name, len) == 0)
            return i;
    return -1;
}

const char *sim_func_name(int func)
{
    return func >= 0 && func < SIM_FN_N ? func_names[func] : "?";
}

int scenario_fail(struct parser *p, const char *fmt, ...)
{
    int n = snprintf(p->err, p->errlen, "%s:%d: ", p->file, p->line);
    if (n < 0 || (size_t)n >= p->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Whole decimal integer in [min, max]. */
int scenario_parse_ll(const char *s, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int scenario_int_arg(struct parser *p, const char *what, const char *s,
                     long long min, long long max, long long *out)
{
    if (scenario_parse_ll(s, min, max, out) == 0)
        return 0;
    return scenario_fail(p, "%s: expected an integer %lld..%lld, got '%s'", what, min, max, s);
}

int scenario_note_gpu(struct parser *p, const char *what, const char *s, unsigned *gpu)
{
    long long g;
    if (scenario_int_arg(p, what, s, 0, SIM_MAX_GPUS - 1, &g))
        return -1;
    *gpu = (unsigned)g;
    if (p->max_gpu_line == 0 || *gpu > p->max_gpu) {
        p->max_gpu = *gpu;
        p->max_gpu_line = p->line;
    }
    return 0;
}

static int parse_unsupported(struct parser *p, const char *what, const char *target,
                             long long after, int rc, int gpu)
{
    struct sim_scenario *sc = p->sc;
    if (sc->n_unsupported == SIM_MAX_FAULTS)
        return scenario_fail(p, "%s: more than %d faults", what, SIM_MAX_FAULTS);
    struct sim_unsupported *u = &sc->unsupported[sc->n_unsupported];
    u->after = after;
    u->calls = 0;
    u->rc = rc;
    u->gpu = gpu;
    if (strncmp(target, "field:", 6) == 0) {
        long long id;
        if (scenario_parse_ll(target + 6, 0, 0xffffffffLL, &id))
            return scenario_fail(p, "%s: bad field id in '%s'", what, target);
        u->func = -1;
        u->field_id = (unsigned)id;
    } else {
        u->func = sim_func_lookup(target);
        if (u->func < 0)
            return scenario_fail(p, "%s: unknown function '%s'", what, target);
        u->field_id = 0;
    }
    sc->n_unsupported++;
    return 0;
}

static int parse_directive(struct parser *p, char *line, char **tok, int ntok)
{
    struct sim_scenario *sc = p->sc;
    const char *d = tok[0];
    long long n;

    if (strcmp(d, "at") == 0)
        return scenario_parse_at(p, tok, ntok);
    if (strcmp(d, "name") == 0) {
        const char *rest = strstr(line, "name") + 4;
        rest += strspn(rest, " \t");
        size_t len = strlen(rest);
        while (len && (rest[len - 1] == ' ' || rest[len - 1] == '\t'))
            len--;
        if (len == 0 || len >= SIM_NAME_MAX)
            return scenario_fail(p, "name: expected 1..%d characters", SIM_NAME_MAX - 1);
        memcpy(sc->name, rest, len);
        sc->name[len] = 0;
        return 0;
    }
    if (strcmp(d, "gpu_name") == 0) {
        unsigned g;
        if (ntok < 3 || scenario_note_gpu(p, "gpu_name", tok[1], &g))
            return ntok < 3 ? scenario_fail(p, "gpu_name: expected G TEXT") : -1;
        const char *rest = strstr(line, tok[1]) + strlen(tok[1]);
        rest += strspn(rest, " \t");
        size_t len = strcspn(rest, "#");
        while (len && (rest[len - 1] == ' ' || rest[len - 1] == '\t'))
            len--;
        if (len == 0 || len >= SIM_NAME_MAX)
            return scenario_fail(p, "gpu_name: expected 1..%d characters", SIM_NAME_MAX - 1);
        memcpy(sc->gpu_name[g], rest, len);
        sc->gpu_name[g][len] = 0;
        return 0;
    }
    if (strcmp(d, "persistence") == 0 || strcmp(d, "mig") == 0) {
        if (ntok != 2 || (strcmp(tok[1], "on") != 0 && strcmp(tok[1], "off") != 0))
            return scenario_fail(p, "%s: expected 'on' or 'off'", d);
        if (strcmp(d, "mig") == 0)
            sc->mig_on = strcmp(tok[1], "on") == 0;
        else
            sc->persistence_off = strcmp(tok[1], "off") == 0;
        return 0;
    }
    if (strcmp(d, "max_clock_MHz") == 0) {
        unsigned g = 0;
        if (ntok != 2 && !(ntok == 4 && strcmp(tok[2], "gpu") == 0))
            return scenario_fail(p, "max_clock_MHz: expected N [gpu G]");
        if (scenario_int_arg(p, d, tok[1], 1, 100000, &n))
            return -1;
        if (ntok == 4 && scenario_note_gpu(p, "max_clock_MHz: gpu", tok[3], &g))
            return -1;
        for (unsigned i = ntok == 4 ? g : 0; i < (ntok == 4 ? g + 1 : SIM_MAX_GPUS); i++)
            sc->max_clock_mhz[i] = (unsigned)n;
        return 0;
    }
    if (strcmp(d, "pid_namespace") == 0) {
        if (ntok != 2 || (strcmp(tok[1], "same") != 0 && strcmp(tok[1], "foreign") != 0))
            return scenario_fail(p, "pid_namespace: expected 'same' or 'foreign'");
        sc->foreign_pids = strcmp(tok[1], "foreign") == 0;
        return 0;
    }
    if (strcmp(d, "gpm") == 0) {
        unsigned g = 0;
        if (!(ntok == 2 || (ntok == 4 && strcmp(tok[2], "gpu") == 0)) ||
            (strcmp(tok[1], "on") != 0 && strcmp(tok[1], "off") != 0))
            return scenario_fail(p, "gpm: expected 'on' or 'off' [gpu G]");
        if (ntok == 4 && scenario_note_gpu(p, "gpm: gpu", tok[3], &g))
            return -1;
        for (unsigned i = ntok == 4 ? g : 0; i < (ntok == 4 ? g + 1 : SIM_MAX_GPUS); i++)
            sc->gpm_off[i] = strcmp(tok[1], "off") == 0;
        return 0;
    }
    if (strcmp(d, "no_driver") == 0 || strcmp(d, "no_gpus") == 0) {
        if (ntok != 1)
            return scenario_fail(p, "%s: takes no value", d);
        if (strcmp(d, "no_driver") == 0)
            sc->no_driver = 1;
        else
            sc->no_gpus = 1;
        return 0;
    }
    if (strcmp(d, "power_readout") == 0) {
        if (ntok == 2 && strcmp(tok[1], "average") == 0)
            sc->power_instant = 0;
        else if (ntok == 2 && strcmp(tok[1], "instant") == 0)
            sc->power_instant = 1;
        else
            return scenario_fail(p, "power_readout: expected 'average' or 'instant'");
        return 0;
    }
    if (strcmp(d, "preset") == 0) {
        if (ntok != 2 || sensor_preset_apply(sc, tok[1]) != 0)
            return scenario_fail(p, "preset: expected 'ideal' or 'h100'");
        return 0;
    }
    if (strcmp(d, "sensor_fault") == 0) {
        static const char *const kinds[] = { "counter_stuck", "counter_reset", "counter_jump",
                                             "instant_frozen" };
        long long t0, t1, v = 0;
        int kind = -1;
        for (int i = 0; ntok >= 4 && i < 4; i++)
            if (strcmp(tok[1], kinds[i]) == 0)
                kind = i;
        if (kind < 0 || ntok > 5 || (kind == SIM_FAULT_COUNTER_JUMP) != (ntok == 5))
            return scenario_fail(p, "sensor_fault: expected counter_stuck|counter_reset|instant_frozen T0 T1, "
                                 "or counter_jump T0 T1 MJ");
        if (scenario_int_arg(p, d, tok[2], 0, 1000000000000LL, &t0)
            || scenario_int_arg(p, d, tok[3], t0, 1000000000000LL, &t1)
            || (ntok == 5 && scenario_int_arg(p, d, tok[4], 0, 1000000000000LL, &v)))
            return -1;
        if (sc->n_sensor_faults == SIM_MAX_SENSOR_FAULTS)
            return scenario_fail(p, "sensor_fault: more than %d", SIM_MAX_SENSOR_FAULTS);
        sc->sensor_faults[sc->n_sensor_faults++] =
            (struct sim_sensor_fault){ kind, t0 * 1000000, t1 * 1000000, (double)v };
        return 0;
    }
    if (strcmp(d, "sensor_seed") == 0) {
        if (ntok != 2 || scenario_parse_ll(tok[1], 0, 1000000000000000000LL, &n))
            return scenario_fail(p, "sensor_seed: expected an integer 0..1e18");
        sc->sensors.seed = (unsigned long long)n;
        sc->sensors.have_seed = 1;
        return 0;
    }
    /* Sensor timing in microseconds (sensor_model.c). */
    struct sim_sensors *ss = &sc->sensors;
    const struct { const char *name; long long *field; unsigned phase_bit; } us[] = {
        { "energy_jitter_us", &ss->energy_jitter_ns, 0 },
        { "energy_phase_us", &ss->energy_phase_ns, SIM_PHASE_ENERGY },
        { "instant_window_us", &ss->instant_window_ns, 0 },
        { "instant_period_us", &ss->instant_period_ns, 0 },
        { "instant_phase_us", &ss->instant_phase_ns, SIM_PHASE_INSTANT },
        { "average_period_us", &ss->average_period_ns, 0 },
        { "average_phase_us", &ss->average_phase_ns, SIM_PHASE_AVERAGE },
        { "util_period_us", &ss->util_period_ns, 0 },
        { "util_phase_us", &ss->util_phase_ns, SIM_PHASE_UTIL },
    };
    if (strcmp(d, "event_lag_us") == 0) {
        if (ntok != 2)
            return scenario_fail(p, "%s: expected one value", d);
        if (scenario_int_arg(p, d, tok[1], 0, 50000, &n))
            return -1;
        ss->event_lag_ns = n * 1000;
        return 0;
    }
    for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
        if (strcmp(d, us[i].name) != 0)
            continue;
        if (ntok != 2)
            return scenario_fail(p, "%s: expected one value", d);
        if (scenario_int_arg(p, d, tok[1], 0, 3600000000LL, &n))
            return -1;
        *us[i].field = n * 1000;
        ss->phase_set |= us[i].phase_bit;
        return 0;
    }
    if (strcmp(d, "unsupported") == 0) {
        if (ntok != 2)
            return scenario_fail(p, "unsupported: expected one function name or field:ID");
        return parse_unsupported(p, d, tok[1], 0, 3, -1);
    }
    if (strcmp(d, "error") == 0) {
        long long code;
        unsigned g = 0;
        if (ntok != 3 && !(ntok == 5 && strcmp(tok[3], "gpu") == 0))
            return scenario_fail(p, "error: expected CODE FUNC [gpu G]");
        if (scenario_int_arg(p, d, tok[1], 1, 999, &code))
            return -1;
        if (ntok == 5 && scenario_note_gpu(p, "error: gpu", tok[4], &g))
            return -1;
        return parse_unsupported(p, d, tok[2], 0, (int)code, ntok == 5 ? (int)g : -1);
    }
    if (strcmp(d, "unsupported_after") == 0) {
        if (ntok != 3)
            return scenario_fail(p, "unsupported_after: expected N FUNC");
        if (scenario_int_arg(p, d, tok[1], 0, 1000000000000LL, &n))
            return -1;
        return parse_unsupported(p, d, tok[2], n, 3, -1);
    }
    if (strcmp(d, "lost_after") == 0) {
        unsigned g = 0;
        if (ntok != 2 && !(ntok == 4 && strcmp(tok[2], "gpu") == 0))
            return scenario_fail(p, "lost_after: expected N [gpu G]");
        if (scenario_int_arg(p, d, tok[1], 0, 1000000000000LL, &n))
            return -1;
        if (ntok == 4 && scenario_note_gpu(p, "lost_after: gpu", tok[3], &g))
            return -1;
        sc->lost_after[g] = n;
        return 0;
    }
    if (strcmp(d, "stall_ms") == 0) {
        long long q;
        unsigned g = 0;
        if (!(ntok == 4 || (ntok == 6 && strcmp(tok[4], "gpu") == 0)) ||
            strcmp(tok[2], "at_query") != 0)
            return scenario_fail(p, "stall_ms: expected M at_query N [gpu G]");
        if (scenario_int_arg(p, d, tok[1], 0, 600000, &n) ||
            scenario_int_arg(p, "stall_ms: at_query", tok[3], 1, 1000000000000LL, &q))
            return -1;
        if (ntok == 6 && scenario_note_gpu(p, "stall_ms: gpu", tok[5], &g))
            return -1;
        if (sc->n_stalls == SIM_MAX_FAULTS)
            return scenario_fail(p, "stall_ms: more than %d stalls", SIM_MAX_FAULTS);
        sc->stalls[sc->n_stalls++] = (struct sim_stall){ g, q, n };
        return 0;
    }

    /* The rest take one integer. */
    static const struct { const char *name; long long min, max; } ints[] = {
        { "gpus", 1, SIM_MAX_GPUS }, { "average_window_ms", 1, 3600000 },
        { "energy_update_ms", 0, 3600000 }, { "energy_base_mJ", 0, 1000000000000000LL },
        { "latency_us", 0, 10000000 }, { "power_limit_W", 0, 100000 },
        { "period_ms", 0, 1000000000000LL }, { "tenant_pid", 1, 4194304 },
        { "gpm_refresh_ms", 0, 3600000 },
        { "pcie_counter_bits", 32, 64 }, { "pcie_base_bytes", 0, 4000000000000000000LL },
        { "pcie_reset_ms", 0, 1000000000000LL },
        { "proc_util_period_us", 1000, 10000000 },
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        if (strcmp(d, ints[i].name) != 0)
            continue;
        if (ntok != 2)
            return scenario_fail(p, "%s: expected one value", d);
        if (scenario_int_arg(p, d, tok[1], ints[i].min, ints[i].max, &n))
            return -1;
        switch (i) {
        case 0: sc->gpus = (unsigned)n; break;
        case 1: sc->average_window_ms = n; break;
        case 2: sc->energy_update_ms = n; break;
        case 3: sc->energy_base_mj = (unsigned long long)n; break;
        case 4: sc->latency_us = n; break;
        case 5: sc->power_limit_w = (unsigned)n; break;
        case 6: sc->period_ms = n; break;
        case 7: sc->tenant_pid = (unsigned)n; break;
        case 8: sc->gpm_refresh_ms = n; break;
        case 9:
            if (n != 32 && n != 64)
                return scenario_fail(p, "pcie_counter_bits: expected 32 or 64");
            sc->pcie_bits = (int)n;
            break;
        case 10: sc->pcie_base_bytes = (unsigned long long)n; break;
        case 11: sc->pcie_reset_ms = n; break;
        default: sc->proc_util_period_ns = n * 1000; break;
        }
        return 0;
    }
    return scenario_fail(p, "unknown directive '%s'", d);
}

static int init_defaults(struct sim_scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->gpus = 1;
    sc->preset = "ideal";
    strcpy(sc->name, "Simulated H200");
    sc->average_window_ms = 1000;
    sc->energy_base_mj = 1000000;
    sc->power_limit_w = 700;
    sc->tenant_pid = 1;
    sc->gpm_refresh_ms = 100;
    sc->pcie_bits = 64;
    sc->pcie_reset_ms = -1;
    const struct sim_reading idle = { 60.0, 0, 0, 345, 35, 512, 0x1, 0, 0, 0, 0, -1, -1, -1, -1, 0, 0 };
    sc->proc_util_period_ns = 166667000LL;  /* NVML: between 1/6 s and 1 s */
    for (unsigned g = 0; g < SIM_MAX_GPUS; g++) {
        sc->lost_after[g] = -1;
        sc->max_clock_mhz[g] = SIM_MAX_CLOCK_MHZ;
        struct sim_timeline *tl = &sc->gpu[g];
        tl->cap = 8;
        tl->steps = malloc(tl->cap * sizeof *tl->steps);
        if (!tl->steps)
            return -1;
        tl->n = 1;
        tl->steps[0] = (struct sim_step){ 0, idle, 0 };
    }
    return 0;
}

static int parse_lines(struct parser *p, const char *text)
{
    char line[MAX_LINE];
    const char *s = text;
    while (*s) {
        size_t len = strcspn(s, "\n");
        p->line++;
        if (len >= sizeof line)
            return scenario_fail(p, "line longer than %d bytes", MAX_LINE - 1);
        memcpy(line, s, len);
        line[len] = 0;
        s += len + (s[len] == '\n');
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char copy[MAX_LINE];
        memcpy(copy, line, sizeof copy);
        char *tok[MAX_TOKENS], *save = NULL;
        int ntok = 0;
        for (char *t = strtok_r(copy, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
            if (ntok == MAX_TOKENS)
                return scenario_fail(p, "more than %d words", MAX_TOKENS);
            tok[ntok++] = t;
        }
        if (ntok && parse_directive(p, line, tok, ntok))
            return -1;
    }
    return 0;
}

/* Checks that need the whole file: GPU references against `gpus`, and
 * every step inside one period when the timeline repeats. */
static int check_whole(struct parser *p)
{
    struct sim_scenario *sc = p->sc;
    if (p->max_gpu_line && p->max_gpu >= sc->gpus) {
        p->line = p->max_gpu_line;
        return scenario_fail(p, "gpu %u: no such GPU (gpus %u)", p->max_gpu, sc->gpus);
    }
    if (sc->sensors.energy_jitter_ns > 0 &&
        2 * sc->sensors.energy_jitter_ns >= sc->energy_update_ms * 1000000LL) {
        p->line = 0;
        return scenario_fail(p, "energy_jitter_us must be under half of energy_update_ms");
    }
    if (sc->period_ms > 0 && p->max_at_line && p->max_at_ms >= sc->period_ms) {
        p->line = p->max_at_line;
        return scenario_fail(p, "at %lld: not inside period_ms %lld", p->max_at_ms, sc->period_ms);
    }
    return 0;
}

int scenario_parse(struct sim_scenario *sc, const char *text, const char *file,
                   const char *preset, char *err, size_t errlen)
{
    struct parser p = { .sc = sc, .file = file, .err = err, .errlen = errlen };
    if (init_defaults(sc)) {
        scenario_free(sc);
        return scenario_fail(&p, "out of memory");
    }
    if (preset && sensor_preset_apply(sc, preset) != 0) {
        scenario_free(sc);
        snprintf(err, errlen, "FLINCH_SIM_PRESET: expected 'ideal' or 'h100', got '%s'", preset);
        return -1;
    }
    if (parse_lines(&p, text) || check_whole(&p)) {
        scenario_free(sc);
        return -1;
    }
    for (unsigned g = 0; g < SIM_MAX_GPUS; g++)
        timeline_finish(&sc->gpu[g]);
    return 0;
}

void scenario_free(struct sim_scenario *sc)
{
    for (unsigned g = 0; g < SIM_MAX_GPUS; g++) {
        free(sc->gpu[g].steps);
        sc->gpu[g].steps = NULL;
        sc->gpu[g].n = sc->gpu[g].cap = 0;
    }
}
