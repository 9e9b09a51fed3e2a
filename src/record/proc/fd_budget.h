/*
 * fd_budget.h — how many file descriptors a part of the recorder may keep
 * open without starving the rest (issue 26: the thread sampler kept four
 * per thread until open() failed with EMFILE, and then the trace, the
 * FIFO, the metrics server and every /proc read of the recorder failed
 * with it: processes read as exited, threads as gone).
 *
 * Owns the limit (RLIMIT_NOFILE, its soft value raised to the hard one
 * once), the count of descriptors open now, and FD_BUDGET_RESERVE, the
 * descriptors always left to the recorder's own files: the trace, the
 * marks FIFO and its reopening, the live feed, the metrics server's
 * clients (METRICS_HTTP_MAX_CONN) and spare, the metrics file, and the
 * transient /proc reads of every thread.
 */
#ifndef FLINCH_FD_BUDGET_H
#define FLINCH_FD_BUDGET_H

#define FD_BUDGET_RESERVE 64

/* True for the errors that mean "no descriptor left", not "no such file". */
int fd_budget_exhausted(int err);

/* Raises the soft descriptor limit to the hard one (once, best effort) and
 * returns how many more descriptors may be kept open now beyond the
 * reserve: limit - open now - FD_BUDGET_RESERVE, at least 0. */
long fd_budget_spare(void);

#endif
