/*
 * perfetto_threads.c — the traced threads in the Perfetto export: one
 * process "traced threads (HOST)" with a track per thread, named by its
 * name and tid, holding its recorded states as complete events ("ph":"X")
 * named by class (network, lock, ...; thread_class.h) with what it was in,
 * its state letter, wait channel, system call and file kind in args. So a
 * pause reads thread by thread beside the GPU counters.
 *
 * The spans come from the threads file beside the trace (threads_file.h);
 * a trace without one adds nothing. Process id 100000 + h (clear of the
 * host and GPU ids of perfetto_export.h); thread ids are the real tids.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json_escape.h"
#include "perfetto_export.h"
#include "thread_class.h"
#include "threads_file.h"
#include "tid_index.h"


int perfetto_write_threads(FILE *f, const struct host_trace *hs, int h, int64_t origin_ns)
{
    struct threads_reader tr;
    int rc = threads_reader_open(&tr, hs[h].path);
    if (rc == 1)
        return 0;
    if (rc < 0) {
        diag_error("%s", tr.error);
        return EXIT_USAGE;
    }
    int pid = 100000 + h;
    char name[HOST_NAME_LEN + 32];
    snprintf(name, sizeof name, "traced threads (%s)", hs[h].name);
    perfetto_metadata(f, "process_name", pid, 0, name);
    struct tid_index named = { 0 };     /* tids whose track is named: a hash, not a scan */
    struct thread_span sp;
    while ((rc = threads_reader_next(&tr, &sp)) == 1) {
        if (tid_index_get(&named, sp.tid) < 0) {
            if (tid_index_put(&named, sp.tid, 0) != 0) {
                diag_error("out of memory");
                rc = -2;
                break;
            }
            char tname[THREADS_NAME_MAX + 32];
            snprintf(tname, sizeof tname, "%s %ld", sp.name, sp.tid);
            perfetto_metadata(f, "thread_name", pid, (int)sp.tid, tname);
        }
        /* a state the sampler saw before the trace's first row (its
         * session can begin earlier) is cut at the origin: the timeline
         * starts at 0 */
        int64_t t0 = host_shared_ns(&hs[h], sp.t0_ns) - origin_ns;
        int64_t t1 = t0 + (sp.t1_ns - sp.t0_ns);
        if (t1 <= 0)
            continue;
        if (t0 < 0)
            t0 = 0;
        char detail[96];
        enum thread_class c = thread_classify(sp.state, sp.wchan, sp.call, sp.fd, detail,
                                              sizeof detail);
        perfetto_event_start(f);
        fprintf(f, "{\"name\":\"%s\",\"cat\":\"thread\",\"ph\":\"X\",\"pid\":%d,\"tid\":%ld",
                thread_class_name(c), pid, sp.tid);
        perfetto_write_ts(f, "ts", t0);
        perfetto_write_ts(f, "dur", t1 - t0);
        fputs(",\"args\":{\"in\":", f);
        json_write_string(f, detail);
        char state[2] = { sp.state, '\0' };   /* escaped like every other string */
        fputs(",\"state\":", f);
        json_write_string(f, state);
        fputs(",\"wchan\":", f);
        json_write_string(f, sp.wchan);
        fputs(",\"call\":", f);
        json_write_string(f, sp.call);
        fputs(",\"fd\":", f);
        json_write_string(f, sp.fd);
        fputs("}}", f);
    }
    tid_index_free(&named);
    if (rc == -1)
        diag_error("%s", tr.error);
    threads_reader_close(&tr);
    return rc < 0 ? EXIT_USAGE : 0;
}
