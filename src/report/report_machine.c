/*
 * report_machine.c — `flinch analyze --format csv|json`: one row / object
 * per window with every number analysis.h holds, for scripts and for
 * plot/export. Unknown numbers are empty cells in CSV and null in JSON.
 */
#include <math.h>
#include <string.h>

#include "csv_writer.h"
#include "diag.h"
#include "json_escape.h"
#include "breakdown.h"
#include "confidence.h"
#include "report.h"

static void csv_str(FILE *out, const char *s)
{
    if (!csv_cell_needs_quotes(s)) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void report_csv_str(FILE *out, const char *s)
{
    csv_str(out, s);
}

static void csv_num(FILE *out, const char *fmt, double v)
{
    fputc(',', out);
    if (!isnan(v) && !isinf(v))
        fprintf(out, fmt, v);
}

/* The breakdown's cells: compute_ms, host_cpu_ms, waiting_ms,
 * resolution_ms and segments as "class:start-end" joined by ';' (ms from
 * the window's start, README "analyze --format csv"), ":reason" after a
 * segment that has one (a spinning GPU: ":gpu-spin"); empty without one. */
static void csv_breakdown(FILE *out, const struct breakdown *bd)
{
    double v = bd->valid ? 0 : NAN;
    csv_num(out, "%.3f", v + bd->ms[CLASS_COMPUTE]);
    csv_num(out, "%.3f", v + bd->ms[CLASS_HOST_CPU]);
    csv_num(out, "%.3f", v + bd->ms[CLASS_WAITING]);
    csv_num(out, "%.3f", v + bd->resolution_ms);
    fputc(',', out);
    for (int i = 0; bd->valid && i < bd->nseg; i++)
        fprintf(out, "%s%s:%.3f-%.3f%s%s", i ? ";" : "", time_class_name(bd->seg[i].cls),
                bd->seg[i].start_ms, bd->seg[i].end_ms, bd->seg[i].reason ? ":" : "",
                bd->seg[i].reason ? bd->seg[i].reason : "");
}

/* not_recorded_ms (and with_gpu: not_recorded_gpu, empty when none):
 * the breakdown's time before a GPU joined (--gpu auto); empty without a
 * breakdown. */
static void csv_unrecorded(FILE *out, const struct breakdown *bd, int with_gpu)
{
    double ms = bd->valid ? bd->ms[CLASS_NOT_RECORDED] : NAN;
    csv_num(out, "%.3f", ms);
    if (with_gpu) {
        fputc(',', out);
        if (ms > 0)
            fprintf(out, "%d", bd->not_recorded_gpu);
    }
}

static const char *const breakdown_cols[] = { "compute_ms", "host_cpu_ms", "waiting_ms",
                                              "resolution_ms", "segments" };

/* ",gpu0_NAME,...,gpu1_NAME..." (HOST_gpuN_NAME with several hosts). */
static void gpu_columns(FILE *out, const struct analysis *a, const char *const *names, size_t n)
{
    for (int i = 0; i < a->ngpu; i++)
        for (size_t k = 0; k < n; k++) {
            char name[128];
            if (a->nhosts > 1)
                snprintf(name, sizeof name, "%s_gpu%d_%s", a->host_names[a->gpu_host[i]],
                         a->gpu_ids[i], names[k]);
            else
                snprintf(name, sizeof name, "gpu%d_%s", a->gpu_ids[i], names[k]);
            fputc(',', out);
            csv_str(out, name);
        }
}

/* The window's entry for the analysis's i-th GPU (gpu_columns' order), or
 * NULL: a window that ended before a GPU joined (--gpu auto) has fewer
 * GPUs than the trace, and its row still needs every GPU's cells. */
static const struct window_gpu *window_gpu_at(const struct analysis *a, const struct window *w, int i)
{
    if (w->ngpu == a->ngpu)
        return &w->gpu[i];
    for (int k = 0; k < w->ngpu; k++)
        if (w->gpu[k].gpu == a->gpu_ids[i] && (!a->gpu_host || w->gpu[k].host == a->gpu_host[i]))
            return &w->gpu[k];
    return NULL;
}

static void csv_empty(FILE *out, int cells)
{
    for (int k = 0; k < cells; k++)
        fputc(',', out);
}

void report_csv(FILE *out, const struct analysis *a)
{
    static const struct breakdown no_breakdown;
    fputs("window,start_label,end_label,start_line,end_line,t_start_ns,t_end_ns,duration_s,"
          "energy_J,uncertainty_J,mean_power_W,util_pct,host_cpu_pct,proc_cores,samples,"
          "max_gap_ms,source,flags,verdict", out);
    static const char *const per_gpu[] = { "energy_J", "uncertainty_J", "mean_power_W", "util_pct",
                                           "samples", "source" };
    gpu_columns(out, a, per_gpu, sizeof per_gpu / sizeof per_gpu[0]);
    for (int k = 0; k < a->n_rapl; k++) {
        fputs(",", out);
        char name[96];
        snprintf(name, sizeof name, "rapl_J:%s", a->rapl_domain[k]);
        csv_str(out, name);
    }
    fputs(",evidence", out);
    for (size_t k = 0; k < sizeof breakdown_cols / sizeof breakdown_cols[0]; k++)
        fprintf(out, ",%s", breakdown_cols[k]);
    fputs(",top_thread_cores,top_thread", out);
    gpu_columns(out, a, breakdown_cols, sizeof breakdown_cols / sizeof breakdown_cols[0]);
    report_waiting_csv_header(out);
    fputs(",cgroup_throttled_ms,cgroup_throttled_periods", out);
    if (a->gpm_seen)
        gpu_columns(out, a, report_gpm_csv_cols, REPORT_GPM_CSV_COLS);
    fputs(report_pcie_csv_cols, out);
    report_ident_csv_header(out, a);
    static const char *const proc_cols[] = { "proc_sm_pct", "other_sm_pct" };
    gpu_columns(out, a, proc_cols, sizeof proc_cols / sizeof proc_cols[0]);
    static const char *const unrec_cols[] = { "not_recorded_ms" };
    fputs(",not_recorded_ms,not_recorded_gpu", out);
    gpu_columns(out, a, unrec_cols, 1);
    static const char *const slow_cols[] = { "slow_clock_ms" };
    fputs(",reason", out);
    gpu_columns(out, a, slow_cols, 1);
    if (report_kernels_seen(a)) {
        fputs(",collective_ms", out);
        gpu_columns(out, a, report_kernels_csv_cols, REPORT_KERNELS_CSV_COLS);
    }
    fputs(",confidence,confidence_reason", out);
    fputs(",recording", out);          /* the last column (flinch-analyze(1)) */
    fputc('\n', out);
    for (long i = 0; i < a->nwindows; i++) {
        const struct window *w = &a->windows[i];
        long samples = 0;
        double gap = 0, util = 0;
        int nutil = 0;
        enum energy_source src = SOURCE_NONE;
        for (int k = 0; k < w->ngpu; k++) {
            samples += w->gpu[k].samples;
            gap = fmax(gap, w->gpu[k].max_gap_s);
            if (!isnan(w->gpu[k].util_pct)) {
                util += w->gpu[k].util_pct;
                nutil++;
            }
            if (src == SOURCE_NONE)
                src = w->gpu[k].source;
        }
        fprintf(out, "%ld,", w->index);
        csv_str(out, w->start_label);
        fputc(',', out);
        csv_str(out, w->end_label);
        fprintf(out, ",%ld,%ld,%lld,%lld", w->start_line, w->end_line, (long long)w->t_start_ns,
                (long long)w->t_end_ns);
        csv_num(out, "%.6f", w->duration_s);
        csv_num(out, "%.3f", w->energy_j);
        csv_num(out, "%.3f", w->uncertainty_j);
        csv_num(out, "%.3f", w->mean_power_w);
        csv_num(out, "%.2f", nutil ? util / nutil : NAN);
        csv_num(out, "%.2f", w->host_cpu_pct);
        csv_num(out, "%.3f", w->proc_cores);
        fprintf(out, ",%ld", samples);
        csv_num(out, "%.3f", gap * 1e3);
        char flags[128];
        window_flags_str(w->flags, flags, sizeof flags);
        fprintf(out, ",%s,%s,%s", energy_source_name(src), flags, verdict_name(w->verdict));
        for (int k = 0; k < a->ngpu; k++) {
            const struct window_gpu *g = window_gpu_at(a, w, k);
            if (!g) {
                csv_empty(out, 6);
                continue;
            }
            csv_num(out, "%.3f", g->energy_j);
            csv_num(out, "%.3f", g->uncertainty_j);
            csv_num(out, "%.3f", g->mean_power_w);
            csv_num(out, "%.2f", g->util_pct);
            fprintf(out, ",%ld,%s", g->samples, energy_source_name(g->source));
        }
        for (int k = 0; k < a->n_rapl; k++)
            csv_num(out, "%.6f", w->rapl_j[k]);
        fputc(',', out);
        csv_str(out, w->evidence);
        csv_breakdown(out, &w->bd);
        csv_num(out, "%.3f", w->bd.valid ? w->top_thread_cores : NAN);
        fputc(',', out);
        csv_str(out, w->bd.valid ? w->top_thread : "");
        for (int k = 0; k < a->ngpu; k++) {
            const struct window_gpu *g = window_gpu_at(a, w, k);
            csv_breakdown(out, g ? &g->bd : &no_breakdown);
        }
        report_waiting_csv(out, a, i);
        report_cgroup_csv(out, a, i);
        for (int k = 0; a->gpm_seen && k < a->ngpu; k++) {
            const struct window_gpu *g = window_gpu_at(a, w, k);
            if (g)
                report_gpm_csv(out, g);
            else
                csv_empty(out, REPORT_GPM_CSV_COLS);
        }
        report_pcie_csv(out, w);
        report_ident_csv_row(out, a);
        for (int k = 0; k < a->ngpu; k++) {
            const struct window_gpu *g = window_gpu_at(a, w, k);
            csv_num(out, "%.2f", g ? g->proc_sm_pct : NAN);
            csv_num(out, "%.2f", g ? g->other_sm_pct : NAN);
        }
        csv_unrecorded(out, &w->bd, 1);
        for (int k = 0; k < a->ngpu; k++) {
            const struct window_gpu *g = window_gpu_at(a, w, k);
            csv_unrecorded(out, g ? &g->bd : &no_breakdown, 0);
        }
        fputc(',', out);               /* the window's reason (breakdown_reason), empty when none */
        const char *reason = breakdown_reason(&w->bd);
        csv_str(out, reason ? reason : "");
        for (int k = 0; k < a->ngpu; k++) {
            const struct window_gpu *g = window_gpu_at(a, w, k);
            csv_num(out, "%.3f", g ? g->slow_clock_ms : NAN);
        }
        if (report_kernels_seen(a)) {
            report_kernels_csv_window(out, w);
            for (int k = 0; k < a->ngpu; k++)
                report_kernels_csv(out, a, window_gpu_at(a, w, k));
        }
        fprintf(out, ",%s,", confidence_name(w->confidence));
        csv_str(out, w->confidence_reason);
        fprintf(out, ",%d", w->recording);
        fputc('\n', out);
    }
}

/* Infinite values written as null, reported once on stderr by report_json. */
static long json_infinite;
static const char *json_infinite_key;

static void json_value(FILE *out, const char *key, const char *fmt, double v)
{
    if (json_write_number(out, fmt, v) != 0) {
        json_infinite++;
        json_infinite_key = key;
    }
}

static void json_num(FILE *out, const char *key, const char *fmt, double v)
{
    fprintf(out, ",\"%s\":", key);
    json_value(out, key, fmt, v);
}

/* ,"breakdown":{...},"segments":[...],"reason":R (null, [] and null
 * without one; R: breakdown_reason, null when no segment has one). */
static void json_breakdown(FILE *out, const struct breakdown *bd)
{
    if (!bd->valid) {
        fputs(",\"breakdown\":null,\"segments\":[],\"reason\":null", out);
        return;
    }
    fprintf(out, ",\"breakdown\":{\"compute_ms\":%.3f,\"host_cpu_ms\":%.3f,\"waiting_ms\":%.3f,"
            "\"resolution_ms\":%.3f,\"not_recorded_ms\":%.3f,\"not_recorded_gpu\":", bd->ms[CLASS_COMPUTE],
            bd->ms[CLASS_HOST_CPU], bd->ms[CLASS_WAITING], bd->resolution_ms, bd->ms[CLASS_NOT_RECORDED]);
    if (bd->ms[CLASS_NOT_RECORDED] > 0)
        fprintf(out, "%d", bd->not_recorded_gpu);
    else
        fputs("null", out);
    if (bd->from_kernels)              /* only where kernels were traced: other windows as before */
        fprintf(out, ",\"collective_ms\":%.3f,\"source\":\"kernels\"", bd->ms[CLASS_COLLECTIVE]);
    if (bd->outline_of > 0)            /* only where the segments are an outline: the same */
        fprintf(out, ",\"outline_of\":%d", bd->outline_of);
    fputs("},\"segments\":[", out);
    for (int i = 0; i < bd->nseg; i++) {
        fprintf(out, "%s{\"start_ms\":%.3f,\"end_ms\":%.3f,\"class\":\"%s\"", i ? "," : "",
                bd->seg[i].start_ms, bd->seg[i].end_ms, time_class_name(bd->seg[i].cls));
        /* why, beyond the class (a spinning GPU's waiting): only when there is one */
        if (bd->seg[i].reason)
            fprintf(out, ",\"reason\":\"%s\"", bd->seg[i].reason);
        fputc('}', out);
    }
    fputc(']', out);
    const char *reason = breakdown_reason(bd);
    fputs(",\"reason\":", out);
    if (reason)
        json_write_string(out, reason);
    else
        fputs("null", out);
}

static void json_stat(FILE *out, const char *key, const struct stat_summary *s)
{
    fprintf(out, ",\"%s\":{\"median\":", key);
    json_value(out, key, "%.9g", s->median);
    fputs(",\"p90\":", out);
    json_value(out, key, "%.9g", s->p90);
    fputs(",\"p99\":", out);
    json_value(out, key, "%.9g", s->p99);
    fputs(",\"max\":", out);
    json_value(out, key, "%.9g", s->max);
    fputc('}', out);
}

void report_json(FILE *out, const struct analysis *a)
{
    json_infinite = 0;
    fputs("{\"trace\":", out);
    json_write_string(out, a->path);
    fputs(",\"hosts\":[", out);
    for (int h = 0; h < a->nhosts; h++) {
        fputs(h ? ",{\"name\":" : "{\"name\":", out);
        json_write_string(out, a->host_names[h]);
        fprintf(out, ",\"wall_minus_mono_ns\":%lld", (long long)a->host_offset_ns[h]);
        if (h == 0)
            report_ident_json_host(out, a);
        fputc('}', out);
    }
    fputs("],\"gpus\":[", out);
    for (int i = 0; i < a->ngpu; i++) {
        fprintf(out, "%s{\"gpu\":%d", i ? "," : "", a->gpu_ids[i]);
        if (a->nhosts > 1) {
            fputs(",\"host\":", out);
            json_write_string(out, a->host_names[a->gpu_host[i]]);
        }
        json_num(out, "idle_W", "%.3f", a->idle_w[i]);
        json_num(out, "busy_W", "%.3f", a->busy_w[i]);
        fputs(",\"levels_from\":", out);
        json_write_string(out, a->level_origin[i]);
        report_ident_json_gpu(out, a, a->gpu_ids[i]);
        for (int s = 0; a->cadence && s < SENSOR_N; s++) {
            const struct cadence *cd = &a->cadence[i * SENSOR_N + s];
            fprintf(out, "%s\"%s\":{\"changes\":%ld", s ? "," : ",\"sensor_periods\":{",
                    sensor_key((enum sensor_id)s), cd->changes);
            json_num(out, "period_s", "%.6f", cd->period_s);
            fprintf(out, ",\"at_most\":%s}%s", cd->at_most ? "true" : "false",
                    s == SENSOR_N - 1 ? "}" : "");
        }
        fputc('}', out);
    }
    fputs("],\"windows\":[", out);
    for (long i = 0; i < a->nwindows; i++) {
        const struct window *w = &a->windows[i];
        char flags[128];
        window_flags_str(w->flags, flags, sizeof flags);
        fprintf(out, "%s\n{\"window\":%ld,\"recording\":%d,\"start_label\":", i ? "," : "", w->index,
                w->recording);
        json_write_string(out, w->start_label);
        fputs(",\"end_label\":", out);
        json_write_string(out, w->end_label);
        fprintf(out, ",\"start_line\":%ld,\"end_line\":%ld,\"t_start_ns\":%lld,\"t_end_ns\":%lld,"
                "\"wall_start_ns\":%lld,\"wall_end_ns\":%lld", w->start_line, w->end_line,
                (long long)w->t_start_ns, (long long)w->t_end_ns, (long long)w->wall_start_ns,
                (long long)w->wall_end_ns);
        json_num(out, "duration_s", "%.9f", w->duration_s);
        json_num(out, "energy_J", "%.6f", w->energy_j);
        json_num(out, "uncertainty_J", "%.6f", w->uncertainty_j);
        json_num(out, "mean_power_W", "%.6f", w->mean_power_w);
        json_num(out, "host_cpu_pct", "%.3f", w->host_cpu_pct);
        json_num(out, "proc_cores", "%.4f", w->proc_cores);
        fputs(",\"rapl_J\":{", out);
        for (int k = 0; k < a->n_rapl; k++) {
            if (k)
                fputc(',', out);
            json_write_string(out, a->rapl_domain[k]);
            fputc(':', out);
            json_value(out, "rapl_J", "%.6f", w->rapl_j[k]);
        }
        fputs("},\"flags\":", out);
        json_write_string(out, flags);
        fputs(",\"verdict\":", out);
        json_write_string(out, verdict_name(w->verdict));
        fputs(",\"evidence\":", out);
        json_write_string(out, w->evidence);
        fputs(",\"confidence\":", out);
        json_write_string(out, confidence_name(w->confidence));
        fputs(",\"confidence_reason\":", out);
        json_write_string(out, w->confidence_reason);
        json_breakdown(out, &w->bd);
        json_num(out, "top_thread_cores", "%.3f", w->bd.valid ? w->top_thread_cores : NAN);
        fputs(",\"top_thread\":", out);
        json_write_string(out, w->bd.valid ? w->top_thread : "");
        report_waiting_json(out, a, i);
        report_cgroup_json(out, a, i);
        report_pcie_json(out, &w->pcie, w->duration_s);
        fputs(",\"gpus\":[", out);
        for (int k = 0; k < w->ngpu; k++) {
            const struct window_gpu *g = &w->gpu[k];
            fprintf(out, "%s{\"gpu\":%d,", k ? "," : "", g->gpu);
            if (a->nhosts > 1) {
                fputs("\"host\":", out);
                json_write_string(out, a->host_names[g->host]);
                fputc(',', out);
            }
            fputs("\"source\":", out);
            json_write_string(out, energy_source_name(g->source));
            json_num(out, "energy_J", "%.6f", g->energy_j);
            json_num(out, "uncertainty_J", "%.6f", g->uncertainty_j);
            json_num(out, "energy_counter_J", "%.6f", g->energy_counter_j);
            json_num(out, "energy_instant_J", "%.6f", g->energy_instant_j);
            json_num(out, "energy_average_J", "%.6f", g->energy_average_j);
            json_num(out, "mean_power_W", "%.6f", g->mean_power_w);
            json_num(out, "util_pct", "%.3f", g->util_pct);
            fprintf(out, ",\"samples\":%ld", g->samples);
            json_num(out, "max_gap_s", "%.6f", g->max_gap_s);
            json_num(out, "counter_step_s", "%.6f", g->counter_step_s);
            json_num(out, "power_limit_W", "%.3f", g->power_limit_w);
            fputs(",\"clock_event_reasons\":{", out);
            int first = 1;
            for (int b = 0; b < ANALYSIS_REASON_BITS; b++)
                if (g->reason_counts[b]) {
                    fprintf(out, "%s\"0x%x\":%u", first ? "" : ",", 1u << b, g->reason_counts[b]);
                    first = 0;
                }
            fputc('}', out);
            /* compute below half of the maximum SM clock (slow_clock.h); null: no maximum recorded */
            json_num(out, "slow_clock_ms", "%.3f", g->slow_clock_ms);
            json_num(out, "slow_clock_res_ms", "%.3f", g->slow_clock_res_ms);
            fprintf(out, ",\"slow_clock_after_idle\":%s", g->slow_clock_ms > 0 && g->slow_clock_after_idle
                                                             ? "true" : "false");
            json_breakdown(out, &g->bd);
            report_gpm_json(out, a, g);
            kernels_window_json(out, a, g);
            report_pcie_json(out, &g->pcie, w->duration_s);
            json_num(out, "proc_sm_pct", "%.3f", g->proc_sm_pct);
            json_num(out, "other_sm_pct", "%.3f", g->other_sm_pct);
            fprintf(out, ",\"proc_readings\":%d", g->proc_readings);
            json_num(out, "proc_span_s", "%.6f",
                     g->proc_readings ? (double)(g->proc_t1_ns - g->proc_t0_ns) / 1e9 : NAN);
            json_num(out, "proc_cover", "%.4f", g->proc_readings ? g->proc_cover : NAN);
            fputc('}', out);
        }
        fputs("]}", out);
    }
    fprintf(out, "],\"summary\":{\"windows\":%ld,\"unmatched_starts\":%ld,\"unmatched_ends\":%ld",
            a->nwindows, a->unmatched_starts, a->unmatched_ends);
    if (a->dropped_starts)       /* as in the text summary: only when --max-open dropped some */
        fprintf(out, ",\"dropped_starts\":%ld", a->dropped_starts);
    json_stat(out, "duration_s", &a->duration_s);
    json_stat(out, "energy_J", &a->energy_j);
    json_stat(out, "mean_power_W", &a->mean_power_w);
    json_num(out, "waiting_median_ms", "%.3f", a->waiting_median_ms);
    fprintf(out, ",\"waiting_windows\":%ld", a->waiting_windows);
    fputs(",\"verdict\":", out);
    json_write_string(out, verdict_name(a->verdict));
    fputs(",\"evidence\":", out);
    json_write_string(out, a->evidence);
    fputc('}', out);
    report_recordings_json(out, a);
    fputs("}\n", out);
    if (json_infinite)
        diag_warn("%ld infinite value%s (first: %s) written as null: JSON has no infinity",
                  json_infinite, json_infinite == 1 ? "" : "s", json_infinite_key);
}
