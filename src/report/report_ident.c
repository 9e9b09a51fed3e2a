/*
 * report_ident.c — what the recorder said about the host and each GPU (its
 * flinch_host and flinch_gpu EVENT rows, analysis.h's idents) in analyze's
 * JSON and CSV outputs, with the warnings that follow from it. Unknown:
 * null / empty.
 */
#include <math.h>
#include <string.h>

#include "json_escape.h"
#include "report.h"

int report_ident_warnings(const struct gpu_ident *g, const char **w, int max)
{
    int n = 0;
    if (g && g->persistence_off && n < max)
        w[n++] = "persistence mode off: NVML calls can be slow";
    if (g && strcmp(g->mig, "on") == 0 && n < max)
        w[n++] = "MIG mode on: power and utilization are the whole GPU's, every instance's work together";
    return n;
}

const struct gpu_ident *report_ident_of(const struct analysis *a, int gpu_index)
{
    for (int k = 0; a->nhosts <= 1 && k < a->nidents; k++)
        if (a->idents[k].id == gpu_index)
            return &a->idents[k];
    return NULL;
}

static void json_str_or_null(FILE *out, const char *key, const char *v)
{
    fprintf(out, ",\"%s\":", key);
    if (v && *v)
        json_write_string(out, v);
    else
        fputs("null", out);
}

void report_ident_json_host(FILE *out, const struct analysis *a)
{
    json_str_or_null(out, "hostname", a->nhosts <= 1 ? a->hostname : NULL);
    json_str_or_null(out, "driver", a->nhosts <= 1 ? a->driver : NULL);
    json_str_or_null(out, "nvml", a->nhosts <= 1 ? a->nvml : NULL);
}

void report_ident_json_gpu(FILE *out, const struct analysis *a, int gpu_index)
{
    const struct gpu_ident *g = report_ident_of(a, gpu_index);
    json_str_or_null(out, "name", g ? g->name : NULL);
    json_str_or_null(out, "uuid", g ? g->uuid : NULL);
    json_str_or_null(out, "pci", g ? g->pci : NULL);
    json_str_or_null(out, "power_limit_W", g && strcmp(g->power_limit_w, "unknown") ? g->power_limit_w : NULL);
    json_str_or_null(out, "compute_mode", g && strcmp(g->compute_mode, "unknown") ? g->compute_mode : NULL);
    json_str_or_null(out, "mig", g && strcmp(g->mig, "unknown") ? g->mig : NULL);
    fputs(",\"max_sm_clock_MHz\":", out);
    if (g && isfinite(g->max_sm_clock_mhz))
        fprintf(out, "%.0f", g->max_sm_clock_mhz);
    else
        fputs("null", out);
    fputs(",\"warnings\":[", out);
    const char *w[REPORT_IDENT_WARNINGS];
    int n = report_ident_warnings(g, w, REPORT_IDENT_WARNINGS);
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', out);
        json_write_string(out, w[i]);
    }
    fputc(']', out);
}

static void csv_cell(FILE *out, const char *s)
{
    fputc(',', out);
    report_csv_str(out, s);
}

void report_ident_csv_header(FILE *out, const struct analysis *a)
{
    fputs(",hostname", out);
    for (int i = 0; i < a->ngpu; i++)
        fprintf(out, ",gpu%d_name,gpu%d_uuid,gpu%d_warnings", a->gpu_ids[i], a->gpu_ids[i], a->gpu_ids[i]);
}

void report_ident_csv_row(FILE *out, const struct analysis *a)
{
    csv_cell(out, a->nhosts <= 1 ? a->hostname : "");
    for (int i = 0; i < a->ngpu; i++) {
        const struct gpu_ident *g = report_ident_of(a, a->gpu_ids[i]);
        csv_cell(out, g ? g->name : "");
        csv_cell(out, g ? g->uuid : "");
        const char *w[REPORT_IDENT_WARNINGS];
        int n = report_ident_warnings(g, w, REPORT_IDENT_WARNINGS);
        char joined[256] = "";
        for (int k = 0; k < n; k++)
            snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", k ? "; " : "", w[k]);
        csv_cell(out, joined);
    }
}
