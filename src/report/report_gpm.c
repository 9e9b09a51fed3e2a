/*
 * report_gpm.c — the GPM part of analyze's reports (gpm_evidence.h): per
 * window and GPU, SM activity, occupancy, tensor activity and DRAM
 * bandwidth over the whole GPM spans inside, or why there are none (too
 * coarse for the window, or not recorded and the flinch_gpm row's reason),
 * in the text, JSON and CSV formats.
 */
#include <math.h>
#include <stdio.h>

#include "gpm_evidence.h"
#include "json_escape.h"
#include "report.h"

static const char *const metric_keys[GPM_METRICS] = {
    "sm_active_pct", "sm_occupancy_pct", "tensor_active_pct", "dram_bw_pct",
};

void report_gpm_text_gpu(FILE *out, const struct analysis *a, int gpu)
{
    for (int k = 0; a->nhosts <= 1 && k < a->nidents; k++)
        if (a->idents[k].id == gpu && a->idents[k].gpm_off[0])
            fprintf(out, "gpm gpu %d: not recorded: %s%s%s%s\n", gpu, a->idents[k].gpm_off,
                    a->idents[k].gpm_detail[0] ? " (" : "", a->idents[k].gpm_detail,
                    a->idents[k].gpm_detail[0] ? ")" : "");
}

void report_gpm_text(FILE *out, const struct window *w, const struct window_gpu *g)
{
    const struct gpm_evidence *e = &g->gpm;
    if (e->status == GPM_ABSENT)
        return;
    if (e->status == GPM_TOO_COARSE) {
        fprintf(out, "    GPM: too coarse for this %.0f ms window (%d whole span%s of ~%.0f ms inside, "
                "%d needed)\n", w->duration_s * 1e3, e->spans, e->spans == 1 ? "" : "s", e->span_ms,
                GPM_MIN_SPANS);
        return;
    }
    static const char *const names[GPM_METRICS] = { "SM active", "occupancy", "tensor",
                                                    "DRAM bandwidth" };
    fprintf(out, "    GPM:");
    for (int m = 0; m < GPM_METRICS; m++) {
        if (isnan(e->pct[m]))
            fprintf(out, "%s %s -", m ? "," : "", names[m]);
        else
            fprintf(out, "%s %s %.1f%%", m ? "," : "", names[m], e->pct[m]);
    }
    fprintf(out, " (%d whole spans of ~%.0f ms: %.0f of %.0f ms)\n", e->spans, e->span_ms,
            e->covered_ms, w->duration_s * 1e3);
}

void report_gpm_json(FILE *out, const struct analysis *a, const struct window_gpu *g)
{
    const struct gpm_evidence *e = &g->gpm;
    fputs(",\"gpm\":{\"status\":", out);
    json_write_string(out, gpm_status_name(e->status));
    if (e->status == GPM_ABSENT) {
        fputs(",\"reason\":", out);
        json_write_string(out, gpm_absent_reason(a, g->host, g->gpu));
        fputc('}', out);
        return;
    }
    fprintf(out, ",\"spans\":%d,\"span_ms\":", e->spans);
    json_write_number(out, "%.3f", e->span_ms);
    fputs(",\"covered_ms\":", out);
    json_write_number(out, "%.3f", e->covered_ms);
    for (int m = 0; m < GPM_METRICS; m++) {
        fprintf(out, ",\"%s\":", metric_keys[m]);
        json_write_number(out, "%.3f", e->pct[m]);
    }
    fputc('}', out);
}

const char *const report_gpm_csv_cols[REPORT_GPM_CSV_COLS] = {
    "gpm_status", "gpm_spans", "sm_active_pct", "sm_occupancy_pct", "tensor_active_pct",
    "dram_bw_pct",
};

void report_gpm_csv(FILE *out, const struct window_gpu *g)
{
    const struct gpm_evidence *e = &g->gpm;
    fprintf(out, ",%s,%d", gpm_status_name(e->status), e->spans);
    for (int m = 0; m < GPM_METRICS; m++) {
        fputc(',', out);
        if (!isnan(e->pct[m]))
            fprintf(out, "%.3f", e->pct[m]);
    }
}
