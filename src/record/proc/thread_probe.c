/*
 * thread_probe.c — one thread's state, wait channel, system call and file
 * kind (see thread_probe.h).
 *
 * The syscall file needs ptrace permission (PTRACE_MODE_ATTACH): under
 * Yama's ptrace_scope=1 only flinch's own descendants qualify, so for a
 * --pid process it is usually refused; the fd links and wchan need only
 * read permission (same user). A refusal is remembered per process and the
 * file is not tried again, so a refused read costs once, not every sweep.
 *
 * A wait on several descriptors is described by the strongest kind among
 * them (thread_fd_kind_max): epoll's watched descriptors come from
 * /proc/PID/fdinfo/EPFD; poll's and select's sets live in the process's
 * memory and are read with process_vm_readv, which needs the same ptrace
 * permission as the syscall file itself, so whoever sees the call sees its
 * set. At most FD_SET_MAX descriptors of one set are looked at.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fd_budget.h"
#include "thread_probe.h"

#define FD_SET_MAX 64

static ssize_t read_file(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    int saved = errno;
    close(fd);
    errno = saved;
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

int thread_parse_stat(const char *buf, char *name, size_t cap, char *state)
{
    const char *open = strchr(buf, '(');
    const char *close = strrchr(buf, ')');
    if (!open || !close || close < open || close[1] != ' ' || !close[2] || cap < 5)
        return -1;
    size_t len = 0;
    for (const char *p = open + 1; p < close && len + 5 < cap; p++) {
        unsigned char c = (unsigned char)*p;
        if (c <= ' ' || c > '~' || c == '\\')
            len += (size_t)snprintf(name + len, cap - len, "\\x%02x", c);
        else
            name[len++] = (char)c;
    }
    if (len == 0)
        name[len++] = '-';
    name[len] = '\0';
    *state = close[2];
    return 0;
}

const char *thread_fd_kind(const char *link)
{
    static const struct { const char *prefix, *kind; } kinds[] = {
        { "socket:", "socket" }, { "pipe:", "pipe" }, { "/dev/nvidia", "nvidia" },
        { "anon_inode:[eventfd]", "eventfd" }, { "anon_inode:[timerfd]", "timerfd" },
        { "anon_inode:[signalfd]", "signalfd" }, { "anon_inode:[eventpoll]", "epoll" },
        { "anon_inode:", "anon" }, { "/dev/pts/", "tty" }, { "/dev/tty", "tty" },
        { "/dev/", "dev" },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strncmp(link, kinds[i].prefix, strlen(kinds[i].prefix)) == 0)
            return kinds[i].kind;
    return link[0] == '/' ? "file" : "other";
}

static int kind_rank(const char *k)
{
    static const char *const order[] = { "socket", "nvidia", "pipe", "eventfd", "signalfd",
                                         "file", "timerfd" };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (strcmp(k, order[i]) == 0)
            return 100 - (int)i;
    return strcmp(k, "-") == 0 ? 0 : 1;
}

const char *thread_fd_kind_max(const char *a, const char *b)
{
    return kind_rank(b) > kind_rank(a) ? b : a;
}

int thread_parse_syscall(const char *buf, long *nr, unsigned long long args[6])
{
    if (strncmp(buf, "running", 7) == 0)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (end == buf || errno)
        return -1;
    if (v < 0)
        return 0;
    for (int i = 0; i < 6; i++) {
        const char *p = end;
        args[i] = strtoull(p, &end, 16);
        if (end == p)
            return -1;
    }
    *nr = v;
    return 1;
}

/* Kind of descriptor fd of pid; "?" when the link cannot be read for lack
 * of permission, "-" when the descriptor is not open. */
static const char *fd_kind(const char *proc_root, pid_t pid, long fd, unsigned *denied)
{
    char path[128], link[256];
    if (fd < 0 || fd > 1 << 24)
        return "-";
    snprintf(path, sizeof path, "%s/%d/fd/%ld", proc_root, (int)pid, fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n < 0) {
        if (errno == EACCES || errno == EPERM) {
            *denied |= PROBE_NO_FD;
            return "?";
        }
        return "-";
    }
    link[n] = '\0';
    return thread_fd_kind(link);
}

/* The strongest kind among the descriptors an epoll instance watches. */
static const char *epoll_kind(const char *proc_root, pid_t pid, long epfd, unsigned *denied)
{
    char path[128], buf[8192];
    snprintf(path, sizeof path, "%s/%d/fdinfo/%ld", proc_root, (int)pid, epfd);
    if (read_file(path, buf, sizeof buf) < 0)
        return (errno == EACCES || errno == EPERM) ? "?" : "-";
    const char *best = "-";
    int n = 0;
    for (const char *p = strstr(buf, "tfd:"); p && n < FD_SET_MAX; p = strstr(p + 4, "tfd:"), n++)
        best = thread_fd_kind_max(best, fd_kind(proc_root, pid, strtol(p + 4, NULL, 10), denied));
    return best;
}

static int read_remote(pid_t pid, unsigned long long addr, void *buf, size_t len)
{
    struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

static const char *poll_kind(const char *proc_root, pid_t pid, unsigned long long addr,
                             unsigned long long nfds, unsigned *denied)
{
    if (nfds == 0)
        return "-";
    struct pollfd set[FD_SET_MAX];
    size_t n = nfds < FD_SET_MAX ? (size_t)nfds : FD_SET_MAX;
    if (read_remote(pid, addr, set, n * sizeof set[0]) != 0)
        return "?";
    const char *best = "-";
    for (size_t i = 0; i < n; i++)
        if (set[i].fd >= 0)
            best = thread_fd_kind_max(best, fd_kind(proc_root, pid, set[i].fd, denied));
    return best;
}

static const char *select_kind(const char *proc_root, pid_t pid, unsigned long long nfds,
                               const unsigned long long sets[2], unsigned *denied)
{
    const char *best = "-";
    size_t bits = nfds < 1024 ? (size_t)nfds : 1024;
    for (int s = 0; s < 2; s++) {
        unsigned char map[128];
        size_t bytes = (bits + 7) / 8;
        if (!sets[s] || bytes == 0)
            continue;
        if (read_remote(pid, sets[s], map, bytes) != 0)
            return "?";
        int looked = 0;
        for (size_t fd = 0; fd < bits && looked < FD_SET_MAX; fd++)
            if (map[fd / 8] & (1u << (fd % 8))) {
                best = thread_fd_kind_max(best, fd_kind(proc_root, pid, (long)fd, denied));
                looked++;
            }
    }
    return best;
}

static int is_one_of(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(name, *list) == 0)
            return 1;
    return 0;
}

/* Calls whose first argument is the descriptor they wait on. */
static const char *const fd_first_calls[] = {
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2",
    "pwritev2", "ioctl", "fsync", "fdatasync", "sync_file_range", "syncfs", "fallocate", "flock",
    "accept", "accept4", "connect", "recvfrom", "sendto", "recvmsg", "sendmsg", "recvmmsg",
    "sendmmsg", "sendfile", "splice", "copy_file_range", "io_uring_enter", "close", NULL
};

static void describe_call(const char *proc_root, pid_t pid, const char *call,
                          const unsigned long long a[6], unsigned *denied, char *fd, size_t cap)
{
    const char *kind = "-";
    if (is_one_of(call, fd_first_calls))
        kind = fd_kind(proc_root, pid, (long)a[0], denied);
    else if (strncmp(call, "epoll_", 6) == 0)
        kind = epoll_kind(proc_root, pid, (long)a[0], denied);
    else if (strcmp(call, "poll") == 0 || strcmp(call, "ppoll") == 0)
        kind = poll_kind(proc_root, pid, a[0], a[1], denied);
    else if (strcmp(call, "select") == 0 || strcmp(call, "pselect6") == 0)
        kind = select_kind(proc_root, pid, a[0], a + 1, denied);
    snprintf(fd, cap, "%s", kind);
}

void thread_files_init(struct thread_files *f)
{
    memset(f, 0, sizeof *f);
    f->stat_fd = f->sched_fd = f->wchan_fd = f->sys_fd = -1;
}

void thread_files_close(struct thread_files *f)
{
    int *fds[] = { &f->stat_fd, &f->sched_fd, &f->wchan_fd, &f->sys_fd };
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
}

/* Reads dir/name through the kept descriptor *fd, opening it first when
 * it is not open: kept open when keep, else closed after the read. -1
 * with errno. */
static ssize_t read_kept(const char *dir, const char *name, int keep, int *fd, char *buf,
                         size_t size)
{
    if (*fd < 0) {
        char path[160];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (!keep)
            return read_file(path, buf, size);
        *fd = open(path, O_RDONLY | O_CLOEXEC);
        if (*fd < 0)
            return -1;
    }
    ssize_t n = pread(*fd, buf, size - 1, 0);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

/* wchan: a symbol name, or "0" when the thread is running or the kernel
 * hides it; either way "-" here. -1 when no descriptor was left to read it. */
static int read_wchan(const char *dir, int keep, int *fd, unsigned *denied, char *out, size_t cap)
{
    char buf[THREAD_TOKEN_MAX];
    snprintf(out, cap, "-");
    if (*denied & PROBE_NO_WCHAN)
        return 0;
    if (read_kept(dir, "wchan", keep, fd, buf, sizeof buf) < 0) {
        if (fd_budget_exhausted(errno))
            return -1;
        if (errno == ENOENT || errno == EACCES || errno == EPERM)
            *denied |= PROBE_NO_WCHAN;
        return 0;
    }
    size_t len = strcspn(buf, " \t\r\n");
    buf[len] = '\0';
    if (len == 0 || strcmp(buf, "0") == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)buf[i] <= ' ' || (unsigned char)buf[i] > '~')
            buf[i] = '_';
    if (len < cap)
        memcpy(out, buf, len + 1);
    return 0;
}

/* A read failed (errno): what it says about the thread. The schedstat
 * reading is forgotten, so the next probe reads everything again. */
static int read_failed(struct thread_files *files)
{
    files->have_sched = 0;
    if (errno == ENOENT || errno == ESRCH)
        return THREAD_PROBE_GONE;
    return fd_budget_exhausted(errno) ? THREAD_PROBE_NO_FD : THREAD_PROBE_FAILED;
}

/* A sleeping thread that has not run is not read again for this many
 * probes (see thread_probe.h). */
#define PROBE_RECHECK_EVERY 9

static int is_sleeping(char state)
{
    return state != 'R' && state != 'Z' && state != 'X' && state != 'x';
}

int thread_probe(const char *proc_root, pid_t pid, pid_t tid, enum syscall_arch arch,
                 unsigned *denied, struct thread_files *files, const struct thread_state *prev,
                 struct thread_state *out)
{
    char dir[96], buf[1024];
    snprintf(dir, sizeof dir, "%s/%d/task/%d", proc_root, (int)pid, (int)tid);
    unsigned long long run_ns = 0, slices = 0;
    ssize_t n = read_kept(dir, "schedstat", files->keep, &files->sched_fd, buf, sizeof buf);
    if (n < 0 && fd_budget_exhausted(errno))
        return read_failed(files);
    int have_sched = n > 0 && sscanf(buf, "%llu %*u %llu", &run_ns, &slices) == 2;
    int idle = prev && have_sched && files->have_sched && run_ns == files->run_ns &&
               slices == files->slices;
    files->have_sched = have_sched;
    files->run_ns = run_ns;
    files->slices = slices;
    files->ran = !idle;
    if (idle && is_sleeping(prev->state) && files->quiet_probes < PROBE_RECHECK_EVERY) {
        files->quiet_probes++;
        *out = *prev;
        return 0;
    }
    files->quiet_probes = 0;
    n = read_kept(dir, "stat", files->keep, &files->stat_fd, buf, sizeof buf);
    if (n < 0)
        return read_failed(files);
    if (n == 0 || thread_parse_stat(buf, out->name, sizeof out->name, &out->state) != 0)
        return THREAD_PROBE_GONE;     /* torn down while read */
    if (idle && is_sleeping(prev->state) && is_sleeping(out->state)) {
        memcpy(out->wchan, prev->wchan, sizeof out->wchan);
        memcpy(out->call, prev->call, sizeof out->call);
        memcpy(out->fd, prev->fd, sizeof out->fd);
        return 0;
    }
    snprintf(out->call, sizeof out->call, "-");
    snprintf(out->fd, sizeof out->fd, "-");
    snprintf(out->wchan, sizeof out->wchan, "-");
    if (!is_sleeping(out->state))
        return 0;
    if (read_wchan(dir, files->keep, &files->wchan_fd, denied, out->wchan, sizeof out->wchan) != 0)
        return read_failed(files);
    if (*denied & (PROBE_NO_SYSCALL | PROBE_NO_SYSCALL_FILE)) {
        snprintf(out->call, sizeof out->call, "?");
        return 0;
    }
    if (read_kept(dir, "syscall", files->keep, &files->sys_fd, buf, sizeof buf) < 0) {
        if (fd_budget_exhausted(errno))
            return read_failed(files);
        if (errno == EACCES || errno == EPERM) {
            *denied |= PROBE_NO_SYSCALL;
            snprintf(out->call, sizeof out->call, "?");
            return 0;
        }
        if (errno != ENOENT && errno != ESRCH)
            return 0;
        /* No such file: the thread is gone, or (its directory still there)
         * the kernel has no syscall file at all; not a thread that exits
         * at every sweep. */
        char path[128];
        snprintf(path, sizeof path, "%s/stat", dir);
        if (access(path, F_OK) != 0)
            return THREAD_PROBE_GONE;
        *denied |= PROBE_NO_SYSCALL_FILE;
        snprintf(out->call, sizeof out->call, "?");
        return 0;
    }
    long nr = -1;
    unsigned long long args[6];
    if (thread_parse_syscall(buf, &nr, args) != 1)
        return 0;                     /* running again, or in a fault */
    const char *name = syscall_name(arch, nr);
    if (!name) {
        snprintf(out->call, sizeof out->call, "sys_%ld", nr);
        return 0;
    }
    snprintf(out->call, sizeof out->call, "%s", name);
    describe_call(proc_root, pid, name, args, denied, out->fd, sizeof out->fd);
    return 0;
}
