/*
 * report_pcie.c — a window's host<->GPU traffic (pcie_window.h) in analyze's
 * text, JSON and CSV outputs. Unknown numbers: no text line, null, empty.
 */
#include <math.h>

#include "json_escape.h"
#include "report.h"

/* "reset" / "may-miss-wraps" joined by ';', "" when none. */
static const char *notes_str(unsigned notes)
{
    switch (notes & (PCIE_NOTE_RESET | PCIE_NOTE_MISS_WRAPS)) {
    case PCIE_NOTE_RESET: return "reset";
    case PCIE_NOTE_MISS_WRAPS: return "may-miss-wraps";
    case PCIE_NOTE_RESET | PCIE_NOTE_MISS_WRAPS: return "reset;may-miss-wraps";
    }
    return "";
}

static int known(const struct pcie_traffic *p)
{
    return !isnan(p->tx_bytes) || !isnan(p->rx_bytes);
}

static double total(const struct pcie_traffic *p)
{
    return (isnan(p->tx_bytes) ? 0 : p->tx_bytes) + (isnan(p->rx_bytes) ? 0 : p->rx_bytes);
}

/* Under half a megabyte: prints as 0.000 GB. */
#define PCIE_NOTHING_BYTES 0.5e6

/* Without verbose, a window that moved nothing (0.000 GB both ways) and
 * has no note gets no line, nor does a copies line with no copy time and
 * nothing moved while waiting: such lines say nothing about this trace. */
void report_pcie_text(FILE *out, const struct window *w, int verbose)
{
    const struct pcie_traffic *p = &w->pcie;
    if (!known(p) || (!verbose && total(p) < PCIE_NOTHING_BYTES && !p->notes))
        return;
    fprintf(out, "  pcie: to host %.3f GB, from host %.3f GB, mean %.3f GB/s", p->tx_bytes / 1e9,
            p->rx_bytes / 1e9, total(p) / 1e9 / w->duration_s);
    if (isfinite(p->tick_ms))
        fprintf(out, " (counters read every %.0f ms)", p->tick_ms);
    if (p->notes & PCIE_NOTE_RESET)
        fputs("; a counter reset inside: at least this much", out);
    if (p->notes & PCIE_NOTE_MISS_WRAPS)
        fputs("; 32-bit counters read less often than they can wrap: whole 4 GiB wraps may be missing", out);
    fputc('\n', out);
    if (isfinite(p->copy_ms) && w->bd.valid && w->bd.ms[CLASS_WAITING] > 0 &&
        (verbose || p->copy_ms >= 0.05 || p->waiting_bytes >= PCIE_NOTHING_BYTES))
        fprintf(out, "  waiting on host<->GPU copies: %.1f of %.1f ms waiting (%.3f GB moved while "
                "waiting)\n", p->copy_ms, w->bd.ms[CLASS_WAITING], p->waiting_bytes / 1e9);
}

static void num(FILE *out, const char *key, const char *fmt, double v)
{
    fprintf(out, ",\"%s\":", key);
    json_write_number(out, fmt, v);
}

void report_pcie_json(FILE *out, const struct pcie_traffic *p, double duration_s)
{
    if (!known(p)) {
        fputs(",\"pcie\":null", out);
        return;
    }
    fputs(",\"pcie\":{\"tx_bytes\":", out);
    json_write_number(out, "%.0f", p->tx_bytes);
    num(out, "rx_bytes", "%.0f", p->rx_bytes);
    num(out, "rate_GBps", "%.6f", total(p) / 1e9 / duration_s);
    num(out, "copy_ms", "%.3f", p->copy_ms);
    num(out, "copy_bytes", "%.0f", p->copy_bytes);
    num(out, "waiting_bytes", "%.0f", p->waiting_bytes);
    num(out, "tick_ms", "%.3f", p->tick_ms);
    fputs(",\"notes\":", out);
    json_write_string(out, notes_str(p->notes));
    fputc('}', out);
}

const char *const report_pcie_csv_cols = ",pcie_tx_bytes,pcie_rx_bytes,pcie_GBps,copy_ms,copy_bytes,pcie_notes";

static void cell(FILE *out, const char *fmt, double v)
{
    fputc(',', out);
    if (isfinite(v))
        fprintf(out, fmt, v);
}

void report_pcie_csv(FILE *out, const struct window *w)
{
    const struct pcie_traffic *p = &w->pcie;
    int k = known(p);
    cell(out, "%.0f", p->tx_bytes);
    cell(out, "%.0f", p->rx_bytes);
    cell(out, "%.6f", k ? total(p) / 1e9 / w->duration_s : NAN);
    cell(out, "%.3f", p->copy_ms);
    cell(out, "%.0f", p->copy_bytes);
    fprintf(out, ",%s", notes_str(p->notes));
}
