/*
 * perfetto_kernels.c — the traced kernels in the Perfetto export (flinch
 * record --cuda, TRACE.kernels beside the trace; kernels_file.h): one
 * process "CUDA kernels (HOST)", a track per CUDA device ("device D",
 * tid D + 1), holding its busy time as complete events ("ph":"X"):
 * "kernels" where a kernel ran, "collective" where an NCCL kernel did (as
 * analyze classes them, kernels_busy.h). A trace without the file adds
 * nothing.
 *
 * The device's own track, not the GPU process's: CUDA device D is the
 * recorded GPU D only when the command's devices were recorded in order
 * (--gpu cuda, one GPU), and the export cannot know that. Process id
 * 200000 + h, clear of the host, GPU and threads ids.
 */
#include <stdlib.h>
#include <string.h>

#include "perfetto_export.h"
#include "kernels_file.h"

static void slice(FILE *f, const struct host_trace *hs, int h, int64_t origin_ns, int pid, int tid,
                  const char *name, int64_t a, int64_t b)
{
    int64_t t0 = host_shared_ns(&hs[h], a) - origin_ns, t1 = t0 + (b - a);
    if (t1 <= 0 || b <= a)
        return;
    if (t0 < 0)
        t0 = 0;                          /* cut at the shared timeline's origin */
    perfetto_event_start(f);
    fprintf(f, "{\"name\":\"%s\",\"cat\":\"cuda\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d", name, pid, tid);
    perfetto_write_ts(f, "ts", t0);
    perfetto_write_ts(f, "dur", t1 - t0);
    fputs("}", f);
}

void perfetto_write_kernels(FILE *f, const struct host_trace *hs, int h, int64_t origin_ns)
{
    char path[4096 + 16];
    if (strcmp(hs[h].path, "-") == 0)
        return;                          /* a trace on stdin has no file beside it */
    snprintf(path, sizeof path, "%s.kernels", hs[h].path);
    struct kernels_data *k = kernels_file_load(path);
    if (!k)
        return;
    int pid = 200000 + h;
    char name[HOST_NAME_LEN + 32];
    snprintf(name, sizeof name, "CUDA kernels (%s)", hs[h].name);
    perfetto_metadata(f, "process_name", pid, 0, name);
    for (int d = 0; d < k->ndev; d++) {
        const struct kernels_device *kd = &k->dev[d];
        if (!kd->nbusy)
            continue;
        char tname[32];
        snprintf(tname, sizeof tname, "device %d", d);
        perfetto_metadata(f, "thread_name", pid, d + 1, tname);
        long c = 0;
        for (long i = 0; i < kd->nbusy; i++) {
            const struct kernels_span *b = &kd->busy[i];
            int64_t at = b->t0;              /* the busy piece less its collectives */
            while (c < kd->ncoll && kd->coll[c].t1 <= at)
                c++;
            for (long j = c; j < kd->ncoll && kd->coll[j].t0 < b->t1; j++) {
                int64_t c0 = kd->coll[j].t0 > at ? kd->coll[j].t0 : at;
                int64_t c1 = kd->coll[j].t1 < b->t1 ? kd->coll[j].t1 : b->t1;
                slice(f, hs, h, origin_ns, pid, d + 1, "kernels", at, c0);
                slice(f, hs, h, origin_ns, pid, d + 1, "collective", c0, c1);
                at = c1;
            }
            slice(f, hs, h, origin_ns, pid, d + 1, "kernels", at, b->t1);
        }
    }
    kernels_file_free(k);
}
