/*
 * live_line.c — see live_line.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "diag.h"
#include "live_line.h"

size_t live_line_format(char *buf, size_t cap, const char *name, long nth, const struct window *w,
                        const char *levels_origin, int levels_given, long long dropped)
{
    int n = snprintf(buf, cap, "live %s #%ld: t_start_ns=%lld duration_s=%.6f ", name, nth,
                     (long long)w->t_start_ns, w->duration_s);
    if (isnan(w->energy_j))
        n += snprintf(buf + n, cap - (size_t)n, "energy_J=n/a");
    else
        n += snprintf(buf + n, cap - (size_t)n, "energy_J=%.3f +-%.3f", w->energy_j, w->uncertainty_j);
    if (w->bd.valid)
        n += snprintf(buf + n, cap - (size_t)n, " compute_ms=%.3f host_cpu_ms=%.3f waiting_ms=%.3f",
                      w->bd.ms[CLASS_COMPUTE], w->bd.ms[CLASS_HOST_CPU], w->bd.ms[CLASS_WAITING]);
    n += snprintf(buf + n, cap - (size_t)n, " verdict=%s (%s; levels: %s%s)", verdict_name(w->verdict),
                  w->evidence, levels_origin, levels_given ? "" : ", so far");
    if (dropped)
        n += snprintf(buf + n, cap - (size_t)n, " [live feed missed %lld rows]", dropped);
    n += snprintf(buf + n, cap - (size_t)n, "\n");
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

size_t live_status_format(char *buf, size_t cap, const char *prog, double seconds, long long rows,
                          int gpu, const char *power, const char *fifo, const char *last_mark)
{
    int n;
    if (gpu < 0)
        n = snprintf(buf, cap, "%s: %.1f s, %lld rows, no GPU yet (--gpu auto)", prog, seconds, rows);
    else
        n = snprintf(buf, cap, "%s: %.1f s, %lld rows, GPU %d power %s", prog, seconds, rows, gpu,
                     power && *power ? power : "not read yet");
    if (n < 0 || (size_t)n >= cap)
        return n < 0 ? 0 : cap - 1;
    if (!fifo || !*fifo)
        n += snprintf(buf + n, cap - (size_t)n, "; no marks FIFO");
    else if (!last_mark || !*last_mark)
        n += snprintf(buf + n, cap - (size_t)n, "; marks %s, no mark yet", fifo);
    else if (strlen(last_mark) > 40)
        n += snprintf(buf + n, cap - (size_t)n, "; marks %s, last '%.37s...'", fifo, last_mark);
    else
        n += snprintf(buf + n, cap - (size_t)n, "; marks %s, last '%s'", fifo, last_mark);
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

/* The hub flushes each line as it prints it, and a failed flush only sets
 * the stream's error flag: the one report, at the end, is here. */
int live_lines_check(FILE *out)
{
    errno = 0;
    int failed = fflush(out) != 0;
    int e = errno;
    if (!failed && !ferror(out))
        return 0;
    diag_error("--live: standard output: write failed%s%s; live lines were lost",
               e ? ": " : "", e ? strerror(e) : "");
    return -1;
}
