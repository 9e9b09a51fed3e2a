/*
 * nvtx_host.c — a minimal NVTX host of our own: the part of the NVTX
 * headers that loads an injection library, declared through the bridge's
 * nvtx/nvtx_abi.h. It dlopens the library named by NVTX_INJECTION64_PATH,
 * initialises TWO copies of the slot tables (as two libraries embedding
 * NVTX would), and calls through both, so the bridge's init and every slot
 * it fills are exercised on machines without the CUDA toolkit too.
 *
 *   nvtx_host            the calls below; prints what they returned
 *   nvtx_host flood N [MS]  N push/pop pairs "flood" as fast as it can; prints
 *                        the time per pair (never blocks, whatever the FIFO);
 *                        then sleeps MS ms and returns from main
 *   nvtx_host fork       a range open across fork(); the child pushes and
 *                        pops "child_range" and exits
 *   nvtx_host sigmask    blocks SIGUSR1, marks (the bridge's writer thread
 *                        starts), sends itself SIGUSR1 and takes it with
 *                        sigwait: a thread of the bridge that let it through
 *                        would kill the process
 *   nvtx_host closefds FILE  marks "before", closes every descriptor above
 *                        2 (as a daemonizer does), opens FILE (it gets the
 *                        bridge's old number), marks "after"
 * Marks go to $FLINCH_MARKS, as the bridge decides.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nvtx_abi.h"

#define CORE_SIZE 16
#define CORE2_SIZE 16

struct copy {                           /* one embedded copy of NVTX */
    fnvtx_function core[CORE_SIZE], core2[CORE2_SIZE];
    fnvtx_function *core_ptrs[CORE_SIZE], *core2_ptrs[CORE2_SIZE];
};

static struct copy copies[2];
static int current;

static int get_module(int module, fnvtx_function_table *out, unsigned *size)
{
    struct copy *c = &copies[current];
    if (module == FNVTX_CB_MODULE_CORE) {
        *out = c->core_ptrs;
        *size = CORE_SIZE;
        return 1;
    }
    if (module == FNVTX_CB_MODULE_CORE2) {
        *out = c->core2_ptrs;
        *size = CORE2_SIZE;
        return 1;
    }
    return 0;
}

static const struct fnvtx_export_callbacks callbacks = { sizeof callbacks, get_module };

static const void *get_export_table(uint32_t id)
{
    return id == FNVTX_ETID_CALLBACKS ? &callbacks : NULL;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

typedef int (*push_a_fn)(const char *);
typedef int (*pop_fn)(void);
typedef void (*mark_a_fn)(const char *);
typedef fnvtx_range_id (*start_a_fn)(const char *);
typedef void (*end_fn)(fnvtx_range_id);
typedef fnvtx_domain_handle (*domain_create_fn)(const char *);
typedef fnvtx_string_handle (*register_fn)(fnvtx_domain_handle, const char *);
typedef int (*dpush_fn)(fnvtx_domain_handle, const struct fnvtx_event_attributes *);
typedef int (*dpop_fn)(fnvtx_domain_handle);

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *path = getenv("NVTX_INJECTION64_PATH");
    if (!path) {
        fprintf(stderr, "nvtx_host: NVTX_INJECTION64_PATH not set\n");
        return 2;
    }
    void *h = dlopen(path, RTLD_LAZY);
    if (!h) {
        fprintf(stderr, "nvtx_host: %s\n", dlerror());
        return 2;
    }
    int (*init)(fnvtx_get_export_table);
    *(void **)&init = dlsym(h, "InitializeInjectionNvtx2");
    if (!init) {
        fprintf(stderr, "nvtx_host: no InitializeInjectionNvtx2\n");
        return 2;
    }
    int filled[2] = { 0, 0 };
    for (current = 0; current < 2; current++) {
        struct copy *c = &copies[current];
        for (int i = 0; i < CORE_SIZE; i++)
            c->core_ptrs[i] = &c->core[i];
        for (int i = 0; i < CORE2_SIZE; i++)
            c->core2_ptrs[i] = &c->core2[i];
        c->core_ptrs[0] = c->core2_ptrs[0] = NULL;     /* id 0 is invalid */
        if (init(get_export_table) != 1) {
            fprintf(stderr, "nvtx_host: init %d failed\n", current);
            return 1;
        }
        for (int i = 0; i < CORE_SIZE; i++)
            filled[current] += c->core[i] != NULL;
        for (int i = 0; i < CORE2_SIZE; i++)
            filled[current] += c->core2[i] != NULL;
    }
    printf("init twice: %d and %d slots filled\n", filled[0], filled[1]);

    struct copy *a = &copies[0], *b = &copies[1];
    push_a_fn push = (push_a_fn)a->core[FNVTX_CBID_CORE_RangePushA];
    pop_fn pop = (pop_fn)a->core[FNVTX_CBID_CORE_RangePop];
    push_a_fn push_b = (push_a_fn)b->core[FNVTX_CBID_CORE_RangePushA];
    pop_fn pop_b = (pop_fn)b->core[FNVTX_CBID_CORE_RangePop];
    mark_a_fn mark = (mark_a_fn)b->core[FNVTX_CBID_CORE_MarkA];
    start_a_fn start = (start_a_fn)a->core[FNVTX_CBID_CORE_RangeStartA];
    end_fn end = (end_fn)b->core[FNVTX_CBID_CORE_RangeEnd];
    domain_create_fn dcreate = (domain_create_fn)a->core2[FNVTX_CBID_CORE2_DomainCreateA];
    register_fn reg = (register_fn)a->core2[FNVTX_CBID_CORE2_DomainRegisterStringA];
    dpush_fn dpush = (dpush_fn)b->core2[FNVTX_CBID_CORE2_DomainRangePushEx];
    dpop_fn dpop = (dpop_fn)b->core2[FNVTX_CBID_CORE2_DomainRangePop];

    if ((argc == 3 || argc == 4) && strcmp(argv[1], "flood") == 0) {
        long n = atol(argv[2]);
        long long t0 = now_ns();
        for (long i = 0; i < n; i++) {
            push("flood");
            pop();
        }
        long long t1 = now_ns();
        printf("%ld pairs in %lld ns: %.1f ns/pair\n", n, t1 - t0, n ? (double)(t1 - t0) / n : 0.0);
        if (argc == 4)
            sleep_ms(atoi(argv[3]));
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "fork") == 0) {
        push("parent_range");
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            push("child_range");
            sleep_ms(10);
            pop();
            pop();                      /* the parent's range: its end is the parent's */
            exit(0);                    /* the child's writer drains at exit */
        }
        int st;
        waitpid(pid, &st, 0);
        pop();
        printf("child %d exited %d\n", (int)pid, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "sigmask") == 0) {
        sigset_t usr1;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        pthread_sigmask(SIG_BLOCK, &usr1, NULL);
        mark("sigmask_mark");
        sleep_ms(20);
        kill(getpid(), SIGUSR1);        /* process-directed: any thread not blocking it */
        int sig = 0;
        sigwait(&usr1, &sig);
        printf("sigwait: %s\n", sig == SIGUSR1 ? "SIGUSR1" : "other");
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "closefds") == 0) {
        mark("before");
        sleep_ms(250);                  /* the bridge may reconnect again */
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
        mark("after");
        sleep_ms(50);
        printf("file on descriptor %d\n", fd);
        return 0;
    }
    mark("host_mark");
    int l0 = push("host_outer");
    int l1 = push_b("host_inner");      /* the other copy: one stack per thread */
    sleep_ms(20);
    int p1 = pop();
    sleep_ms(10);
    int p0 = pop_b();
    int extra = pop();
    printf("push %d %d pop %d %d, pop on empty %d\n", l0, l1, p1, p0, extra);

    fnvtx_range_id r = start("host_request");
    sleep_ms(15);
    end(r);                             /* ended through the other copy */

    fnvtx_domain_handle d = dcreate("host dom");
    fnvtx_domain_handle d2 = dcreate("host dom");
    fnvtx_string_handle s = reg(d, "host_registered");
    struct fnvtx_event_attributes ev;
    memset(&ev, 0, sizeof ev);
    ev.version = 3;
    ev.size = sizeof ev;
    ev.message_type = FNVTX_MESSAGE_REGISTERED;
    ev.message.registered = s;
    dpush(d, &ev);
    sleep_ms(5);
    dpop(d);
    printf("domain created twice is one: %s\n", d == d2 ? "yes" : "no");
    return 0;
}
