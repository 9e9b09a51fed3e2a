/*
 * perfetto_pass.h — one read of one host's trace for `flinch export`.
 *
 * Owns: the pass whose rows go to the host's events (perfetto_host.h), to
 * its windows' analysis (analysis_feed.h) and, for a trace not measured
 * yet, to its clock measure (hosts.h); then what follows the rows in the
 * document: the traced threads, the kernels, and the analysed windows
 * where the trace held their labels. The analysis's messages come after
 * the threads' and kernels', as when it read the trace on its own.
 *
 *   struct perfetto_pass p = { f, hosts, h, origin, &windows, measured, seen, &nseen };
 *   rc = perfetto_pass_rows(&p);
 *   rc = perfetto_pass_finish(&p, hosts, &windowed);   (or perfetto_pass_drop(&p))
 */
#ifndef FLINCH_PERFETTO_PASS_H
#define FLINCH_PERFETTO_PASS_H

#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "analysis_feed.h"
#include "hosts.h"

/* The windows as export's options name them; start NULL: no windows. */
struct export_windows {
    const char *start, *end, *range, *domain, *category;
    long max_open;
};

struct perfetto_pass {
    FILE *f;
    const struct host_trace *hosts;  /* the figures the rows' events are written with */
    int h;
    int64_t origin_ns;
    const struct export_windows *windows;
    struct host_trace *measure;      /* non-NULL: measured into (a copy of hosts[h]) */
    char **labels_seen;
    int *nlabels_seen;
    /* private */
    struct analysis_options ao;
    struct analysis a;
    struct analysis_feed af;
    int feeding, has_labels;
};

/* The rows. 0, or an exit code with the message printed (the analysis
 * then dropped, nothing more to call). */
int perfetto_pass_rows(struct perfetto_pass *p);
/* After perfetto_pass_rows succeeded: the threads, the kernels and the
 * windows, written with the figures of HOSTS (hosts[h] measured);
 * *WINDOWED counts the traces whose windows were analysed. 0, or an exit
 * code with the message printed. */
int perfetto_pass_finish(struct perfetto_pass *p, const struct host_trace *hosts, int *windowed);
/* After perfetto_pass_rows succeeded: drops what it gathered, silently. */
void perfetto_pass_drop(struct perfetto_pass *p);

#endif
