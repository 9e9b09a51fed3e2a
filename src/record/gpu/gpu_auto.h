/*
 * gpu_auto.h — `--gpu auto`: the GPUs on which the recorded process tree
 * (-- CMD, or --pid) has a compute context, found as they appear.
 *
 * Owns: asking NVML who has a compute context (nvmlDeviceGetComputeRunningProcesses,
 * the symbol nvml_loader picked), growing a bounded buffer on
 * NVML_ERROR_INSUFFICIENT_SIZE, telling the tree's pids from others',
 * including through the NSpid line of /proc/PID/status, and noticing pids
 * from another PID namespace.
 *
 * Driver calls: one per GPU not found yet every GPU_AUTO_POLL_NS (500 ms),
 * none for a GPU once found or once it refused (NOT_SUPPORTED,
 * NO_PERMISSION...), none at all once every GPU is one or the other. At
 * 8 GPUs that is at most 16 calls a second, against the thousands a 10 ms
 * recording makes; the recorder makes them after a tick's rows are written.
 *
 * Namespaces: a pid NVML reports is matched against every pid the tree's
 * processes have in their NSpid line: their pid in the PID namespace of
 * flinch's /proc and in each namespace nested below it. A driver reports
 * pids of the host's namespace; from inside a container those are in no
 * NSpid line of any process there, so they cannot be mapped. A reported pid
 * that names no process here at two polls in a row is taken for such a pid.
 */
#ifndef FLINCH_GPU_AUTO_H
#define FLINCH_GPU_AUTO_H

#include <stdint.h>
#include <sys/types.h>

#include "nvml_loader.h"
#include "trace_limits.h"

#define GPU_AUTO_POLL_NS (500LL * 1000000LL)
#define GPU_AUTO_PROCS_MAX 1024    /* processes one call may list */
#define GPU_AUTO_SUSPECTS 8        /* unknown pids remembered per GPU */

enum gpu_auto_state { GPU_AUTO_WAITING, GPU_AUTO_FOUND, GPU_AUTO_REFUSED };

struct gpu_auto {
    unsigned count;                           /* GPUs considered (NVML's, at most TRACE_MAX_GPUS) */
    int state[TRACE_MAX_GPUS];
    nvmlReturn_t refused_rc[TRACE_MAX_GPUS];
    nvmlDevice_t handle[TRACE_MAX_GPUS];
    int have_handle[TRACE_MAX_GPUS];
    unsigned suspect[TRACE_MAX_GPUS][GPU_AUTO_SUSPECTS]; /* last poll's pids with no process here */
    int nsuspect[TRACE_MAX_GPUS];
    int64_t next_poll_ns;
    long long calls;                          /* driver calls made */
    int foreign_seen;                         /* another namespace's pids: said once */
    void *buf;                                /* cap entries of the symbol's layout */
    unsigned cap;
};

/* What one poll found, for the recorder to write down. */
struct gpu_auto_news {
    int njoined;
    unsigned joined[TRACE_MAX_GPUS];          /* NVML indices, in index order */
    pid_t joined_pid[TRACE_MAX_GPUS];         /* the tree's process (our pid) */
    unsigned joined_nvml_pid[TRACE_MAX_GPUS]; /* as NVML reported it */
    int nrefused;
    unsigned refused[TRACE_MAX_GPUS];         /* newly refused: see a->refused_rc */
    int foreign;                              /* first sign of another namespace's pids */
    unsigned foreign_gpu, foreign_pid;
};

/* Checks the library can list compute processes and remembers the GPU
 * count. 0, or -1 after one error line. */
int gpu_auto_open(struct gpu_auto *a, const struct nvml_lib *lib, unsigned count);

/* Asks, when a poll is due at now_ns, every GPU still waiting. tree: the
 * recorded processes (our pids). Returns 1 when *news holds something. */
int gpu_auto_poll(struct gpu_auto *a, const struct nvml_lib *lib, const pid_t *tree, int ntree,
                  int64_t now_ns, struct gpu_auto_news *news);

/* GPUs still waiting (neither found nor refused). */
int gpu_auto_waiting(const struct gpu_auto *a);

void gpu_auto_close(struct gpu_auto *a);

/* The tree's process a reported pid stands for: *ours and 1 (via_nspid 1
 * when only a nested namespace's pid matched); 0 when it is some other
 * process here; -1 when no process here has this pid. proc_root: "/proc"
 * (a test may pass another tree of PID/status files). */
int gpu_auto_match(unsigned nvml_pid, const pid_t *tree, int ntree, const char *proc_root,
                   pid_t *ours, int *via_nspid);

#endif
