/* test_gpu_auto.c — --gpu auto's discovery (src/record/gpu/gpu_auto.c) against
 * a fake NVML: the growing buffer on INSUFFICIENT_SIZE, the v1 layout, the
 * poll schedule, another namespace's pids, refusals, a missing symbol; and
 * pid matching through NSpid on a fake /proc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "gpu_auto.h"

static char root[] = "/tmp/flinch_gpu_auto_XXXXXX";
static unsigned fake_pids[64];
static unsigned fake_n;
static nvmlReturn_t fake_rc;
static int fake_calls;
static struct nvmlDevice_st { int i; } devs[4];

static nvmlReturn_t fake_handle(unsigned i, nvmlDevice_t *d) { *d = &devs[i]; return NVML_SUCCESS; }

static nvmlReturn_t fake_v2(nvmlDevice_t d, unsigned *count, nvmlProcessInfo_v2_t *infos)
{
    (void)d;
    fake_calls++;
    if (fake_rc != NVML_SUCCESS)
        return fake_rc;
    if (*count < fake_n) {
        *count = fake_n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; i < fake_n; i++)
        infos[i] = (nvmlProcessInfo_v2_t){ fake_pids[i], 1u << 20, 0xFFFFFFFFu, 0xFFFFFFFFu };
    *count = fake_n;
    return NVML_SUCCESS;
}

static nvmlReturn_t fake_v1(nvmlDevice_t d, unsigned *count, nvmlProcessInfo_v1_t *infos)
{
    (void)d;
    fake_calls++;
    if (*count < fake_n) {
        *count = fake_n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; i < fake_n; i++)
        infos[i] = (nvmlProcessInfo_v1_t){ fake_pids[i], 1u << 20 };
    *count = fake_n;
    return NVML_SUCCESS;
}

static struct nvml_lib fake_lib(int v1)
{
    struct nvml_lib lib;
    memset(&lib, 0, sizeof lib);
    lib.device_by_index = fake_handle;
    if (v1)
        lib.compute_procs_v1 = fake_v1;
    else
        lib.compute_procs = fake_v2;
    lib.compute_procs_symbol = "fake";
    fake_calls = 0;
    fake_rc = NVML_SUCCESS;
    return lib;
}

static void test_missing_symbol(void)
{
    struct nvml_lib lib;
    struct gpu_auto a;
    memset(&lib, 0, sizeof lib);
    CHECK(gpu_auto_open(&a, &lib, 2) == -1);
}

/* 40 processes, ours last: the 16-entry buffer grows once, in the same poll. */
static void test_grows_and_finds(int v1)
{
    struct nvml_lib lib = fake_lib(v1);
    struct gpu_auto a;
    struct gpu_auto_news news;
    pid_t self = getpid();
    fake_n = 40;
    for (unsigned i = 0; i < 39; i++)
        fake_pids[i] = 1;                      /* exists, not ours */
    fake_pids[39] = (unsigned)self;
    CHECK(gpu_auto_open(&a, &lib, 2) == 0);
    CHECK(gpu_auto_poll(&a, &lib, &self, 1, 0, &news) == 1);
    CHECK(news.njoined == 2);                  /* both GPUs list the same */
    CHECK(news.joined[0] == 0 && news.joined[1] == 1);
    CHECK(news.joined_pid[0] == self && news.joined_nvml_pid[0] == (unsigned)self);
    CHECK(fake_calls == 3);                    /* GPU 0: small, grown; GPU 1: fits */
    CHECK(a.cap == 48);
    CHECK(gpu_auto_waiting(&a) == 0);
    CHECK(gpu_auto_poll(&a, &lib, &self, 1, 10 * GPU_AUTO_POLL_NS, &news) == 0);
    CHECK(fake_calls == 3);                    /* found GPUs are never asked again */
    gpu_auto_close(&a);
}
static void test_grows_v2(void) { test_grows_and_finds(0); }
static void test_grows_v1(void) { test_grows_and_finds(1); }

static void test_schedule_and_foreign(void)
{
    struct nvml_lib lib = fake_lib(0);
    struct gpu_auto a;
    struct gpu_auto_news news;
    pid_t self = getpid();
    fake_n = 1;
    fake_pids[0] = 4194304u + 5;               /* no such pid here */
    CHECK(gpu_auto_open(&a, &lib, 1) == 0);
    CHECK(gpu_auto_poll(&a, &lib, &self, 1, 1000, &news) == 0);
    CHECK(fake_calls == 1);
    CHECK(gpu_auto_poll(&a, &lib, &self, 1, 1000 + GPU_AUTO_POLL_NS - 1, &news) == 0);
    CHECK(fake_calls == 1);                    /* not due */
    CHECK(gpu_auto_poll(&a, &lib, &self, 1, 1000 + GPU_AUTO_POLL_NS, &news) == 1);
    CHECK(news.foreign == 1 && news.foreign_gpu == 0 && news.foreign_pid == 4194309u);
    CHECK(gpu_auto_poll(&a, &lib, &self, 1, 1000 + 2 * GPU_AUTO_POLL_NS, &news) == 0);
    CHECK(news.foreign == 0);                  /* said once */
    CHECK(fake_calls == 3 && gpu_auto_waiting(&a) == 1);
    fake_rc = NVML_ERROR_NO_PERMISSION;
    CHECK(gpu_auto_poll(&a, &lib, &self, 1, 1000 + 3 * GPU_AUTO_POLL_NS, &news) == 1);
    CHECK(news.nrefused == 1 && news.refused[0] == 0 && a.refused_rc[0] == NVML_ERROR_NO_PERMISSION);
    CHECK(gpu_auto_waiting(&a) == 0);
    gpu_auto_close(&a);
}

static void put(const char *rel, const char *text)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char dir[300];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    mkdir(dir, 0755);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_match_nspid(void)
{
    put("100/status", "Name:\tpython\nNSpid:\t100\t7\n");
    put("200/status", "Name:\tworker\nNSpid:\t200\n");
    put("300/status", "Name:\tother\nNSpid:\t300\n");
    pid_t tree[2] = { 100, 200 };
    pid_t ours = 0;
    int via = -1;
    CHECK(gpu_auto_match(200, tree, 2, root, &ours, &via) == 1 && ours == 200 && via == 0);
    CHECK(gpu_auto_match(7, tree, 2, root, &ours, &via) == 1 && ours == 100 && via == 1);
    CHECK(gpu_auto_match(300, tree, 2, root, &ours, &via) == 0);
    CHECK(gpu_auto_match(4194309, tree, 2, root, &ours, &via) == -1);
    put("200/status", "Name:\tworker\nNSpid:\t200\t7\n");
    CHECK(gpu_auto_match(7, tree, 2, root, &ours, &via) == -1);   /* two processes: no match */
}

int main(void)
{
    if (!mkdtemp(root))
        return 1;
    run_test("gpu_auto: no symbol refuses --gpu auto", test_missing_symbol);
    run_test("gpu_auto: buffer grows on INSUFFICIENT_SIZE, found GPUs not asked again (v2)", test_grows_v2);
    run_test("gpu_auto: the same with the v1 layout", test_grows_v1);
    run_test("gpu_auto: every 500 ms; another namespace's pids said once; NO_PERMISSION refuses", test_schedule_and_foreign);
    run_test("gpu_auto: pids matched directly or through one NSpid line", test_match_nspid);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) { /* leftover temp dir */ }
    return check_exit_status();
}
