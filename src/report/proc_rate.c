/* proc_rate.c — see proc_rate.h. */
#include <math.h>

#include "proc_rate.h"

void proc_rate_init(struct proc_rate *r)
{
    r->prev_cpu_ns = NAN;
    r->prev_pid = NAN;
    r->prev_t_ns = 0;
}

int proc_rate_step(struct proc_rate *r, const struct trace_row *row, double *cores)
{
    double cpu = row->v[COL_PROC_CPU_NS], pid = row->v[COL_PROC_PID];
    if (isnan(cpu))
        return 0;
    int same_process = pid == r->prev_pid || (isnan(pid) && isnan(r->prev_pid));
    int known = !isnan(r->prev_cpu_ns) && row->t_mono_ns > r->prev_t_ns &&
                cpu >= r->prev_cpu_ns && same_process;
    if (known)
        *cores = (cpu - r->prev_cpu_ns) / (double)(row->t_mono_ns - r->prev_t_ns);
    r->prev_cpu_ns = cpu;
    r->prev_pid = pid;
    r->prev_t_ns = row->t_mono_ns;
    return known;
}
