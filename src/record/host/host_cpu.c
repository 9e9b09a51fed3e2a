/* host_cpu.c — /proc/stat busy percentage; see host_cpu.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "host_cpu.h"

int host_cpu_parse(const char *text, unsigned long long *busy, unsigned long long *total)
{
    if (strncmp(text, "cpu ", 4) != 0)
        return -1;
    const char *p = text + 4;
    unsigned long long f[8] = { 0 };
    int n = 0;
    for (; n < 8; n++) {
        while (*p == ' ')
            p++;
        if (*p < '0' || *p > '9')
            break;
        char *end;
        errno = 0;
        f[n] = strtoull(p, &end, 10);
        if (errno)
            return -1;
        p = end;
    }
    if (n < 4)          /* user nice system idle at least */
        return -1;
    /* user nice system idle iowait irq softirq steal */
    unsigned long long idle = f[3] + f[4];
    *busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
    *total = *busy + idle;
    return 0;
}

/* Reads only the first line: /proc/stat's other lines (one per CPU,
 * interrupts) can be tens of kilobytes on big hosts. */
static int read_totals(struct host_cpu *h, unsigned long long *busy, unsigned long long *total)
{
    char buf[512];
    ssize_t n = pread(h->fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return host_cpu_parse(buf, busy, total);
}

static void remember(struct host_cpu *h, long long t_ns, unsigned long long busy,
                     unsigned long long total)
{
    h->history[h->head] = (struct host_cpu_reading){ t_ns, busy, total };
    h->head = (h->head + 1) % HOST_CPU_HISTORY;
    if (h->count < HOST_CPU_HISTORY)
        h->count++;
}

int host_cpu_open(struct host_cpu *h, const char *path, long long now_ns)
{
    memset(h, 0, sizeof *h);
    snprintf(h->path, sizeof h->path, "%s", path ? path : HOST_CPU_DEFAULT_PATH);
    h->fd = open(h->path, O_RDONLY | O_CLOEXEC);
    if (h->fd < 0) {
        diag_warn("%s: %s; host_cpu_busy_pct stays empty", h->path, strerror(errno));
        h->warned = 1;
        return -1;
    }
    unsigned long long busy, total;
    if (read_totals(h, &busy, &total) != 0) {
        diag_warn("%s: no 'cpu' line; host_cpu_busy_pct stays empty", h->path);
        h->warned = 1;
        close(h->fd);
        h->fd = -1;
        return -1;
    }
    remember(h, now_ns, busy, total);
    return 0;
}

int host_cpu_read(struct host_cpu *h, long long now_ns, double *busy_pct)
{
    unsigned long long busy, total;
    if (h->fd < 0 || read_totals(h, &busy, &total) != 0) {
        if (!h->warned && h->fd >= 0)
            diag_warn("%s: unreadable; host_cpu_busy_pct left empty", h->path);
        h->warned = 1;
        return -1;
    }
    /* Walk back from the newest reading to the first one at least a span
     * old; the oldest kept one serves while the history is shorter. */
    const struct host_cpu_reading *base = NULL;
    for (int i = 1; i <= h->count; i++) {
        base = &h->history[(h->head - i + HOST_CPU_HISTORY) % HOST_CPU_HISTORY];
        if (now_ns - base->t_ns >= HOST_CPU_SPAN_NS)
            break;
    }
    int ok = base && total > base->total && busy >= base->busy;
    if (ok)
        *busy_pct = 100.0 * (double)(busy - base->busy) / (double)(total - base->total);
    remember(h, now_ns, busy, total);
    return ok ? 0 : -1;
}

void host_cpu_close(struct host_cpu *h)
{
    if (h->fd >= 0)
        close(h->fd);
    h->fd = -1;
}
