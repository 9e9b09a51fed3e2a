/*
 * report_cgroup.c — the cgroup CPU throttling of each window in analyze's
 * text, JSON and CSV reports (cgroup_throttle.h): how long the traced
 * command's cgroup had used up its CPU quota (cpu.max) and was held off
 * the CPUs. From /proc such a process looks idle, so throttling is what
 * "waiting" (or a low host-cpu share) hides when a limit is set.
 */
#include <math.h>
#include <stdio.h>

#include "cgroup_throttle.h"
#include "json_escape.h"
#include "report.h"

/* The series when it applies: one host (several hosts' clocks differ). */
static const struct cgroup_series *series(const struct analysis *a)
{
    return a->nhosts <= 1 ? a->cgroup : NULL;
}

void report_cgroup_text(FILE *out, const struct analysis *a, long wi)
{
    const struct window *w = &a->windows[wi];
    double ms, periods;
    const struct cgroup_series *s = series(a);
    if (cgroup_throttled(s, w->t_start_ns, w->t_end_ns, &ms, &periods) != 0)
        return;
    fprintf(out, "  cgroup %s: cpu.max %s, CPU throttled %.1f ms in %.0f period%s", s->path,
            s->cpu_max[0] ? s->cpu_max : "not recorded", ms, periods, periods == 1 ? "" : "s");
    if (isfinite(s->period_ms))
        fprintf(out, " (edges +-%.0f ms)", s->period_ms);
    if (ms > 0 && w->bd.valid && w->bd.ms[CLASS_WAITING] > 0)
        fprintf(out, "; waiting: CPU throttled by cgroup");
    fputc('\n', out);
}

void report_cgroup_json(FILE *out, const struct analysis *a, long wi)
{
    const struct window *w = &a->windows[wi];
    double ms, periods;
    const struct cgroup_series *s = series(a);
    if (cgroup_throttled(s, w->t_start_ns, w->t_end_ns, &ms, &periods) != 0) {
        fputs(",\"cgroup\":null", out);
        return;
    }
    fputs(",\"cgroup\":{\"path\":", out);
    json_write_string(out, s->path);
    fputs(",\"cpu_max\":", out);
    if (s->cpu_max[0])
        json_write_string(out, s->cpu_max);
    else
        fputs("null", out);
    fprintf(out, ",\"throttled_ms\":%.3f,\"throttled_periods\":%.0f,\"resolution_ms\":", ms, periods);
    json_write_number(out, "%.1f", s->period_ms);
    fputc('}', out);
}

void report_cgroup_csv(FILE *out, const struct analysis *a, long wi)
{
    const struct window *w = &a->windows[wi];
    double ms, periods;
    if (cgroup_throttled(series(a), w->t_start_ns, w->t_end_ns, &ms, &periods) != 0)
        fputs(",,", out);
    else
        fprintf(out, ",%.3f,%.0f", ms, periods);
}
