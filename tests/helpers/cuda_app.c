/*
 * cuda_app.c — a stand-in for a CUDA application, for the --cuda tests:
 * loads $CUDA_INJECTION64_PATH and calls its InitializeInjection as the
 * CUDA driver does (twice at once, from two threads, then once more), then
 * plays a kernel timeline on the simulated CUPTI ($FLINCH_CUPTI_LIB,
 * build/sim-cupti/libcupti.so.13) and exits.
 *
 *   cuda_app SCENARIO [--fork-first] [--fork-after] [--quick-exit]
 *
 * SCENARIO "-": the injection alone, no timeline (any CUPTI).
 * SCENARIO lines (times in us from the play's start, t0):
 *   kernel DEV STREAM START END NAME [graph=ID]   (START 0 / END 0: a zero stamp)
 *   memcpy DEV START END BYTES | memset DEV START END BYTES
 *   sleep MS                                      (real time: the flush thread runs)
 * Prints "pid=P t0=NS mono=NS" (t0 in the sim's clock, CLOCK_MONOTONIC once
 * the library registered its timestamp callback; mono: CLOCK_MONOTONIC then) and "init=1 1 1".
 * --fork-first: a child does the same whole run first (its own injection,
 * its own pid), the parent waits for it. --fork-after: after the
 * injection, a child calls InitializeInjection again and exit()s (it must
 * record nothing). --quick-exit: _exit(0) instead of exit(0).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef int (*init_fn)(void);
typedef uint64_t (*now_fn)(void);
typedef int (*kernel_fn)(uint32_t, uint32_t, uint64_t, uint64_t, const char *, uint32_t);
typedef int (*copy_fn)(uint32_t, uint64_t, uint64_t, uint64_t, int);

static init_fn init;

static void *init_thread(void *arg)
{
    *(int *)arg = init();
    return NULL;
}

static void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "cuda_app: %s: %s\n", name, dlerror());
        exit(2);
    }
    return p;
}

#define NAMES_MAX 256
static char *names[NAMES_MAX];
static int nnames;

/* Kernel names live as long as the process, as CUPTI's do. */
static const char *intern(const char *s)
{
    for (int i = 0; i < nnames; i++)
        if (strcmp(names[i], s) == 0)
            return names[i];
    if (nnames == NAMES_MAX)
        exit(2);
    return names[nnames++] = strdup(s);
}

static int run(const char *scenario, int fork_after)
{
    const char *lib = getenv("CUDA_INJECTION64_PATH");
    const char *cupti = getenv("FLINCH_CUPTI_LIB");
    if (!lib || (!cupti && strcmp(scenario, "-") != 0)) {
        fprintf(stderr, "cuda_app: CUDA_INJECTION64_PATH and FLINCH_CUPTI_LIB must be set\n");
        return 2;
    }
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "cuda_app: %s\n", dlerror());
        return 2;
    }
    void *p = sym(h, "InitializeInjection");
    memcpy(&init, &p, sizeof p);
    pthread_t a, b;
    int rc_a = 0, rc_b = 0;
    pthread_create(&a, NULL, init_thread, &rc_a);
    pthread_create(&b, NULL, init_thread, &rc_b);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    int rc_main = init();
    printf("init=%d %d %d\n", rc_a, rc_b, rc_main);
    fflush(stdout);
    if (fork_after) {
        pid_t c = fork();
        if (c == 0) {
            int r = init();
            exit(r == 1 ? 0 : 1);
        }
        int st = 0;
        waitpid(c, &st, 0);
        printf("fork_after_child=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    if (strcmp(scenario, "-") == 0) {
        printf("pid=%ld\n", (long)getpid());
        return 0;                       /* the injection alone */
    }
    void *s = dlopen(cupti, RTLD_NOW | RTLD_NOLOAD);
    if (!s)
        s = dlopen(cupti, RTLD_NOW);
    if (!s) {
        fprintf(stderr, "cuda_app: %s\n", dlerror());
        return 2;
    }
    now_fn now;
    kernel_fn kernel;
    copy_fn copy;
    p = sym(s, "sim_cupti_now");
    memcpy(&now, &p, sizeof p);
    p = sym(s, "sim_cupti_kernel");
    memcpy(&kernel, &p, sizeof p);
    p = sym(s, "sim_cupti_copy");
    memcpy(&copy, &p, sizeof p);
    FILE *f = fopen(scenario, "r");
    if (!f) {
        perror(scenario);
        return 2;
    }
    uint64_t t0 = now();
    struct timespec mono;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    printf("pid=%ld t0=%llu mono=%lld\n", (long)getpid(), (unsigned long long)t0,
           (long long)mono.tv_sec * 1000000000LL + mono.tv_nsec);
    fflush(stdout);
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        unsigned dev, stream, graph = 0;
        unsigned long long st, en, bytes;
        long ms;
        char name[512];
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "kernel %u %u %llu %llu %511s graph=%u", &dev, &stream, &st, &en, name,
                   &graph) >= 5)
            kernel(dev, stream, st ? t0 + st * 1000 : 0, en ? t0 + en * 1000 : 0, intern(name), graph);
        else if (sscanf(line, "memcpy %u %llu %llu %llu", &dev, &st, &en, &bytes) == 4)
            copy(dev, t0 + st * 1000, t0 + en * 1000, bytes, 0);
        else if (sscanf(line, "memset %u %llu %llu %llu", &dev, &st, &en, &bytes) == 4)
            copy(dev, t0 + st * 1000, t0 + en * 1000, bytes, 1);
        else if (sscanf(line, "sleep %ld", &ms) == 1) {
            struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        } else {
            fprintf(stderr, "%s:%d: bad line\n", scenario, lineno);
            fclose(f);
            return 2;
        }
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: cuda_app SCENARIO [--fork-first] [--fork-after] [--quick-exit]\n");
        return 2;
    }
    int fork_first = 0, fork_after = 0, quick = 0;
    for (int i = 2; i < argc; i++) {
        fork_first |= strcmp(argv[i], "--fork-first") == 0;
        fork_after |= strcmp(argv[i], "--fork-after") == 0;
        quick |= strcmp(argv[i], "--quick-exit") == 0;
    }
    if (fork_first) {
        fflush(stdout);
        pid_t c = fork();
        if (c == 0)
            exit(run(argv[1], 0));
        int st = 0;
        waitpid(c, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
    }
    int rc = run(argv[1], fork_after);
    fflush(stdout);
    if (quick)
        _exit(rc);
    return rc;
}
