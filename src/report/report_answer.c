/*
 * report_answer.c — the answer first: one line per window saying what it
 * was and how far to trust it, and the evidence as the text report shows it.
 *
 * Owns: the answer line's grammar (README "Reading the answer"),
 *   window N START -> END  D.DDD s  VERDICT[: PARTS]  (edges +-E ms, confidence C[: REASON])
 * the --windows table's reason (the evidence's first clause), and which
 * evidence clauses the default text leaves out because they carry nothing
 * for this trace (kept by -v and by --format json/csv).
 */
#include <math.h>
#include <string.h>

#include "confidence.h"
#include "report.h"
#include "verdict.h"

/* The number of classes holding time: one class filling the window needs
 * no parts ("compute", not "compute: 100% compute"). */
static int classes_held(const struct breakdown *bd)
{
    int n = 0;
    for (int k = 0; k < CLASS_COUNT; k++)
        n += bd->ms[k] > 0;
    return n;
}

void report_answer_line(FILE *out, const struct window *w)
{
    char parts[512] = "";
    if (w->verdict == VERDICT_INCONCLUSIVE)
        snprintf(parts, sizeof parts, "%s", w->confidence_reason);
    else if (w->bd.valid && classes_held(&w->bd) > 1)
        verdict_parts_text(&w->bd, w->duration_s * 1e3, parts, sizeof parts);
    fprintf(out, "window %ld %s -> %s  %.3f s  %s%s%s  (", w->index, w->start_label, w->end_label,
            w->duration_s, verdict_name(w->verdict), *parts ? ": " : "", parts);
    if (w->bd.valid && isfinite(w->bd.resolution_ms))
        fprintf(out, "edges +-%.0f ms%s", w->bd.resolution_ms, w->bd.from_kernels ? " from kernels" : "");
    else
        fputs("edges unknown: no time breakdown", out);
    fprintf(out, ", confidence %s", confidence_name(w->confidence));
    if (w->verdict != VERDICT_INCONCLUSIVE && w->confidence_reason[0])
        fprintf(out, ": %s", w->confidence_reason);
    fputs(")\n", out);
}

/* Whether an evidence clause carries nothing: the busiest thread at 0.00
 * of a core says only that no thread ran. */
static int clause_empty(const char *c, size_t n)
{
    static const char busiest[] = "busiest thread '";
    static const char zero[] = "' 0.00 of a core while no GPU computed";
    if (n < sizeof busiest - 1 + sizeof zero - 1 || strncmp(c, busiest, sizeof busiest - 1) != 0)
        return 0;
    return memcmp(c + n - (sizeof zero - 1), zero, sizeof zero - 1) == 0;
}

const char *report_evidence_text(const struct window *w, int verbose, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (const char *c = w->evidence; *c && len < cap;) {
        const char *end = strstr(c, "; ");
        size_t n = end ? (size_t)(end - c) : strlen(c);
        if (verbose || !clause_empty(c, n))
            len += (size_t)snprintf(buf + len, cap - len, "%s%.*s", len ? "; " : "", (int)n, c);
        c += n + (end ? 2 : 0);
    }
    return buf;
}

const char *report_reason_text(const struct window *w, char *buf, size_t cap)
{
    const char *c = w->evidence;
    /* past the parts ("100% compute (724 ms), edges +-9 ms"), which the
     * table's own columns already give */
    if (w->verdict != VERDICT_INCONCLUSIVE && w->bd.valid) {
        const char *end = strstr(c, "; ");
        c = end ? end + 2 : c + strlen(c);
    }
    const char *end = strstr(c, "; ");
    size_t n = end ? (size_t)(end - c) : strlen(c);
    snprintf(buf, cap, "%.*s", (int)n, c);
    return buf;
}
