/* perfetto_export.c — see perfetto_export.h. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown.h"
#include "diag.h"
#include "json_escape.h"
#include "labels_seen.h"
#include "num_format.h"
#include "perfetto_export.h"
#include "perfetto_spans.h"
#include "pcie_rate.h"
#include "proc_rate.h"
#include "proc_share.h"
#include "slow_clock.h"
#include "trace_event.h"
#include "trace_limits.h"
#include "trace_reader.h"

#define TID_COUNTERS 0
#define TID_MARKS 1
#define TID_WINDOWS 2
#define TID_EVENTS 3

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

/* One comma before every event but the first of the document. */
static int events_written;

void perfetto_event_start(FILE *f)
{
    fputs(events_written++ ? ",\n" : "\n", f);
}

void perfetto_begin(FILE *f)
{
    events_written = 0;
    fputs("{\"traceEvents\":[", f);
}

void perfetto_end(FILE *f)
{
    fputs("\n],\"displayTimeUnit\":\"ms\"}\n", f);
}

static int host_pid(int h) { return 1000 * (h + 1); }
/* GPU N of host h is pid 1000 (h+1) + 1 + N, as always, for N <= 998; the
 * rare higher index (up to TRACE_MAX_GPU_INDEX) gets a pid above every
 * host's range instead of colliding with the next host. */
static int gpu_pid(int h, int gpu)
{
    return gpu <= 998 ? 1000 * (h + 1) + 1 + gpu : 1000000 + 1024 * h + gpu;
}

/* Microseconds with exactly 3 decimals, from integer nanoseconds (a few
 * per sample: num_format, not fprintf). */
void perfetto_write_ts(FILE *f, const char *key, int64_t ns)
{
    char num[32];
    size_t n = 0;
    if (ns < 0)
        num[n++] = '-';
    n += num_format_milli(num + n, ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns);
    fputs(",\"", f);
    fputs(key, f);
    fputs("\":", f);
    fwrite(num, 1, n, f);
}

void perfetto_write_num(FILE *f, double v)
{
    char num[32];
    if (isfinite(v))
        fwrite(num, 1, num_format_g10(num, sizeof num, v), f);
    else
        fputs("null", f);
}

static void write_num(FILE *f, double v) { perfetto_write_num(f, v); }

void perfetto_metadata(FILE *f, const char *what, int pid, int tid, const char *name)
{
    perfetto_event_start(f);
    fprintf(f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", what, pid,
            tid);
    json_write_string(f, name);
    fputs("}}", f);
}

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
    perfetto_metadata(f, "process_name", host_pid(h), 0, name);
    sort_index(f, host_pid(h));
    perfetto_metadata(f, "thread_name", host_pid(h), TID_MARKS, "marks");
    perfetto_metadata(f, "thread_name", host_pid(h), TID_WINDOWS, "windows");
    perfetto_metadata(f, "thread_name", host_pid(h), TID_EVENTS, "events");
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
    if (*n == TRACE_MAX_GPUS || id < 0 || id > TRACE_MAX_GPU_INDEX) {
        diag_error("%s: gpu_index %d: at most %d GPUs numbered 0..%d", hs[h].path, id,
                   TRACE_MAX_GPUS, TRACE_MAX_GPU_INDEX);
        return NULL;
    }
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
    perfetto_metadata(f, "process_name", gpu_pid(h, id), 0, name);
    sort_index(f, gpu_pid(h, id));
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
        int pid = gpu_pid(h, t[i].id);
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

int perfetto_write_host(FILE *f, const struct host_trace *hs, int h, int64_t origin_ns,
                        const char *start, const char *end, int *has_start_end,
                        char **labels_seen, int *nlabels_seen)
{
    struct trace_reader tr;
    if (trace_reader_open(&tr, hs[h].path) != 0) {
        diag_error("%s", tr.error);
        return EXIT_USAGE;
    }
    host_metadata(f, hs, h);
    struct gpu_track tracks[TRACE_MAX_GPUS];
    static struct gpu_desc descs[TRACE_MAX_GPUS];
    int ndescs = 0;
    int ntracks = 0, host_gpu = -2, seen_start = 0, seen_end = 0;
    double last_cpu = NAN, last_cores = NAN, cores;
    struct proc_rate rate;
    proc_rate_init(&rate);
    struct trace_row row;
    int rc;
    while ((rc = trace_reader_next(&tr, &row)) == 1) {
        int64_t ts = host_shared_ns(&hs[h], row.t_mono_ns) - origin_ns;
        if (row.type == TRACE_MARK) {
            seen_start |= start && strcmp(row.label, start) == 0;
            seen_end |= end && strcmp(row.label, end) == 0;
            if (labels_seen)
                labels_seen_add(labels_seen, nlabels_seen, row.label);
            instant(f, host_pid(h), TID_MARKS, "p", ts, &row);
            continue;
        }
        if (row.type == TRACE_EVENT) {
            remember_gpu(descs, &ndescs, row.label);
            pcie_width(tracks, ntracks, row.label);
            instant(f, host_pid(h), TID_EVENTS, "t", ts, &row);
            continue;
        }
        /* host-wide cells repeat on every GPU's row: take the first GPU's,
         * or a host-only row's (--gpu auto before a GPU joined) */
        int host_only = trace_row_host_only(&row);
        if (!host_only) {
            struct gpu_track *g = gpu_track(f, hs, h, tracks, &ntracks, row.gpu < 0 ? 0 : row.gpu,
                                            descs, ndescs);
            if (!g) {
                close_tracks(f, h, tracks, ntracks, 0);
                trace_reader_close(&tr);
                return EXIT_USAGE;
            }
            if (held_values(f, gpu_pid(h, g->id), g, &row, ts - row.t_mono_ns) != 0) {
                diag_error("%s: out of memory", hs[h].path);
                close_tracks(f, h, tracks, ntracks, 0);
                trace_reader_close(&tr);
                return EXIT_USAGE;
            }
            for (int k = 0; k < NGPU_COUNTERS; k++) {
                double v = row.v[gpu_counters[k].col];
                if (isnan(v) || v == g->last[k])
                    continue;
                perfetto_counter(f, gpu_pid(h, g->id), gpu_counters[k].name, gpu_counters[k].unit, ts, v);
                g->last[k] = v;
            }
            double gbps;
            if (pcie_rate_step(&g->pcie, &row, &gbps) && gbps != g->last_pcie) {
                perfetto_counter(f, gpu_pid(h, g->id), "PCIe to+from host", "GB/s", ts, gbps);
                g->last_pcie = gbps;
            }
            if (host_gpu == -2)
                host_gpu = row.gpu;
        }
        if (!host_only && row.gpu != host_gpu)
            continue;
        double cpu = row.v[COL_HOST_CPU_BUSY_PCT];
        if (!isnan(cpu) && cpu != last_cpu) {
            perfetto_counter(f, host_pid(h), "CPU busy", "%", ts, cpu);
            last_cpu = cpu;
        }
        if (proc_rate_step(&rate, &row, &cores) && cores != last_cores) {
            perfetto_counter(f, host_pid(h), "process CPU", "cores", ts, cores);
            last_cores = cores;
        }
    }
    if (rc < 0)
        diag_error("%s", tr.error);
    close_tracks(f, h, tracks, ntracks, rc >= 0);
    trace_reader_close(&tr);
    *has_start_end = seen_start && seen_end;
    return rc < 0 ? EXIT_USAGE : 0;
}

/* The window's breakdown as slices nested under it: same track, inside
 * its span, named by class ("compute", "host-cpu", "waiting"); the compute
 * slice where compute at a slow SM clock begins carries slow_clock_ms
 * (slow_clock.h). */
static void write_segments(FILE *f, const struct window *w, int pid, int64_t start_ns)
{
    int slow = slow_clock_top(w);
    for (int k = 0; w->bd.valid && k < w->bd.nseg; k++) {
        const struct segment *sg = &w->bd.seg[k];
        int64_t s0 = (int64_t)llround(sg->start_ms * 1e6), s1 = (int64_t)llround(sg->end_ms * 1e6);
        perfetto_event_start(f);
        fprintf(f, "{\"name\":\"%s\",\"cat\":\"segment\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d",
                time_class_name(sg->cls), pid, TID_WINDOWS);
        perfetto_write_ts(f, "ts", start_ns + s0);
        perfetto_write_ts(f, "dur", s1 - s0);
        fprintf(f, ",\"args\":{\"window\":%ld,\"resolution_ms\":", w->index);
        write_num(f, w->bd.resolution_ms);
        if (sg->reason)
            fprintf(f, ",\"reason\":\"%s\"", sg->reason);
        const struct window_gpu *g = slow >= 0 ? &w->gpu[slow] : NULL;
        if (g && sg->cls == CLASS_COMPUTE && g->slow_clock_from_ms >= sg->start_ms
            && g->slow_clock_from_ms < sg->end_ms) {
            fputs(",\"slow_clock_ms\":", f);
            write_num(f, g->slow_clock_ms);
        }
        fputs("}}", f);
    }
}

void perfetto_write_windows(FILE *f, const struct host_trace *hs, int h, int64_t origin_ns,
                            const struct analysis *a)
{
    char name[2 * MARK_LABEL_MAX + 8];
    for (long i = 0; i < a->nwindows; i++) {
        const struct window *w = &a->windows[i];
        snprintf(name, sizeof name, "%s\u2192%s", w->start_label, w->end_label);
        perfetto_event_start(f);
        fputs("{\"name\":", f);
        json_write_string(f, name);
        fprintf(f, ",\"cat\":\"window\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d", host_pid(h),
                TID_WINDOWS);
        perfetto_write_ts(f, "ts", host_shared_ns(&hs[h], w->t_start_ns) - origin_ns);
        perfetto_write_ts(f, "dur", w->t_end_ns - w->t_start_ns);
        fprintf(f, ",\"args\":{\"window\":%ld,\"verdict\":\"%s\",\"energy_J\":", w->index,
                verdict_name(w->verdict));
        write_num(f, w->energy_j);
        fputs(",\"uncertainty_J\":", f);
        write_num(f, w->uncertainty_j);
        fputs(",\"mean_power_W\":", f);
        write_num(f, w->mean_power_w);
        fputs(",\"duration_s\":", f);
        write_num(f, w->duration_s);
        fputs(",\"evidence\":", f);
        json_write_string(f, w->evidence);
        if (w->category[0]) {               /* the start mark's, as its instant event has */
            fputs(",\"category\":", f);
            json_write_string(f, w->category);
        }
        if (w->payload[0])
            fprintf(f, ",\"payload\":%s", w->payload);
        /* why beyond the class (breakdown_reason), and slow compute named
         * (slow_clock.h): only when there is one */
        const char *reason = breakdown_reason(&w->bd);
        if (reason)
            fprintf(f, ",\"reason\":\"%s\"", reason);
        int slow = slow_clock_top(w);
        if (slow >= 0) {
            fputs(",\"slow_clock_ms\":", f);
            write_num(f, w->gpu[slow].slow_clock_ms);
            fprintf(f, ",\"slow_clock_gpu\":%d,\"slow_clock_after_idle\":%s", w->gpu[slow].gpu,
                    w->gpu[slow].slow_clock_after_idle ? "true" : "false");
        }
        fputs("}}", f);
        write_segments(f, w, host_pid(h), host_shared_ns(&hs[h], w->t_start_ns) - origin_ns);
    }
}
