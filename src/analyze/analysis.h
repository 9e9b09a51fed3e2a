/*
 * analysis.h — the result of analysing a trace: windows between MARKs, with
 * exact energy, utilization, CPU and a verdict each, and a summary.
 *
 * Owns: the data model shared by analyze's reports and by plot/export (which
 * shade the windows), and analysis_run(), which streams a trace once through
 * the reader -> windows -> integration -> verdict stages.
 */
#ifndef FLINCH_ANALYSIS_H
#define FLINCH_ANALYSIS_H

#include <stdint.h>

#include "sensor_cadence.h"
#include "trace_limits.h"
#include "trace_reader.h"
#include "kernels_window.h"
#include "map_array.h"

#define ANALYSIS_REASON_BITS 16     /* clock-event reason bits counted */
#define EVIDENCE_MAX 640

enum energy_source {
    SOURCE_NONE,        /* no power data for this GPU in the window */
    SOURCE_COUNTER,     /* gpu_energy_mJ, interpolated to the marks */
    SOURCE_INSTANT,     /* trapezoid over gpu_power_instant_W */
    SOURCE_AVERAGE,     /* trapezoid over gpu_power_W (a 1 s average on Ampere+) */
    SOURCE_ESTIMATE     /* counter increments on their fitted update grid + a step model
                           inside the edge steps (energy_estimator.c) */
};

enum verdict {
    VERDICT_INCONCLUSIVE,
    VERDICT_COMPUTE,
    VERDICT_WAITING,
    VERDICT_HOST_CPU,
    VERDICT_MIXED,
    VERDICT_COUNT
};

/* How far a window's answer can be trusted (confidence.h); NONE for an
 * inconclusive window, which has no answer to grade. */
enum confidence { CONFIDENCE_NONE, CONFIDENCE_HIGH, CONFIDENCE_MEDIUM, CONFIDENCE_LOW };
#define CONFIDENCE_REASON_MAX 240

/* Window flags: why a number may not be trusted. */
#define WINDOW_INCOMPLETE    0x1  /* a mark lies after the last sample */
#define WINDOW_BEFORE_TRACE  0x2  /* the start lies before the first sample */
#define WINDOW_FEW_SAMPLES   0x4  /* fewer than two samples inside */
#define WINDOW_UNDER_STEP    0x8  /* shorter than the energy counter's update step */
#define WINDOW_NO_POWER      0x10 /* no power readings at all */
#define WINDOW_UNDER_UTIL    0x200 /* shorter than the utilization sensor's update period */
/* Bad sensor data overlapping the window (sensor_faults.h); the energy then
 * comes from the next-best source, which alone does not make it inconclusive. */
#define WINDOW_COUNTER_STUCK     0x400
#define WINDOW_COUNTER_BACKWARDS 0x800
#define WINDOW_COUNTER_JUMP      0x1000
#define WINDOW_POWER_FROZEN      0x2000
#define WINDOW_SENSOR_LOST       0x4000
#define WINDOW_UNDER_POWER_PERIOD 0x8000 /* from instant power, and shorter than its refresh period */
/* The end mark says the range was left by an exception (interrupted=WHY):
 * the numbers stand, the work was cut short; not inconclusive. */
#define WINDOW_INTERRUPTED 0x20000
/* An edge too near the end of the trace for the counter's updates after it
 * (energy_estimator.h): the energy is the interpolated counter, +- about a
 * counter step. Not inconclusive: the number is wide, not wrong. */
#define WINDOW_NEAR_END          0x10000

/* The classes of a window's time (breakdown.h); the tokens are the same in
 * every output: "compute", "host-cpu", "waiting", "not-recorded". The last
 * is time before a GPU joined the recording (--gpu auto) while no other GPU
 * computed: flinch has no evidence for that GPU there, so it is neither
 * waiting nor compute. */
/* CLASS_COLLECTIVE: NCCL kernels' time, only where kernels were traced
 * (flinch record --cuda; kernels_busy.h): neither compute nor waiting. */
enum time_class { CLASS_COMPUTE, CLASS_HOST_CPU, CLASS_WAITING, CLASS_NOT_RECORDED, CLASS_COLLECTIVE,
                  CLASS_COUNT };
#define BREAKDOWN_MAX_SEGMENTS 64

struct segment {
    double start_ms, end_ms;     /* from the window's start */
    enum time_class cls;
    const char *reason;          /* why, beyond the class: "gpu-spin" (gpu_spin.h), NULL */
};
/* A window's (or GPU's) reason: see breakdown_reason (breakdown.h). */

/* A window's time divided into classes (one GPU's, or the window's). */
struct breakdown {
    int valid;                   /* 0: no breakdown (no GPU signal at all) */
    double ms[CLASS_COUNT];      /* per class, sums to the window's duration */
    int not_recorded_gpu;        /* the GPU (gpu_index) whose late join made the longest
                                    not-recorded span; meaningful when ms[CLASS_NOT_RECORDED] > 0 */
    double resolution_ms;        /* +- on every segment edge */
    int from_kernels;            /* the GPU-busy signal came from traced kernels (kernels_busy.h)
                                    on every GPU with a signal: totals exact to the us */
    int nseg;                    /* at most BREAKDOWN_MAX_SEGMENTS */
    int outline_of;              /* > 0: the segments are an outline drawn from this many
                                    (a flickering window), the totals still the breakdown's */
    struct segment *seg;         /* nseg of them, its own (malloc'd; breakdown_release frees
                                    them, window_release a window's): room for every possible
                                    segment in each of a window's breakdowns made a window
                                    3.5 KB and each of its GPUs 2.6 KB, 60 MB for 10,000 */
};

struct window_tape;
struct window_samples;

/* GPM metrics (Hopper and newer) over a window (gpm_evidence.h): the
 * recorder's GPM spans (~200 ms each) that lie whole inside it. */
enum gpm_status {
    GPM_ABSENT,         /* the trace has no GPM values for this GPU */
    GPM_TOO_COARSE,     /* fewer than GPM_MIN_SPANS whole spans inside */
    GPM_OK
};
enum { GPM_SM_ACTIVE_PCT, GPM_SM_OCCUPANCY_PCT, GPM_TENSOR_ACTIVE_PCT, GPM_DRAM_BW_PCT, GPM_METRICS };
struct gpm_evidence {
    enum gpm_status status;
    int spans;                   /* whole spans inside the window */
    double span_ms;              /* the longest of the spans around the window */
    double covered_ms;           /* their total */
    double pct[GPM_METRICS];     /* span-weighted means; NAN unless GPM_OK (or a metric absent) */
};

/* PCIe notes: why a byte count is a bound or may be short. */
#define PCIE_NOTE_RESET      0x1  /* the counter restarted inside: bytes are a lower bound */
#define PCIE_NOTE_MISS_WRAPS 0x2  /* 32-bit counter read less often than it can wrap: whole
                                     4 GiB wraps may be missing */

/* Host<->GPU traffic over a window from the PCIe byte counters (fields 197
 * TX = GPU to host, 198 RX = host to GPU; peer traffic over PCIe counts too),
 * read every tick and linear in between: a count at an instant is good to
 * the tick. NAN where the trace has no counters. */
struct pcie_traffic {
    double tx_bytes, rx_bytes;
    double copy_ms;              /* waiting time whose traffic was >= copy_gbps */
    double copy_bytes;           /* TX + RX bytes in that time */
    double waiting_bytes;        /* TX + RX bytes in all waiting time */
    double tick_ms;              /* how often the counters were read */
    unsigned notes;              /* PCIE_NOTE_* */
};

struct window_gpu {
    int gpu;                     /* gpu_index */
    int host;                    /* index into analysis.host_names (0 with one trace) */
    enum energy_source source;
    double energy_j;             /* from `source`; NAN when none */
    double uncertainty_j;        /* +- bound on energy_j (see README) */
    double energy_counter_j, energy_instant_j, energy_average_j; /* each source, NAN if n/a */
    double energy_estimate_j, estimate_unc_j; /* energy_estimator.c, NAN if n/a */
    double knot_unc_s;           /* how well the estimator placed the counter's updates */
    double mean_power_w;         /* energy_j / duration */
    double util_pct;             /* time-weighted mean gpu_util_pct, NAN if none */
    long samples;                /* SAMPLE rows of this GPU with start <= t <= end */
    double max_gap_s;            /* longest interval between consecutive samples overlapping the window */
    double counter_step_s;       /* typical update step of the energy counter, NAN if none */
    double util_period_s;        /* the utilization sensor's update period, NAN if unknown */
    unsigned fault;              /* the first sensor fault flag overlapping the window, 0 if none */
    int fault_sensor;            /* enum sensor_id it concerns */
    int64_t fault_t0_ns, fault_t1_ns; /* its span (t_mono_ns) */
    double fault_value;          /* stuck: lowest power seen (W); jump: implied power (W) */
    enum energy_source fell_from; /* the source the fault ruled out, SOURCE_NONE if none */
    double power_limit_w;        /* last enforced limit seen, NAN if none */
    unsigned reason_counts[ANALYSIS_REASON_BITS]; /* samples in the window with each reason bit set */
    double idle_w, busy_w;       /* power levels the verdict used */
    unsigned flags;
    int joined_late;             /* before-trace because the GPU joined the recording after
                                    the window started (--gpu auto) */
    struct breakdown bd;         /* busy (compute) / idle (host-cpu, waiting) in time */
    struct gpm_evidence gpm;     /* SM activity etc. from GPM spans (gpm_evidence.h) */
    const struct kernels_device *kernel_dev; /* its kernel spans while the window is being
                                    finished (breakdown_window reads them); NULL after */
    struct kernel_gaps *kernel_gaps; /* where breakdown_window splits its gaps (its evidence's),
                                    while the window is being finished; NULL after */
    /* kernels against NVML (kernels_busy.h): kernel time while NVML read
     * idle, NVML busy time without a kernel; nvml_check_ms: what either must
     * pass to be reported; 0: no check made (no kernels, or no NVML signal) */
    double kernels_nvml_idle_ms, nvml_busy_no_kernels_ms, nvml_check_ms;
    long kernels;                /* 1-based index into analysis.kernel_ev (TRACE.kernels,
                                    --cuda; kernels_window.h); 0: no kernel data */
    struct pcie_traffic pcie;    /* host<->GPU bytes (pcie_window.h) */
    /* Whose SM time it was (proc_share.h): the per-process readings
     * overlapping the window, weighted by overlap; NAN when none. */
    double proc_sm_pct, other_sm_pct;
    int proc_readings;
    int64_t proc_t0_ns, proc_t1_ns;  /* the span those readings cover */
    double proc_cover;               /* fraction of the window they cover */
    /* Compute at an SM clock below half of the GPU's maximum (slow_clock.h):
     * the maximum (flinch_gpu max_sm_clock_MHz, NAN: not recorded), the
     * compute time that ran slow and its resolution (NAN: no maximum or no
     * clock read), where the first of it starts (ms from the window start),
     * and whether it was the first request after idle */
    double max_sm_clock_mhz;
    double slow_clock_ms, slow_clock_res_ms, slow_clock_from_ms;
    int slow_clock_after_idle;
};

struct window {
    long index;                  /* 1-based, in order of start mark in the file */
    int recording;               /* 1-based: the recording of the file it lies in (a window
                                    never spans two; trace_row.recording) */
    const char *start_label, *end_label;
    int64_t t_start_ns, t_end_ns;        /* t_mono_ns of the marks */
    int64_t wall_start_ns, wall_end_ns;  /* their t_wall_ns, 0 if none */
    long start_line, end_line;           /* where the marks are in the file */
    char category[MARK_CATEGORY_MAX + 1]; /* the start mark's NVTX category=, "" none */
    char payload[MARK_PAYLOAD_MAX + 1];   /* its payload= (a JSON number), "" none */
    double duration_s;
    int ngpu;
    struct window_gpu *gpu;      /* ngpu entries, in gpu_index order */
    double energy_j;             /* all GPUs */
    double uncertainty_j;
    double mean_power_w;
    double host_cpu_pct;         /* time-weighted host_cpu_busy_pct, NAN if none */
    double proc_cores;           /* d(proc_cpu_ns)/dt, NAN if none */
    double rapl_j[TRACE_RAPL_MAX]; /* per RAPL domain, NAN if none */
    unsigned flags;              /* OR of the GPUs' flags */
    struct breakdown bd;         /* compute when any GPU is busy */
    struct pcie_traffic pcie;    /* all GPUs' host<->GPU bytes; copy_* over w->bd's waiting segments */
    double top_thread_cores;     /* busiest thread's mean share of one core while no GPU computed, NAN if none */
    char top_thread[40];         /* its "TID name", "" if unknown */
    /* The CPU side (cpu_side.h): whether the trace has the traced tree, the
     * tree's run-queue delay in the window (NAN: not recorded), and the
     * host-cpu ms that were the job starved of a CPU / the host saturated. */
    int cpu_tree_known;
    double cpu_runq_ms, cpu_starved_ms, cpu_saturated_ms;
    struct window_samples *samples; /* private: where its samples lie until the breakdown is made */
    struct window_tape *tape;    /* private: those samples decoded, during the breakdown only */
    enum verdict verdict;
    /* The texts (window_texts.h): at most EVIDENCE_MAX and
     * CONFIDENCE_REASON_MAX bytes, writable only between
     * window_texts_begin and window_texts_keep. */
    char *evidence;              /* "power 63 W = idle 60 W + 2% of the busy range; gpu util 0%; cpu 3%" */
    enum confidence confidence;  /* confidence.h, set after the evidence */
    char *confidence_reason;     /* what lowers it, "" when nothing */
    char *texts;                 /* private: both texts' allocation, NULL when they are "" */
};

struct stat_summary { double median, p90, p99, max; };

/* A MARK taken from another trace (several hosts), in this trace's
 * t_mono_ns; see analysis_run_hosts. */
struct ext_mark {
    int64_t t_mono_ns, t_wall_ns;
    const char *label;
    long line;                           /* in its own trace */
};

/* --max-open's default: far above any real trace's overlapping windows,
 * and under 100 MB of open records. */
#define ANALYSIS_MAX_OPEN_DEFAULT 100000
#define ANALYSIS_MAX_OPEN_MAX 1000000000

struct analysis_options {
    const char *start_label, *end_label;
    const char *range_name;              /* --range: pair MARKs by range ID (windows.h); start/end = it */
    const char *range_domain;            /* --domain: only that NVTX domain ("" default); NULL any */
    const char *range_category;          /* --category: only ranges whose start has that category; NULL any */
    /* Instead of a label or range name: every range, each window named by
     * this (windows.h, pairing_init_any); start/end labels must be "". */
    const char *(*range_namer)(void *arg, const char *label);
    void *range_namer_arg;
    const char *idle_start, *idle_end;   /* --idle-window, NULL if not given */
    double idle_w, busy_w;               /* --idle-w / --busy-w; NAN: from the trace */
    double compute_frac;                 /* >= this fraction of the busy range: compute (0.5) */
    double idle_frac;                    /* <= this fraction: GPU idle (0.15) */
    double cpu_busy_pct;                 /* host saturated at or above this: host-cpu (90) */
    double proc_busy_cores;              /* traced process tree at or above this: host-cpu (0.5) */
    double class_frac;                   /* one class holding this much of a window names it (2/3) */
    double copy_gbps;                    /* --copy-gbps: waiting with PCIe traffic at or above this
                                            (GB/s, TX + RX) is waiting on copies (1) */
    int ring_samples;                    /* history kept per GPU for late marks (4096) */
    long max_open;                       /* --max-open: windows open at once; past it the
                                            oldest start is dropped (100000) */
    /* When set, windows come from these marks (sorted by time) instead of
     * the trace's own MARK rows. */
    const struct ext_mark *marks;
    long nmarks;
};

#define ANALYSIS_MAX_HOSTS 16

/* A GPU as the recorder described it (flinch_gpu EVENT row, trace_event.h). */
struct gpu_ident {
    int id;                       /* gpu_index */
    char name[64], uuid[48], pci[24];
    char compute_mode[24], mig[8], power_limit_w[16]; /* as recorded; "" when not */
    int persistence_off;
    char gpm_off[24];             /* flinch_gpm status=off: its reason ("" on, or no such row) */
    char gpm_detail[64];          /* ... and its detail */
    int pcie_bits;                /* flinch_fields pcie_bits: 32, 64; 0 unknown */
    char proc_util_off[64];       /* why per-process use was not recorded (flinch_proc_util), "" */
    double max_sm_clock_mhz;      /* flinch_gpu max_sm_clock_MHz; NAN when not recorded */
};
#define ANALYSIS_MAX_IDENTS TRACE_MAX_GPUS  /* one limit: trace_limits.h */

struct waiting_on;
struct cgroup_series;

/* One recording of a file that holds several (`flinch record` appends to
 * its --out; the reader numbers them, trace_row.recording): its own power
 * levels, learned from its samples alone, and its own summary. The
 * windows of one recording are consecutive in analysis.windows. */
struct recording_result {
    int recording;                /* 1-based */
    long first_window, nwindows;  /* its windows: windows[first_window ..] */
    long unmatched_starts, unmatched_ends;
    double *idle_w, *busy_w;      /* per GPU in gpu_ids order: levels its windows used */
    const char **level_origin;
    int *gpu_seen;                /* per GPU: 1 when it has power readings in this recording */
    struct stat_summary duration_s, energy_j, mean_power_w;
    long verdict_count[VERDICT_COUNT];
    double waiting_median_ms;
    long waiting_windows;
    enum verdict verdict;
    char evidence[EVIDENCE_MAX];
};

struct analysis {
    struct kernel_evidence *kernel_ev;  /* the windows' GPUs' kernel evidence (window_gpu.kernels) */
    long nkernel_ev, cap_kernel_ev;
    const char *path;
    struct gpu_ident idents[ANALYSIS_MAX_IDENTS]; /* one trace's GPUs, from its EVENT rows */
    char hostname[64], driver[40], nvml[40]; /* its flinch_host row ("" if none) */
    int nidents;
    int nhosts;                   /* traces analysed together (1 for one trace) */
    const char *host_names[ANALYSIS_MAX_HOSTS];
    int64_t host_offset_ns[ANALYSIS_MAX_HOSTS]; /* t_wall_ns - t_mono_ns assumed per host */
    int ngpu;
    int *gpu_ids;                 /* ngpu gpu_index values, ascending (per host) */
    int *gpu_host;                /* host of each, NULL with one trace */
    double *idle_w, *busy_w;      /* per GPU: levels used by the verdict */
    const char **level_origin;    /* per GPU: "trace percentiles", "flags", "idle window", "power limit" */
    struct cadence *cadence;      /* per GPU, SENSOR_N each: measured update periods (sensor_cadence.h) */
    long nwindows;
    struct window *windows;
    struct map_array windows_map;        /* where windows lie (map_array.h) */
    long unmatched_starts;        /* start marks with no end mark after them */
    long unmatched_ends;          /* end marks with no open start before them */
    long dropped_starts;          /* open starts dropped over --max-open (not unmatched_starts) */
    long marks, samples, rows;
    long recordings;              /* recordings in the file after the first (trace_row.recording) */
    /* Per recording, when the file holds several (recordings > 0), else
     * NULL: idle_w, busy_w and level_origin above are then the first
     * recording's that has the GPU, the summary below is the total. */
    struct recording_result *by_recording;
    int nby_recording;
    int gpm_seen;                 /* some SAMPLE row carries GPM values (gpu_gpm_span_ns) */
    int64_t first_row_ns;         /* t_mono_ns of the file's first row: tables count from it */
    int n_rapl;
    char *rapl_domain[TRACE_RAPL_MAX];
    char **labels_seen;           /* distinct MARK labels, in order of first appearance */
    int nlabels_seen;
    /* summary over windows */
    struct stat_summary duration_s, energy_j, mean_power_w;
    long verdict_count[VERDICT_COUNT];
    double waiting_median_ms;     /* median waiting time over windows with some, NAN if none */
    long waiting_windows;
    struct waiting_on *waiting;   /* thread states per window (waiting_on.h); NULL: no threads file */
    struct cgroup_series *cgroup; /* the command's cgroup CPU throttling (cgroup_throttle.h); NULL: none */
    enum verdict verdict;
    char evidence[EVIDENCE_MAX];
};

void analysis_default_options(struct analysis_options *o);
/* The window flags as plot and export take them: --start and --end come
 * together, and not with --no-windows; --range (with --domain, --category) replaces
 * them and becomes both (*start = *end = range). 0, or -1 after one error line. */
int analysis_check_window_flags(const char **start, const char **end, const char *range,
                                const char *domain, const char *category, int no_windows);
/* --max-open N: 1..ANALYSIS_MAX_OPEN_MAX into *out. 0, or -1 after one
 * error line. */
int analysis_parse_max_open(const char *s, long *out);
/* --range, --domain and --category: checks they agree with --start/--end and makes the
 * range name both labels. 0, or -1 after one error line. */
int analysis_range_options(struct analysis_options *o);
/* Streams PATH once. 0 on success; else an exit code from diag.h, with the
 * one-line message already printed through diag_error. */
int analysis_run(const struct analysis_options *o, const char *path, struct analysis *out);
void analysis_free(struct analysis *a);

struct host_trace;
/* Several traces (one per host, see hosts.h) on one timeline (t_wall_ns):
 * the start/end labels may be "HOST:LABEL"; windows from those marks are
 * measured on every host's GPUs. One host: analysis_run. */
int analysis_run_hosts(const struct analysis_options *o, struct host_trace *hosts, int nhosts,
                       struct analysis *out);

/* The update period of sensor s (enum sensor_id) of the GPU with this
 * gpu_index (host 0), as measured from the trace: NAN when unknown. For
 * callers that resolve time at a sensor's real cadence (segment edges). */
double analysis_sensor_period_s(const struct analysis *a, int gpu_index, int sensor);

const char *verdict_name(enum verdict v);        /* "compute", "waiting", ... */
const char *energy_source_name(enum energy_source s); /* "gpu_energy_mJ counter", ... */
const char *time_class_name(enum time_class c);  /* "compute", "host-cpu", "waiting", "not-recorded" */

#endif
