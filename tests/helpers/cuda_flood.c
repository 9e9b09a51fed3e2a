/*
 * cuda_flood.c — bench/cuda_overhead.sh's load: loads $CUDA_INJECTION64_PATH
 * as the CUDA driver does and plays RATE kernels a second for SECONDS on
 * the simulated CUPTI ($FLINCH_CUPTI_LIB), on 4 streams of one GPU, 20
 * kernel names, each kernel 2 us with 1 us gaps. Then prints what the
 * injection cost: the CPU time of its flush thread ("flinch-cupti": it
 * parses and merges every record), the process's peak RSS, the kernels
 * played and the ones the simulated CUPTI could not record (no buffer).
 *
 *   cuda_flood RATE SECONDS
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*init_fn)(void);
typedef uint64_t (*now_fn)(void);
typedef int (*kernel_fn)(uint32_t, uint32_t, uint64_t, uint64_t, const char *, uint32_t);

static void *need(void *h, const char *name)
{
    void *p = h ? dlsym(h, name) : NULL;
    if (!p) {
        fprintf(stderr, "cuda_flood: %s: %s\n", name, dlerror());
        exit(2);
    }
    return p;
}

static int64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CPU seconds of this process's thread named name (utime + stime). */
static double thread_cpu(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    double s = -1;
    struct dirent *e;
    long tick = sysconf(_SC_CLK_TCK);
    while (d && (e = readdir(d))) {
        char path[300], comm[64] = "", stat[1024];
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (!fgets(comm, sizeof comm, f))
            comm[0] = '\0';
        fclose(f);
        comm[strcspn(comm, "\n")] = '\0';
        if (strcmp(comm, name) != 0)
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        f = fopen(path, "r");
        if (f && fgets(stat, sizeof stat, f)) {
            char *p = strrchr(stat, ')');
            unsigned long ut = 0, st = 0;
            if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
                s = (double)(ut + st) / (double)tick;
        }
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return s;
}

static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: cuda_flood RATE SECONDS\n");
        return 2;
    }
    double rate = atof(argv[1]), secs = atof(argv[2]);
    void *lib = dlopen(getenv("CUDA_INJECTION64_PATH") ? getenv("CUDA_INJECTION64_PATH") : "", RTLD_NOW);
    void *p = need(lib, "InitializeInjection");
    init_fn init;
    memcpy(&init, &p, sizeof p);
    init();
    void *sim = dlopen(getenv("FLINCH_CUPTI_LIB") ? getenv("FLINCH_CUPTI_LIB") : "", RTLD_NOW);
    now_fn now;
    kernel_fn kernel;
    p = need(sim, "sim_cupti_now");
    memcpy(&now, &p, sizeof p);
    p = need(sim, "sim_cupti_kernel");
    memcpy(&kernel, &p, sizeof p);
    static char names[20][96];
    for (int i = 0; i < 20; i++)
        snprintf(names[i], sizeof names[i],
                 "void at::native::elementwise_kernel<128, 4, gemm_variant_%02d>(int, at::native::Op)", i);
    int64_t start = mono();
    long long played = 0, lost = 0;
    uint64_t t = now();
    while (mono() - start < (int64_t)(secs * 1e9)) {
        /* a batch of 1 ms worth of kernels, then sleep to keep the rate */
        long long due = (long long)((double)(mono() - start) * rate / 1e9);
        for (; played < due; played++) {
            if (kernel(0, (uint32_t)(played & 3), t, t + 2000, names[played % 20], 0) != 0)
                lost++;
            t += 3000;
        }
        struct timespec ts = { 0, 1000000L };
        nanosleep(&ts, NULL);
    }
    double cpu = thread_cpu("flinch-cupti");
    printf("played=%lld not_recorded=%lld seconds=%.3f flush_thread_cpu_s=%.3f peak_rss_kb=%ld\n",
           played, lost, (double)(mono() - start) / 1e9, cpu, peak_rss_kb());
    fflush(stdout);
    return 0;
}
