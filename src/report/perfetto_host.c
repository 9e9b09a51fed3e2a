/*
 * perfetto_host.c — one host's trace rows as events (perfetto_export.h's
 * document): the GPU processes' counters and held spans, the host
 * process's CPU counters, MARKs and EVENTs. Fed one row at a time, so
 * that the pass that writes them also feeds the windows' analysis and the
 * clock measure (perfetto_pass.c).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json_escape.h"
#include "labels_seen.h"
#include "perfetto_export.h"
#include "perfetto_host.h"
#include "perfetto_spans.h"
#include "pcie_rate.h"
#include "proc_rate.h"
#include "proc_share.h"
#include "trace_event.h"
#include "trace_limits.h"
#include "trace_reader.h"

/* Counters of a GPU process: trace column, event name, unit (the arg key). */
static const struct counter_def {
    enum trace_column col;
    const char *name, *unit;
} gpu_counters[] = {
    { COL_GPU_POWER_INSTANT_W, "power instant", "W" },
    { COL_GPU_POWER_W, "power 1 s average", "W" },
    { COL_GPU_UTIL_PCT, "utilization", "%" },
    { COL_GPU_MEM_UTIL_PCT, "memory utilization", "%" },
    { COL_GPU_SM_CLOCK_MHZ, "SM clock", "MHz" },
    { COL_GPU_MEM_USED_MIB, "memory used", "MiB" },
    { COL_GPU_TEMP_C, "temperature", "C" },
};
#define NGPU_COUNTERS ((int)(sizeof gpu_counters / sizeof gpu_counters[0]))

/* GPM metrics, each held over the gpu_gpm_span_ns that ends at its row. */
static const struct counter_def gpm_counters[] = {
    { COL_GPU_SM_ACTIVE_PCT, "SM active (GPM)", "%" },
    { COL_GPU_SM_OCCUPANCY_PCT, "SM occupancy (GPM)", "%" },
    { COL_GPU_TENSOR_ACTIVE_PCT, "tensor active (GPM)", "%" },
    { COL_GPU_DRAM_BW_PCT, "DRAM bandwidth (GPM)", "%" },
};
#define NGPM_COUNTERS ((int)(sizeof gpm_counters / sizeof gpm_counters[0]))

struct gpu_track {
    int id;
    double last[NGPU_COUNTERS];  /* last value written, NAN: none yet */
    struct pcie_rate pcie;       /* the "PCIe" counter: TX + RX GB/s over the tick before */
    double last_pcie;
    struct held_counter gpm[NGPM_COUNTERS];
    struct held_counter proc_sm, other_sm;   /* the per-process SM split */
    struct proc_share_log proc;               /* its newest reading only */
};

static void sort_index(FILE *f, int pid)
{
    perfetto_event_start(f);
    fprintf(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
               "\"args\":{\"sort_index\":%d}}", pid, pid);
}

static void host_metadata(FILE *f, const struct host_trace *hs, int h)
{
    char name[HOST_NAME_LEN + 32];
    snprintf(name, sizeof name, "host CPU (%s)", hs[h].name);
    perfetto_metadata(f, "process_name", perfetto_host_pid(h), 0, name);
    sort_index(f, perfetto_host_pid(h));
    perfetto_metadata(f, "thread_name", perfetto_host_pid(h), TID_MARKS, "marks");
    perfetto_metadata(f, "thread_name", perfetto_host_pid(h), TID_WINDOWS, "windows");
    perfetto_metadata(f, "thread_name", perfetto_host_pid(h), TID_EVENTS, "events");
}

/* What the recorder said about GPU id (its flinch_gpu EVENT row, which comes
 * before the GPU's first sample): "NAME, UUID", or "" when it said nothing. */
struct gpu_desc {
    int id;
    char text[128];
};

static void remember_gpu(struct gpu_desc *d, int *n, const char *label)
{
    char v[16], name[64] = "", uuid[48] = "";
    if (*n == TRACE_MAX_GPUS || !trace_event_is(label, EVENT_GPU) ||
        trace_event_value(label, "index", v, sizeof v) != 0)
        return;
    trace_event_value(label, "name", name, sizeof name);
    trace_event_value(label, "uuid", uuid, sizeof uuid);
    d[*n].id = atoi(v);
    snprintf(d[*n].text, sizeof d[*n].text, "%s, %s", name, uuid);
    (*n)++;
}

/* flinch_fields: where the GPU's PCIe counters wrap (pcie_counter.h). */
static void pcie_width(struct gpu_track *t, int n, const char *label)
{
    char v[16], bits[16];
    if (!trace_event_is(label, EVENT_FIELDS) || trace_event_value(label, "gpu", v, sizeof v) != 0 ||
        trace_event_value(label, "pcie_bits", bits, sizeof bits) != 0)
        return;
    for (int i = 0; i < n; i++)
        if (t[i].id == atoi(v))
            t[i].pcie.bits = atoi(bits) == 32 || atoi(bits) == 64 ? atoi(bits) : 0;
}

static struct gpu_track *gpu_track(FILE *f, const struct host_trace *hs, int h,
                                   struct gpu_track *t, int *n, int id,
                                   const struct gpu_desc *d, int nd)
{
    for (int i = 0; i < *n; i++)
        if (t[i].id == id)
            return &t[i];
    if (*n == TRACE_MAX_GPUS || id < 0 || id > TRACE_MAX_GPU_INDEX)
        return NULL;
    struct gpu_track *g = &t[(*n)++];
    g->id = id;
    for (int k = 0; k < NGPU_COUNTERS; k++)
        g->last[k] = NAN;
    pcie_rate_init(&g->pcie);
    g->last_pcie = NAN;
    for (int k = 0; k < NGPM_COUNTERS; k++)
        g->gpm[k] = (struct held_counter){ .name = gpm_counters[k].name,
                                           .unit = gpm_counters[k].unit };
    g->proc_sm = (struct held_counter){ .name = "SM % traced job", .unit = "%" };
    g->other_sm = (struct held_counter){ .name = "SM % other processes", .unit = "%" };
    g->proc = (struct proc_share_log){ 0 };
    char name[HOST_NAME_LEN + 160];
    snprintf(name, sizeof name, "GPU %d (%s)", id, hs[h].name);
    for (int i = 0; i < nd; i++)
        if (d[i].id == id)
            snprintf(name, sizeof name, "GPU %d (%s): %s", id, hs[h].name, d[i].text);
    perfetto_metadata(f, "process_name", perfetto_gpu_pid(h, id), 0, name);
    sort_index(f, perfetto_gpu_pid(h, id));
    return g;
}

/* The row's GPM values over their span, and a new per-process reading over
 * the span proc_share.c gives it; SHIFT_NS takes t_mono_ns to the export
 * timeline. 0, or -1 when out of memory. */
static int held_values(FILE *f, int pid, struct gpu_track *g, const struct trace_row *row,
                       int64_t shift_ns)
{
    double span = row->v[COL_GPU_GPM_SPAN_NS];
    if (!isnan(span) && span > 0) {
        int64_t t1 = row->t_mono_ns + shift_ns, t0 = t1 - (int64_t)span;
        for (int k = 0; k < NGPM_COUNTERS; k++)
            perfetto_span(f, pid, &g->gpm[k], t0, t1, row->v[gpm_counters[k].col]);
    }
    struct proc_reading r;
    int got = proc_share_next(&g->proc, row, &r);
    if (got == 1) {
        perfetto_span(f, pid, &g->proc_sm, r.t0 + shift_ns, r.t1 + shift_ns, r.proc_pct);
        perfetto_span(f, pid, &g->other_sm, r.t0 + shift_ns, r.t1 + shift_ns, r.other_pct);
    }
    return got < 0 ? -1 : 0;
}

/* At the end of a host's trace: the open spans' ends (when WRITE), the
 * memory freed. */
static void close_tracks(FILE *f, int h, struct gpu_track *t, int n, int write)
{
    for (int i = 0; i < n; i++) {
        int pid = perfetto_gpu_pid(h, t[i].id);
        for (int k = 0; write && k < NGPM_COUNTERS; k++)
            perfetto_span_close(f, pid, &t[i].gpm[k]);
        if (write) {
            perfetto_span_close(f, pid, &t[i].proc_sm);
            perfetto_span_close(f, pid, &t[i].other_sm);
        }
        proc_share_free(&t[i].proc);
    }
}

/* A MARK or EVENT row as an instant event on the host process. */
static void instant(FILE *f, int pid, int tid, const char *scope, int64_t ts_ns,
                    const struct trace_row *row)
{
    perfetto_event_start(f);
    fputs("{\"name\":", f);
    json_write_string(f, row->label);
    fprintf(f, ",\"ph\":\"i\",\"s\":\"%s\",\"pid\":%d,\"tid\":%d", scope, pid, tid);
    perfetto_write_ts(f, "ts", ts_ns);
    fprintf(f, ",\"args\":{\"line\":%ld", row->line);
    if (row->has_attrs) {                   /* NVTX's: the reader validated them */
        const struct mark_attrs *a = &row->attrs;
        if (a->edge != MARK_EDGE_NONE) {
            fputs(a->edge == MARK_EDGE_START ? ",\"start\":" : ",\"end\":", f);
            json_write_string(f, a->range_id);
        }
        if (a->domain[0]) {
            fputs(",\"domain\":", f);
            json_write_string(f, a->domain);
        }
        if (a->category[0]) {
            fputs(",\"category\":", f);
            json_write_string(f, a->category);
        }
        if (a->has_payload)                 /* a JSON number as written (64-bit exact) */
            fprintf(f, ",\"payload\":%s", a->payload);
    }
    fputs("}}", f);
}

struct perfetto_host {
    FILE *f;
    const struct host_trace *hs;
    int h;
    int64_t origin_ns;
    const char *start, *end;
    char **labels_seen;
    int *nlabels_seen;
    struct gpu_track tracks[TRACE_MAX_GPUS];
    struct gpu_desc descs[TRACE_MAX_GPUS];
    int ndescs, ntracks, host_gpu, seen_start, seen_end;
    double last_cpu, last_cores;
    struct proc_rate rate;
    /* the first error met, said at the end (after any of the reader's
     * later in the file): 1 a GPU past the limits (bad_gpu), 2 no memory */
    int error, bad_gpu;
};

struct perfetto_host *perfetto_host_begin(FILE *f, const struct host_trace *hs, int h,
                                          int64_t origin_ns, const char *start, const char *end,
                                          char **labels_seen, int *nlabels_seen)
{
    struct perfetto_host *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    *p = (struct perfetto_host){ .f = f, .hs = hs, .h = h, .origin_ns = origin_ns, .start = start,
                                 .end = end, .labels_seen = labels_seen,
                                 .nlabels_seen = nlabels_seen, .host_gpu = -2, .last_cpu = NAN,
                                 .last_cores = NAN };
    proc_rate_init(&p->rate);
    host_metadata(f, hs, h);
    return p;
}

/* A SAMPLE row: its GPU's counters, and the host's from the first GPU's
 * rows or a host-only row (--gpu auto before a GPU joined). */
static void sample(struct perfetto_host *p, const struct trace_row *row, int64_t ts)
{
    FILE *f = p->f;
    int h = p->h;
    double cores;
    int host_only = trace_row_host_only(row);
    if (!host_only) {
        int id = row->gpu < 0 ? 0 : row->gpu;
        struct gpu_track *g = gpu_track(f, p->hs, h, p->tracks, &p->ntracks, id, p->descs, p->ndescs);
        if (!g) {
            p->error = 1;
            p->bad_gpu = id;
            return;
        }
        if (held_values(f, perfetto_gpu_pid(h, g->id), g, row, ts - row->t_mono_ns) != 0) {
            p->error = 2;
            return;
        }
        for (int k = 0; k < NGPU_COUNTERS; k++) {
            double v = row->v[gpu_counters[k].col];
            if (isnan(v) || v == g->last[k])
                continue;
            perfetto_counter(f, perfetto_gpu_pid(h, g->id), gpu_counters[k].name, gpu_counters[k].unit,
                             ts, v);
            g->last[k] = v;
        }
        double gbps;
        if (pcie_rate_step(&g->pcie, row, &gbps) && gbps != g->last_pcie) {
            perfetto_counter(f, perfetto_gpu_pid(h, g->id), "PCIe to+from host", "GB/s", ts, gbps);
            g->last_pcie = gbps;
        }
        if (p->host_gpu == -2)
            p->host_gpu = row->gpu;
    }
    if (!host_only && row->gpu != p->host_gpu)
        return;
    double cpu = row->v[COL_HOST_CPU_BUSY_PCT];
    if (!isnan(cpu) && cpu != p->last_cpu) {
        perfetto_counter(f, perfetto_host_pid(h), "CPU busy", "%", ts, cpu);
        p->last_cpu = cpu;
    }
    if (proc_rate_step(&p->rate, row, &cores) && cores != p->last_cores) {
        perfetto_counter(f, perfetto_host_pid(h), "process CPU", "cores", ts, cores);
        p->last_cores = cores;
    }
}

void perfetto_host_row(struct perfetto_host *p, const struct trace_row *row)
{
    if (p->error)
        return;
    int64_t ts = host_shared_ns(&p->hs[p->h], row->t_mono_ns) - p->origin_ns;
    if (row->type == TRACE_MARK) {
        p->seen_start |= p->start && strcmp(row->label, p->start) == 0;
        p->seen_end |= p->end && strcmp(row->label, p->end) == 0;
        if (p->labels_seen)
            labels_seen_add(p->labels_seen, p->nlabels_seen, row->label);
        instant(p->f, perfetto_host_pid(p->h), TID_MARKS, "p", ts, row);
    } else if (row->type == TRACE_EVENT) {
        remember_gpu(p->descs, &p->ndescs, row->label);
        pcie_width(p->tracks, p->ntracks, row->label);
        instant(p->f, perfetto_host_pid(p->h), TID_EVENTS, "t", ts, row);
    } else {
        sample(p, row, ts);
    }
}

int perfetto_host_end(struct perfetto_host *p, int reader_ok, int *has_start_end)
{
    const char *path = p->hs[p->h].path;
    if (reader_ok && p->error == 1)
        diag_error("%s: gpu_index %d: at most %d GPUs numbered 0..%d", path, p->bad_gpu,
                   TRACE_MAX_GPUS, TRACE_MAX_GPU_INDEX);
    else if (reader_ok && p->error == 2)
        diag_error("%s: out of memory", path);
    int ok = reader_ok && !p->error;
    close_tracks(p->f, p->h, p->tracks, p->ntracks, ok);
    *has_start_end = p->seen_start && p->seen_end;
    free(p);
    return ok ? 0 : EXIT_USAGE;
}
