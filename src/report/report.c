/*
 * report.c — see report.h. Text first prints the original analyze_trace.py's
 * three lines for the first window (same names, same precision), so scripts
 * written for it keep working, then flinch's own lines.
 */
#include <math.h>
#include <string.h>

#include "breakdown.h"
#include "confidence.h"
#include "proc_share.h"
#include "num_format.h"
#include "report.h"

#define APPROX "\xe2\x89\x88"   /* the original's "≈" */

/* A number as text, or "n/a" when it is unknown or not finite: the text
 * report never prints nan or inf (report.h: NUM). */
const char *report_num_text(char *buf, size_t cap, const char *fmt, double v)
{
    if (!isfinite(v))
        snprintf(buf, cap, "n/a");
    else if (fmt[0] == '%' && fmt[1] == '.' && fmt[2] >= '0' && fmt[2] <= '9' && fmt[3] == 'f' && !fmt[4])
        num_format_fixed(buf, cap, v, fmt[2] - '0');   /* a dozen a window: printf's cost showed */
    else
        snprintf(buf, cap, fmt, v);
    return buf;
}

void window_flags_str(unsigned flags, char *buf, size_t cap)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        { WINDOW_INCOMPLETE, "incomplete" }, { WINDOW_BEFORE_TRACE, "before-trace" },
        { WINDOW_FEW_SAMPLES, "few-samples" }, { WINDOW_UNDER_STEP, "under-counter-step" },
        { WINDOW_NO_POWER, "no-power" }, { WINDOW_UNDER_UTIL, "under-util-period" },
        { WINDOW_COUNTER_STUCK, "counter-stuck" }, { WINDOW_COUNTER_BACKWARDS, "counter-backwards" },
        { WINDOW_COUNTER_JUMP, "counter-jump" }, { WINDOW_POWER_FROZEN, "power-frozen" },
        { WINDOW_SENSOR_LOST, "sensor-lost" }, { WINDOW_UNDER_POWER_PERIOD, "under-power-period" },
        { WINDOW_NEAR_END, "near-end" },
        { WINDOW_INTERRUPTED, "interrupted" },
    };
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((flags & names[i].bit) && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? "," : "", names[i].name);
}

/* How the energy of window w was obtained, for the compatibility line. */
static const char *gpu_name(const struct analysis *a, int host, int gpu, char *buf, size_t cap);

/* "4 GPUs, " — or, when some GPUs had no power readings in the window and
 * are left out of the total, which ones and why ("2 of 4 GPUs (left out
 * ...: nodeB gpu 0, nodeB gpu 1; the window lies outside their trace: ...)"). */
static size_t gpus_note(const struct analysis *a, const struct window *w, char *buf, size_t cap)
{
    int none = 0, outside = 0;
    for (int i = 0; i < w->ngpu; i++)
        if (w->gpu[i].source == SOURCE_NONE) {
            none++;
            outside += (w->gpu[i].flags & (WINDOW_BEFORE_TRACE | WINDOW_INCOMPLETE)) != 0;
        }
    if (w->ngpu <= 1)
        return 0;
    if (none == 0)
        return (size_t)snprintf(buf, cap, "%d GPUs, ", w->ngpu);
    size_t len = (size_t)snprintf(buf, cap, "%d of %d GPUs (left out of the total, no power "
                                  "readings in the window: ", w->ngpu - none, w->ngpu);
    int listed = 0;
    for (int i = 0; i < w->ngpu && len < cap; i++) {
        if (w->gpu[i].source != SOURCE_NONE)
            continue;
        char name[96];
        if (listed++ == 4) {
            len += (size_t)snprintf(buf + len, cap - len, ", ...");
            break;
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", listed > 1 ? ", " : "",
                                gpu_name(a, w->gpu[i].host, w->gpu[i].gpu, name, sizeof name));
    }
    if (len < cap)
        len += (size_t)snprintf(buf + len, cap - len, "%s), ", outside == none ?
                                "; the window lies outside their trace: are the hosts' clocks "
                                "synchronised?" : "");
    return len < cap ? len : cap - 1;
}

static void source_note(const struct analysis *a, const struct window *w, char *buf, size_t cap)
{
    const struct window_gpu *g = NULL;
    for (int i = 0; i < w->ngpu && !g; i++)
        if (w->gpu[i].source != SOURCE_NONE)
            g = &w->gpu[i];
    if (!g) {
        snprintf(buf, cap, "no power readings for this window");
        return;
    }
    size_t len = gpus_note(a, w, buf, cap);
    switch (g->source) {
    case SOURCE_COUNTER:
        snprintf(buf + len, cap - len, "gpu_energy_mJ counter interpolated to the marks, "
                 "+-%s J (counter step %s ms at the mean power)",
                 NUM("%.3f", w->uncertainty_j), NUM("%.1f", g->counter_step_s * 1e3));
        break;
    case SOURCE_ESTIMATE:
        snprintf(buf + len, cap - len, "gpu_energy_mJ counter on its update grid + step model at "
                 "the edges, +-%s J (updates placed to +-%s ms, counter step %s ms)",
                 NUM("%.3f", w->uncertainty_j), NUM("%.1f", g->knot_unc_s * 1e3),
                 NUM("%.1f", g->counter_step_s * 1e3));
        break;
    case SOURCE_INSTANT:
        snprintf(buf + len, cap - len, "trapezoid over gpu_power_instant_W with exact edges, "
                 "+-%s J (max gap %s ms)", NUM("%.3f", w->uncertainty_j), NUM("%.1f", g->max_gap_s * 1e3));
        break;
    default:
        snprintf(buf + len, cap - len, "trapezoid over gpu_power_W, a 1 s average on Ampere+: "
                 "+-%s J (1 s of the busy range)", NUM("%.3f", w->uncertainty_j));
        break;
    }
}

/* "sensors gpu 0: energy counter 100.0 ms, instant power <= 10.0 ms, ...":
 * each sensor's update period as the trace shows it (sensor_cadence.h). */
static void text_cadence(FILE *out, const struct analysis *a, int i, const char *name)
{
    int known = 0;
    for (int s = 0; a->cadence && s < SENSOR_N; s++)
        known |= !isnan(a->cadence[i * SENSOR_N + s].period_s);
    if (!known)                 /* an original trace, or too short to tell */
        return;
    fprintf(out, "sensors %s:", name);
    for (int s = 0; s < SENSOR_N; s++) {
        const struct cadence *cd = &a->cadence[i * SENSOR_N + s];
        if (!isfinite(cd->period_s) && cd->changes)
            fprintf(out, "%s %s ? (%ld change%s: too few to measure)", s ? "," : "",
                    sensor_name((enum sensor_id)s), cd->changes, cd->changes == 1 ? "" : "s");
        else if (!isfinite(cd->period_s))
            fprintf(out, "%s %s - (never changed)", s ? "," : "", sensor_name((enum sensor_id)s));
        else
            fprintf(out, "%s %s %s%.1f ms", s ? "," : "", sensor_name((enum sensor_id)s),
                    cd->at_most ? "<= " : "", cd->period_s * 1e3);
    }
    fputs(" (update periods from the trace)\n", out);
}

/* "gpu 0", or "node2 gpu 0" when several hosts' traces were analysed. */
static const char *gpu_name(const struct analysis *a, int host, int gpu, char *buf, size_t cap)
{
    if (a->nhosts > 1)
        snprintf(buf, cap, "%s gpu %d", a->host_names[host], gpu);
    else
        snprintf(buf, cap, "gpu %d", gpu);
    return buf;
}

double report_window_util(const struct window *w)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < w->ngpu; i++)
        if (!isnan(w->gpu[i].util_pct)) {
            sum += w->gpu[i].util_pct;
            n++;
        }
    return n ? sum / n : NAN;
}

static void text_compat(FILE *out, const struct analysis *a, const struct window *w)
{
    char note[640];
    fprintf(out, "duration_s=%.6f\n", w->duration_s);
    source_note(a, w, note, sizeof note);
    if (!isfinite(w->energy_j))
        fprintf(out, "gpu_energy_J" APPROX "(n/a)  # %s\n", note);
    else
        fprintf(out, "gpu_energy_J" APPROX "%.3f  # %s\n", w->energy_j, note);
    double u = report_window_util(w);
    if (isfinite(u))
        fprintf(out, "avg_gpu_util_pct" APPROX "%.2f\n", u);
}

/* "  time: compute 424.0 ms (59%), host-cpu 0.0 ms (0%), waiting 300.0 ms
 * (41%), edges +-5.0 ms" and "  segments: waiting 0-300 ms, then ...".
 * Time before a GPU joined (--gpu auto) with no other GPU computing is
 * named apart, and the percentages are then of the recorded rest. */
static void text_breakdown(FILE *out, const char *indent, const struct breakdown *bd, double dur_s)
{
    if (!bd->valid)
        return;
    double unrec = bd->ms[CLASS_NOT_RECORDED], recorded = dur_s * 1e3 - unrec;
    fprintf(out, "%stime:", indent);
    for (int k = 0; k < CLASS_NOT_RECORDED; k++)
        fprintf(out, "%s %s %s ms (%s%%)", k ? "," : "", time_class_name((enum time_class)k),
                NUM("%.1f", bd->ms[k]), NUM("%.0f", 100 * bd->ms[k] / recorded));
    if (bd->from_kernels)
        fprintf(out, ", collective %s ms (%s%%), edges +-%.3f ms from kernels",
                NUM("%.1f", bd->ms[CLASS_COLLECTIVE]), NUM("%.0f", 100 * bd->ms[CLASS_COLLECTIVE] / recorded),
                bd->resolution_ms);
    else
        fprintf(out, ", edges +-%.1f ms", bd->resolution_ms);
    if (unrec > 0)
        fprintf(out, "; %.1f ms before gpu %d joined: not recorded (percentages are of the %.1f ms "
                "recorded)", unrec, bd->not_recorded_gpu, recorded);
    char seg[1024];
    fprintf(out, "\n%ssegments: %s\n", indent, breakdown_segments_text(bd, 12, seg, sizeof seg));
}

/* "    gpu 0 sensors: counter-stuck over 1.000-4.500 s (...): energy from
 * gpu_power_instant_W trapezoid instead of ...": bad sensor data, named. */
static void text_fault(FILE *out, const struct analysis *a, const struct window_gpu *g,
                       const char *name)
{
    if (!g->fault)
        return;
    char token[64], what[160];
    window_flags_str(g->fault, token, sizeof token);
    const char *fmt = g->fault == WINDOW_COUNTER_STUCK
        ? "the energy counter did not move while power read %.0f W or more"
        : g->fault == WINDOW_COUNTER_BACKWARDS ? "the energy counter went back by %.3f J (a driver reload or reset)"
        : g->fault == WINDOW_COUNTER_JUMP ? "one counter increment implies %.0f W, over twice the power limit"
        : g->fault == WINDOW_POWER_FROZEN ? "instantaneous power held %.3f W while utilization kept changing"
        : NULL;
    if (fmt)
        snprintf(what, sizeof what, fmt, g->fault == WINDOW_COUNTER_BACKWARDS ? -g->fault_value : g->fault_value);
    else                        /* WINDOW_SENSOR_LOST */
        snprintf(what, sizeof what, "the %s stopped reporting (NOT_SUPPORTED or missing) for the rest "
                 "of the trace", sensor_name((enum sensor_id)g->fault_sensor));
    fprintf(out, "    %s sensors: %s over %.3f-%.3f s (%s)", name, token,
            (double)(g->fault_t0_ns - a->first_row_ns) / 1e9,
            (double)(g->fault_t1_ns - a->first_row_ns) / 1e9, what);
    if (g->fell_from != SOURCE_NONE)
        fprintf(out, ": energy from %s instead of %s", energy_source_name(g->source),
                energy_source_name(g->fell_from));
    fputc('\n', out);
}

static void text_window(FILE *out, const struct analysis *a, const struct window *w, int verbose)
{
    char flags[128];
    window_flags_str(w->flags, flags, sizeof flags);
    fprintf(out, "window %ld: %s -> %s  %.6f s  (lines %ld-%ld)%s%s\n", w->index, w->start_label,
            w->end_label, w->duration_s, w->start_line, w->end_line, *flags ? "  flags: " : "", flags);
    for (int i = 0; i < w->ngpu; i++) {
        const struct window_gpu *g = &w->gpu[i];
        char name[96];
        fprintf(out, "  %s: energy %s J +-%s (%s), mean power %s W, util %s%%, "
                "%ld samples, max gap %s ms", gpu_name(a, g->host, g->gpu, name, sizeof name),
                NUM("%.3f", g->energy_j), NUM("%.3f", g->uncertainty_j),
                energy_source_name(g->source), NUM("%.1f", g->mean_power_w),
                NUM("%.1f", g->util_pct), g->samples, NUM("%.1f", g->max_gap_s * 1e3));
        if (isfinite(g->power_limit_w))
            fprintf(out, ", power limit %.0f W", g->power_limit_w);
        fprintf(out, "\n");
        text_fault(out, a, g, name);
        report_gpm_text(out, w, g);
        kernels_window_text(out, a, g, w->duration_s * 1e3);
        char share[256];
        if (*proc_share_text(g, share, sizeof share))
            fprintf(out, "    %s processes: %s\n", name, share);
        else if (a->nhosts <= 1)
            for (int k = 0; k < a->nidents; k++)
                if (a->idents[k].id == g->gpu && a->idents[k].proc_util_off[0])
                    fprintf(out, "    %s processes: not recorded (%s)\n", name,
                            a->idents[k].proc_util_off);
        if (w->ngpu > 1)
            text_breakdown(out, "    ", &g->bd, w->duration_s);
    }
    if (w->ngpu > 1)
        fprintf(out, "  all GPUs: energy %s J +-%s, mean power %s W\n", NUM("%.3f", w->energy_j),
                NUM("%.3f", w->uncertainty_j), NUM("%.1f", w->mean_power_w));
    int host = isfinite(w->host_cpu_pct) || isfinite(w->proc_cores);
    for (int k = 0; k < a->n_rapl; k++)
        host |= isfinite(w->rapl_j[k]);
    if (host) {
        fprintf(out, "  host:");
        if (isfinite(w->host_cpu_pct))
            fprintf(out, " cpu busy %.1f%%", w->host_cpu_pct);
        if (isfinite(w->proc_cores))
            fprintf(out, " process %.2f cores", w->proc_cores);
        for (int k = 0; k < a->n_rapl; k++)
            if (isfinite(w->rapl_j[k]))
                fprintf(out, " rapl %s %.3f J", a->rapl_domain[k], w->rapl_j[k]);
        fprintf(out, "\n");
    }
    report_pcie_text(out, w, verbose);
    text_breakdown(out, "  ", &w->bd, w->duration_s);
    report_cgroup_text(out, a, w - a->windows);
    char evidence[EVIDENCE_MAX];
    fprintf(out, "  verdict=%s  %s\n", verdict_name(w->verdict),
            report_evidence_text(w, verbose, evidence, sizeof evidence));
    report_waiting_text(out, a, w - a->windows);
}

static void text_summary(FILE *out, const struct analysis *a)
{
    fprintf(out, "windows=%ld unmatched_starts=%ld unmatched_ends=%ld", a->nwindows,
            a->unmatched_starts, a->unmatched_ends);
    if (a->dropped_starts)       /* only then: the line stays as it was without --max-open */
        fprintf(out, " dropped_starts=%ld", a->dropped_starts);
    fputc('\n', out);
    const struct { const char *name; const struct stat_summary *s; const char *fmt; } rows[] = {
        { "duration_s", &a->duration_s, "%.6f" },
        { "energy_J", &a->energy_j, "%.3f" },
        { "mean_power_W", &a->mean_power_w, "%.1f" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *f = rows[i].fmt;
        fprintf(out, "%s median=%s p90=%s p99=%s max=%s\n", rows[i].name, NUM(f, rows[i].s->median),
                NUM(f, rows[i].s->p90), NUM(f, rows[i].s->p99), NUM(f, rows[i].s->max));
    }
    /* one window's answer is its answer line: no second verdict */
    if (a->nwindows > 1)
        fprintf(out, "summary: %s %s\n", verdict_name(a->verdict), a->evidence);
}

void report_write(FILE *out, const struct analysis *a, const struct report_options *ro)
{
    if (ro->format == REPORT_CSV) {
        report_csv(out, a);
        return;
    }
    if (ro->format == REPORT_JSON) {
        report_json(out, a);
        return;
    }
    if (a->nwindows == 0)
        return;
    text_compat(out, a, &a->windows[0]);
    /* the answer first: line 4 is window 1's, --windows gives each its own */
    long answers = ro->windows_table ? a->nwindows : 1;
    for (long i = 0; i < answers && i < REPORT_ANSWER_LINES; i++)
        report_answer_line(out, &a->windows[i]);
    if (answers > REPORT_ANSWER_LINES)
        fprintf(out, "... %ld more windows: see the table\n", answers - REPORT_ANSWER_LINES);
    if (answers < a->nwindows)
        fprintf(out, "(window 1 of %ld; --windows gives every window its answer line)\n", a->nwindows);
    if (a->nwindows > 1 || a->unmatched_starts || a->unmatched_ends || a->dropped_starts ||
        ro->windows_table || a->nby_recording > 1) {
        report_recordings_summary_text(out, a);
        text_summary(out, a);
    }
    fputs("evidence:\n", out);
    for (int h = 0; a->nhosts > 1 && h < a->nhosts; h++)
        fprintf(out, "host %s: t_wall_ns - t_mono_ns = %lld ns (wall clocks assumed synchronised)\n",
                a->host_names[h], (long long)a->host_offset_ns[h]);
    for (int i = 0; i < a->ngpu; i++) {
        char name[96];
        const struct gpu_ident *id = report_ident_of(a, a->gpu_ids[i]);
        if (id) {
            fprintf(out, "gpu %d: %s, %s, pci %s", id->id, id->name[0] ? id->name : "unnamed",
                    id->uuid[0] ? id->uuid : "no uuid", id->pci[0] ? id->pci : "unknown");
            const char *warn[REPORT_IDENT_WARNINGS];
            int nw = report_ident_warnings(id, warn, REPORT_IDENT_WARNINGS);
            for (int k = 0; k < nw; k++)
                fprintf(out, ", %s", warn[k]);
            fputc('\n', out);
        }
        report_gpm_text_gpu(out, a, a->gpu_ids[i]);
        gpu_name(a, a->gpu_host ? a->gpu_host[i] : 0, a->gpu_ids[i], name, sizeof name);
        if (!report_recordings_levels_text(out, a, i, name))
            fprintf(out, "levels %s: idle %s W, busy %s W (%s)\n", name, NUM("%.1f", a->idle_w[i]),
                    NUM("%.1f", a->busy_w[i]), a->level_origin[i]);
        text_cadence(out, a, i, name);
    }
    if (ro->windows_table)
        report_table_text(out, a);
    else
        text_window(out, a, &a->windows[0], ro->verbose);
}
