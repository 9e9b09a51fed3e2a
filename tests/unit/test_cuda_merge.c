/* test_cuda_merge.c — cuda/cuda_merge.c, the injection library's merge of
 * activity records into TRACE.kernels lines: exact unions (overlapping,
 * touching, gaps), gaps= lists split at 24 a line and at 1 ms, names sent
 * once and numbered, top names by summed time, collectives (C), copies (X),
 * zero and reversed stamps counted, several GPUs. The merge is compiled
 * into this test (it is not part of libflinch.a). */
#include "check.h"
#include "../../cuda/cuda_merge.c"

static char got[64][LINE_MAX_BYTES];
static int ngot;

static int collect(const char *line, size_t len)
{
    if (ngot < 64)
        snprintf(got[ngot++], sizeof got[0], "%.*s", (int)len, line);
    return 0;
}

static void reset(void)
{
    ngot = 0;
}

static void test_union_and_names(void)
{
    reset();
    const char *gemm = "sm90_gemm", *flash = "flash fwd\x01";
    cuda_merge_kernel(0, 1000, 2000, gemm);
    cuda_merge_kernel(0, 1500, 3000, flash);    /* overlaps */
    cuda_merge_kernel(0, 3000, 3500, gemm);     /* touches: no gap */
    cuda_merge_kernel(0, 4000, 4100, gemm);     /* a 500 ns gap */
    cuda_merge_emit();
    CHECK(ngot == 3);
    CHECK_STR(got[0], "N pid=42 id=1 sm90_gemm");
    CHECK_STR(got[1], "N pid=42 id=2 flash_fwd_");
    CHECK_STR(got[2], "B pid=42 gpu=0 start=1000 end=4100 kernels=4 top=1:1600,2:1500 other=0 "
                      "gaps=2500:500");
    reset();
    cuda_merge_kernel(0, 5000, 6000, gemm);     /* names go once */
    cuda_merge_emit();
    CHECK(ngot == 1);
    CHECK_STR(got[0], "B pid=42 gpu=0 start=5000 end=6000 kernels=1 top=1:1000 other=0");
}

static void test_collectives_copies_gpus(void)
{
    reset();
    cuda_merge_kernel(1, 100, 200, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    cuda_merge_kernel(1, 150, 400, "sm90_gemm");
    cuda_merge_copy(1, 500, 600, 4096);
    cuda_merge_copy(1, 550, 700, 1024);
    cuda_merge_kernel(0, 10, 20, "sm90_gemm");
    cuda_merge_emit();
    CHECK(ngot == 5);
    CHECK_STR(got[0], "N pid=42 id=3 ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    CHECK_STR(got[1], "B pid=42 gpu=0 start=10 end=20 kernels=1 top=1:10 other=0");
    CHECK_STR(got[2], "B pid=42 gpu=1 start=100 end=400 kernels=2 top=1:250,3:100 other=0");
    CHECK_STR(got[3], "C pid=42 gpu=1 start=100 end=200 kernels=1");
    CHECK_STR(got[4], "X pid=42 gpu=1 start=500 end=700 copies=2 bytes=5120");
    CHECK(cuda_is_collective("_Z20ncclKernel_SendRecvP11ncclDevComm"));
    CHECK(!cuda_is_collective("nccl_like_but_not"));
}

static void test_gap_lines(void)
{
    reset();
    /* 30 kernels of 2 us, 1 us apart: 29 gaps, 24 on the first line */
    for (int k = 0; k < 30; k++)
        cuda_merge_kernel(2, 10000 + 3000ULL * k, 12000 + 3000ULL * k, "short");
    /* 2 ms later: a new line (gap over 1 ms) */
    cuda_merge_kernel(2, 2000000, 2001000, "short");
    cuda_merge_emit();
    CHECK(ngot == 4);
    char want[LINE_MAX_BYTES];
    int n = snprintf(want, sizeof want, "B pid=42 gpu=2 start=10000 end=84000 kernels=25 top=4:50000 "
                     "other=0 gaps=");
    for (int k = 0; k < 24; k++)
        n += snprintf(want + n, sizeof want - (size_t)n, "%s2000:1000", k ? "," : "");
    CHECK_STR(got[1], want);
    CHECK_STR(got[2], "B pid=42 gpu=2 start=85000 end=99000 kernels=5 top=4:10000 other=0 "
                      "gaps=2000:1000,2000:1000,2000:1000,2000:1000");
    CHECK_STR(got[3], "B pid=42 gpu=2 start=2000000 end=2001000 kernels=1 top=4:1000 other=0");
}

static void test_zero_stamps(void)
{
    reset();
    long long before = cuda_merge_zero_stamps();
    cuda_merge_kernel(0, 0, 100, "sm90_gemm");
    cuda_merge_kernel(0, 100, 0, "sm90_gemm");
    cuda_merge_kernel(0, 300, 200, "sm90_gemm");
    cuda_merge_copy(0, 0, 0, 8);
    cuda_merge_emit();
    CHECK(ngot == 0);
    CHECK(cuda_merge_zero_stamps() - before == 4);
}

static void test_top_five(void)
{
    reset();
    static const char *const names[7] = { "k0", "k1", "k2", "k3", "k4", "k5", "k6" };
    for (int i = 0; i < 7; i++)
        cuda_merge_kernel(3, 1000, 1000 + 100ULL * (i + 1), names[i]);
    cuda_merge_emit();
    CHECK(ngot == 8);
    CHECK_STR(got[7], "B pid=42 gpu=3 start=1000 end=1700 kernels=7 "
                      "top=11:700,10:600,9:500,8:400,7:300 other=300");
}

int main(void)
{
    if (cuda_merge_init(42, collect) != 0)
        return 1;
    run_test("union_and_names", test_union_and_names);
    run_test("collectives_copies_gpus", test_collectives_copies_gpus);
    run_test("gap_lines", test_gap_lines);
    run_test("zero_stamps", test_zero_stamps);
    run_test("top_five", test_top_five);
    free(recs);
    free(names);
    free(scratch);
    return check_exit_status();
}
