/*
 * thread_sampler.h — records what every thread of the traced process tree
 * is doing (state, wait channel, system call, file kind) into the threads
 * file beside the trace (TRACE.threads, format in threads_file.h).
 *
 * It runs on its own thread at its own interval, so a slow /proc read never
 * delays a GPU sample or a mark; it only ever costs CPU time, which it
 * measures and writes into the file's end line.
 */
#ifndef FLINCH_THREAD_SAMPLER_H
#define FLINCH_THREAD_SAMPLER_H

#include <sys/types.h>

#define THREAD_SAMPLER_DEFAULT_MS 100
#define THREAD_SAMPLER_MAX_THREADS 8192    /* threads looked at per sweep */
#define THREAD_SAMPLER_KEEP_MAX 1024       /* threads whose /proc files stay open */

struct thread_sampler;

struct csv_out;

/* Opens TRACE_PATH.threads for appending (a new or empty file gets the
 * format line; an existing one must start with it) and starts sampling
 * root's tree every interval_ms. proc_root: NULL for /proc. trace (ncols
 * columns): where the threads_skipped EVENT rows go (thread_skips.h);
 * NULL for none. Returns NULL after a diag_warn line: the recording goes
 * on without thread states. */
struct thread_sampler *thread_sampler_start(const char *trace_path, pid_t root, int interval_ms,
                                            const char *proc_root, struct csv_out *trace,
                                            int ncols);

/* The process tree to sample, as the recorder's tree watcher (proc_tree.h)
 * last found it; until the first call, the root alone. Called from the
 * recorder's loop: it never waits (a sampler busy copying the last list
 * skips this one). */
void thread_sampler_set_tree(struct thread_sampler *s, const pid_t *pids, int n);

/* Takes a last sweep, writes the end line, stops the thread and frees s
 * (NULL is fine). */
void thread_sampler_stop(struct thread_sampler *s);

#endif
