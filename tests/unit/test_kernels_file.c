/* test_kernels_file.c — reading TRACE.kernels (src/trace/kernels_file.c)
 * and a window's kernel evidence from it (src/analyze/kernels_window.c):
 * gaps= expanded, lines of two flush periods overlapping unioned, names
 * resolved per pid, top names pro-rated at the window's edges, gaps
 * counted inside the window only, D lines' last value per pid summed,
 * and a file that is not a kernels file refused. */
#include <stdlib.h>

#include "analysis.h"
#include "check.h"
#include "kernels_file.h"
#include "kernels_window.h"
#include "window_texts.h"

static char path[64];

static const char *write_file(const char *text)
{
    snprintf(path, sizeof path, "/tmp/test_kernels_file.XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static const char file[] =
    "flinch-kernels 1\n"
    "S pid=7 cupti=130001 clock=monotonic flush_ms=100 lib=/x\n"
    "N pid=7 id=1 gemm\n"
    "N pid=7 id=2 nccl_thing\n"
    "N pid=8 id=1 other_process_kernel\n"
    "B pid=7 gpu=0 start=1000 end=9000 kernels=4 top=1:5000,2:1000 other=0 gaps=2000:1000,3000:500\n"
    "B pid=7 gpu=0 start=8500 end=10000 kernels=1 top=1:1500 other=0\n"   /* next period, overlapping */
    "C pid=7 gpu=0 start=4000 end=5000 kernels=1\n"
    "B pid=8 gpu=1 start=0 end=100 kernels=1 top=1:100 other=0\n"
    "D pid=7 kernels=5 copies=0 dropped=3 zero_stamps=1 pool_empty=0 lines_lost=0\n"
    "D pid=7 kernels=6 copies=0 dropped=4 zero_stamps=1 pool_empty=0 lines_lost=0\n"
    "D pid=8 kernels=1 copies=0 dropped=1 zero_stamps=0 pool_empty=0 lines_lost=2\n"
    "Q some future line\n";

static void test_load(void)
{
    const char *p = write_file(file);
    struct kernels_data *k = p ? kernels_file_load(p) : NULL;
    unlink(p);
    CHECK(k != NULL);
    if (!k)
        return;
    CHECK(k->ndev == 2);
    /* 1000-3000, 4000-7000, 7500-9000 and 8500-10000: 7500-10000 joined */
    CHECK(k->dev[0].nbusy == 3);
    CHECK(k->dev[0].busy[2].t0 == 7500 && k->dev[0].busy[2].t1 == 10000);
    CHECK(kernels_union_in(k->dev[0].busy, k->dev[0].nbusy, 0, 20000) == 2000 + 3000 + 2500);
    CHECK(kernels_union_in(k->dev[0].busy, k->dev[0].nbusy, 2500, 4500) == 1000);
    CHECK(k->dev[0].ncoll == 1);
    CHECK(k->dropped == 5 && k->zero_stamps == 1 && k->lines_lost == 2);
    CHECK_STR(k->names[k->dev[1].lines[0].name[0]], "other_process_kernel");

    struct window_gpu g[2];
    struct window w = { 0 };
    struct window_text_scratch texts;
    window_texts_init(&w);
    window_texts_begin(&texts, &w);
    memset(g, 0, sizeof g);
    w.ngpu = 2;
    w.gpu = g;
    w.t_start_ns = 2000;
    w.t_end_ns = 9500;
    struct analysis a;
    memset(&a, 0, sizeof a);
    kernels_window(k, &a, &w);
    const struct kernel_evidence *e = kernels_of(&a, &g[0]);
    CHECK(e != NULL);
    if (!e) {
        kernels_file_free(k);
        return;
    }
    CHECK(e->present);
    CHECK_NEAR(e->busy_ms, (1000 + 3000 + 2000) / 1e6, 1e-12);
    CHECK_NEAR(e->collective_ms, 1000 / 1e6, 1e-12);
    CHECK(e->ngaps == 2);                        /* 3000-4000, 7000-7500 */
    CHECK_NEAR(e->longest_gap_ms, 1000 / 1e6, 1e-12);
    CHECK_NEAR(e->gaps_ms, 1500 / 1e6, 1e-12);
    CHECK(e->count == 5);
    CHECK(e->ntop == 2);
    CHECK_STR(e->top[0].name, "gemm");           /* 5000 * 7/8 + 1500 * 2/3 */
    CHECK_NEAR(e->top[0].ms, (5000.0 * 7000 / 8000 + 1500.0 * 1000 / 1500) / 1e6, 1e-12);
    CHECK_STR(e->top[1].name, "nccl_thing");
    CHECK(e->dropped == 5);
    CHECK(kernels_of(&a, &g[1]) == NULL);         /* device 1 has nothing in 2000..9500 */
    CHECK(a.nkernel_ev == 1);
    free(a.kernel_ev);
    kernels_file_free(k);
}

static void test_refused(void)
{
    const char *p = write_file("precious\nB pid=1 gpu=0 start=1 end=2 kernels=1\n");
    CHECK(p != NULL);
    CHECK(p && kernels_file_load(p) == NULL);
    unlink(p);
    CHECK(kernels_file_load("/nonexistent/x.kernels") == NULL);
}

int main(void)
{
    run_test("load", test_load);
    run_test("refused", test_refused);
    return check_exit_status();
}
