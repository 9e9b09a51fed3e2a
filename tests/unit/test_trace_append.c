/* test_trace_append.c — the scan of an existing trace before appending
 * (issue 9 item 3): rows, the recorder's own `begin` rows (not a user's
 * mark named begin), a partial last row, NUL bytes; why a header differs;
 * counts with thousands separators. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "trace_append.h"

static char path[] = "/tmp/flinch-append-XXXXXX";

static int scan(const char *text, size_t len, struct trace_scan *s)
{
    int fd = open(path, O_RDWR | O_TRUNC);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len)
        return -2;
    int rc = trace_scan_file(fd, (off_t)len, 4, s);
    close(fd);
    return rc;
}

#define H "t,w,row_type,label,arrival_mono_ns\n"

static void test_scan(void)
{
    struct trace_scan s;
    const char *t = H "1,2,MARK,begin,\n"
                      "3,4,SAMPLE,,\n"
                      "5,6,MARK,\"begin\",5\n"          /* a user's mark named begin */
                      "7,8,MARK,end,\n"
                      "9,10,MARK,\"begin\",\n"          /* the recorder's, quoted */
                      "11,12,MARK,beginning,\n";
    CHECK(scan(t, strlen(t), &s) == 0);
    CHECK(s.rows == 6 && s.recordings == 2);
    CHECK(s.whole_end == (off_t)strlen(t) && s.nul_at == -1);
    CHECK(s.last_mono_ns == 11);

    const char *cut = H "1,2,MARK,begin,\n3,4,SAMP";
    CHECK(scan(cut, strlen(cut), &s) == 0);
    CHECK(s.rows == 1 && s.recordings == 1);
    CHECK(s.whole_end == (off_t)(strlen(cut) - 8));

    char nul[200];
    size_t n = (size_t)snprintf(nul, sizeof nul, H "1,2,MARK,begin,\n3,4");
    memset(nul + n, 0, 40);
    CHECK(scan(nul, n + 40, &s) == 0);
    CHECK(s.nul_at == (off_t)n && s.nul_line == 3);
}

static void test_header_mismatch(void)
{
    const char *now = "t_mono_ns,t_wall_ns,row_type,label,gpu_power_W,gpu_util_pct,gpu_mem_util_pct,"
                      "gpu_sm_clock_MHz,gpu_temp_C,rapl_energy_uj,gpu_index,gpu_energy_mJ";
    const char *orig = "t_mono_ns,t_wall_ns,row_type,label,gpu_power_W,gpu_util_pct,"
                       "gpu_mem_util_pct,gpu_sm_clock_MHz,gpu_temp_C,rapl_energy_uj";
    char want[512], older[512], rapl_old[512], rapl_new[512], rapl_other[512];
    snprintf(want, sizeof want, "%s,rapl_cum_uj_package_0", now);
    snprintf(older, sizeof older, "%s,gpu_index,rapl_cum_uj_package_0", orig);
    snprintf(rapl_old, sizeof rapl_old, "%s,rapl_cum_uj:package-0", now);
    snprintf(rapl_new, sizeof rapl_new, "%s,rapl_cum_uj_package_0", now);
    snprintf(rapl_other, sizeof rapl_other, "%s,rapl_cum_uj_package_1", now);
    CHECK_STR(trace_header_mismatch(orig, want),
              "written by the original nvml_trace.py (its ten columns only)");
    CHECK_STR(trace_header_mismatch(older, want),
              "written by an older flinch, with fewer or older-named columns");
    CHECK_STR(trace_header_mismatch(rapl_old, rapl_new),
              "written by an older flinch, with fewer or older-named columns");
    CHECK_STR(trace_header_mismatch(rapl_other, rapl_new), "recorded with other RAPL domains");
    CHECK_STR(trace_header_mismatch("a,b,c", want), "recorded with other columns");
}

static void test_fmt_count(void)
{
    char b[32];
    CHECK_STR(trace_fmt_count(0, b, sizeof b), "0");
    CHECK_STR(trace_fmt_count(999, b, sizeof b), "999");
    CHECK_STR(trace_fmt_count(5812, b, sizeof b), "5,812");
    CHECK_STR(trace_fmt_count(1234567, b, sizeof b), "1,234,567");
    CHECK_STR(trace_fmt_count(100000, b, sizeof b), "100,000");
}

int main(void)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    run_test("scan: rows, the recorder's begin rows, partial row, NUL bytes", test_scan);
    run_test("why a header differs", test_header_mismatch);
    run_test("counts with thousands separators", test_fmt_count);
    unlink(path);
    return check_exit_status();
}
