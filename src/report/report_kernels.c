/*
 * report_kernels.c — the traced kernels' CSV cells (flinch record --cuda;
 * kernels_window.h), written only when some window of the trace has kernel
 * data, so the columns of every other trace stay as they were. They come
 * before confidence (recording stays the last column): the window's
 * collective_ms (its breakdown's collective class), then per GPU
 * report_kernels_csv_cols; empty cells where a window's GPU has none.
 */
#include <math.h>
#include <stdio.h>

#include "report.h"

const char *const report_kernels_csv_cols[REPORT_KERNELS_CSV_COLS] = {
    "kernels_busy_ms", "kernels_count", "kernels_collective_ms", "kernels_gaps",
    "kernels_gap_longest_ms", "kernels_gaps_ms", "kernels_top", "kernels_dropped",
    "kernels_nvml_idle_ms", "nvml_busy_no_kernels_ms", "kernels_gaps_by_class",
};

int report_kernels_seen(const struct analysis *a)
{
    return a->nkernel_ev > 0;
}

void report_kernels_csv_window(FILE *out, const struct window *w)
{
    if (w->bd.valid && w->bd.from_kernels)
        fprintf(out, ",%.3f", w->bd.ms[CLASS_COLLECTIVE]);
    else
        fputc(',', out);
}

/* "name=ms;name=ms" (ms to the us), the top names by time. */
static void top_cell(FILE *out, const struct kernel_evidence *e)
{
    char buf[KERNELS_WINDOW_TOP * 128];
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < e->ntop && len < sizeof buf; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s=%.3f", i ? ";" : "", e->top[i].name,
                                e->top[i].ms);
    report_csv_str(out, buf);
}

/* ",class=ms;class=ms": the gaps' time by class (kernels_window.h), in the
 * classes' order, those with time only. */
static void gaps_cell(FILE *out, const struct kernel_evidence *e)
{
    char name[40];
    fputc(',', out);
    for (int k = 0, n = 0; k < KGAP_COUNT; k++)
        if (e->gaps.by_class_ms[k] > 0)
            fprintf(out, "%s%s=%.3f", n++ ? ";" : "", kernels_gap_class_name(k, name, sizeof name),
                    e->gaps.by_class_ms[k]);
}

void report_kernels_csv(FILE *out, const struct analysis *a, const struct window_gpu *g)
{
    const struct kernel_evidence *e = g ? kernels_of(a, g) : NULL;
    if (!e) {
        for (int k = 0; k < REPORT_KERNELS_CSV_COLS; k++)
            fputc(',', out);
        return;
    }
    fprintf(out, ",%.3f,%ld,%.3f,%ld,%.3f,%.3f,", e->busy_ms, e->count, e->collective_ms, e->ngaps,
            e->longest_gap_ms, e->gaps_ms);
    top_cell(out, e);
    fprintf(out, ",%lld", e->dropped);
    if (g->nvml_check_ms > 0)
        fprintf(out, ",%.3f,%.3f", g->kernels_nvml_idle_ms, g->nvml_busy_no_kernels_ms);
    else
        fputs(",,", out);
    gaps_cell(out, e);
}
