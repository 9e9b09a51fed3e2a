/*
 * report_recordings.c — a trace file holding several recordings (`flinch
 * record` appends): each recording's power levels and summary
 * (analysis.by_recording), in the text report and in JSON. A file with one
 * recording prints nothing here, so its report stays as it was.
 */
#include <math.h>
#include <string.h>

#include "json_escape.h"
#include "report.h"

int report_recordings_levels_text(FILE *out, const struct analysis *a, int i, const char *name)
{
    if (a->nby_recording < 2)
        return 0;
    int seen = 0;       /* a GPU without power readings in any: recording 1's line says so */
    for (int r = 0; r < a->nby_recording; r++)
        seen |= a->by_recording[r].gpu_seen[i];
    for (int r = 0; r < a->nby_recording; r++) {
        const struct recording_result *rr = &a->by_recording[r];
        if (rr->gpu_seen[i] || (!seen && r == 0))
            fprintf(out, "levels %s (recording %d): idle %s W, busy %s W (%s)\n", name,
                    rr->recording, NUM("%.1f", rr->idle_w[i]), NUM("%.1f", rr->busy_w[i]),
                    rr->level_origin[i]);
    }
    return 1;
}

void report_recordings_summary_text(FILE *out, const struct analysis *a)
{
    if (a->nby_recording < 2)
        return;
    for (int r = 0; r < a->nby_recording; r++) {
        const struct recording_result *rr = &a->by_recording[r];
        fprintf(out, "recording %d: windows=%ld unmatched_starts=%ld unmatched_ends=%ld\n",
                rr->recording, rr->nwindows, rr->unmatched_starts, rr->unmatched_ends);
        const struct { const char *name; const struct stat_summary *s; const char *fmt; } rows[] = {
            { "duration_s", &rr->duration_s, "%.6f" },
            { "energy_J", &rr->energy_j, "%.3f" },
            { "mean_power_W", &rr->mean_power_w, "%.1f" },
        };
        for (size_t k = 0; rr->nwindows && k < sizeof rows / sizeof rows[0]; k++) {
            const char *f = rows[k].fmt;
            fprintf(out, "  %s median=%s p90=%s p99=%s max=%s\n", rows[k].name,
                    NUM(f, rows[k].s->median), NUM(f, rows[k].s->p90), NUM(f, rows[k].s->p99),
                    NUM(f, rows[k].s->max));
        }
        if (rr->nwindows > 1)     /* as the total's: one window's answer is its answer line */
            fprintf(out, "  summary: %s %s\n", verdict_name(rr->verdict), rr->evidence);
    }
    fprintf(out, "all %d recordings:\n", a->nby_recording);
}

static void json_number(FILE *out, const char *key, const char *fmt, double v)
{
    fprintf(out, ",\"%s\":", key);
    json_write_number(out, fmt, v);   /* not finite: null (report_json warns of the windows') */
}

static void json_stat(FILE *out, const char *key, const struct stat_summary *s)
{
    fprintf(out, ",\"%s\":{\"median\":", key);
    json_write_number(out, "%.9g", s->median);
    fputs(",\"p90\":", out);
    json_write_number(out, "%.9g", s->p90);
    fputs(",\"p99\":", out);
    json_write_number(out, "%.9g", s->p99);
    fputs(",\"max\":", out);
    json_write_number(out, "%.9g", s->max);
    fputc('}', out);
}

void report_recordings_json(FILE *out, const struct analysis *a)
{
    if (a->nby_recording < 2)
        return;
    fputs(",\"recordings\":[", out);
    for (int r = 0; r < a->nby_recording; r++) {
        const struct recording_result *rr = &a->by_recording[r];
        fprintf(out, "%s\n{\"recording\":%d,\"gpus\":[", r ? "," : "", rr->recording);
        int first = 1;
        for (int i = 0; i < a->ngpu; i++) {
            if (!rr->gpu_seen[i])
                continue;
            fprintf(out, "%s{\"gpu\":%d", first ? "" : ",", a->gpu_ids[i]);
            json_number(out, "idle_W", "%.3f", rr->idle_w[i]);
            json_number(out, "busy_W", "%.3f", rr->busy_w[i]);
            fputs(",\"levels_from\":", out);
            json_write_string(out, rr->level_origin[i]);
            fputc('}', out);
            first = 0;
        }
        fprintf(out, "],\"summary\":{\"windows\":%ld,\"unmatched_starts\":%ld,\"unmatched_ends\":%ld",
                rr->nwindows, rr->unmatched_starts, rr->unmatched_ends);
        json_stat(out, "duration_s", &rr->duration_s);
        json_stat(out, "energy_J", &rr->energy_j);
        json_stat(out, "mean_power_W", &rr->mean_power_w);
        json_number(out, "waiting_median_ms", "%.3f", rr->waiting_median_ms);
        fprintf(out, ",\"waiting_windows\":%ld,\"verdict\":", rr->waiting_windows);
        json_write_string(out, verdict_name(rr->verdict));
        fputs(",\"evidence\":", out);
        json_write_string(out, rr->evidence);
        fputs("}}", out);
    }
    fputc(']', out);
}
