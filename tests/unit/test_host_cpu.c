/* test_host_cpu.c — /proc/stat parsing and busy % between two reads. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "host_cpu.h"

static char dir[] = "/tmp/flinch-hcpu-XXXXXX";

static void put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (write(fd, text, strlen(text)) < 0) { /* checked by the reads */ }
    close(fd);
}

static void test_parse(void)
{
    unsigned long long busy, total;
    /* user nice system idle iowait irq softirq steal guest guest_nice */
    CHECK(host_cpu_parse("cpu  100 20 30 800 50 5 5 10 7 0\ncpu0 1 2 3 4\n", &busy, &total) == 0);
    CHECK(busy == 170);
    CHECK(total == 1020);
    CHECK(host_cpu_parse("cpu  1 2 3 4\n", &busy, &total) == 0);   /* old kernels */
    CHECK(busy == 6 && total == 10);
    CHECK(host_cpu_parse("cpu0 1 2 3 4\n", &busy, &total) == -1);
    CHECK(host_cpu_parse("cpu  1 2\n", &busy, &total) == -1);
    CHECK(host_cpu_parse("intr 5\n", &busy, &total) == -1);
}

static void test_busy_between_reads(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/stat", dir);
    put(path, "cpu  100 0 100 800 0 0 0 0 0 0\n");
    struct host_cpu h;
    const long long ms = 1000000;
    CHECK(host_cpu_open(&h, path, 1000 * ms) == 0);
    double pct = -1;
    put(path, "cpu  175 0 100 825 0 0 0 0 0 0\n");   /* +75 busy of +100 */
    CHECK(host_cpu_read(&h, 1010 * ms, &pct) == 0);  /* young: against the first reading */
    CHECK_NEAR(pct, 75.0, 1e-9);
    CHECK(host_cpu_read(&h, 1020 * ms, &pct) == 0);  /* nothing moved, still against the first */
    CHECK_NEAR(pct, 75.0, 1e-9);
    put(path, "cpu  175 0 100 925 0 0 0 0 0 0\n");   /* +0 busy of +100 */
    CHECK(host_cpu_read(&h, 1100 * ms, &pct) == 0);  /* 100 ms span: back to the 1000 ms reading */
    CHECK_NEAR(pct, 37.5, 1e-9);
    CHECK(host_cpu_read(&h, 1125 * ms, &pct) == 0);  /* base: the 1020 ms reading (175/925 -> same) */
    CHECK_NEAR(pct, 0.0, 1e-9);
    CHECK(host_cpu_read(&h, 1300 * ms, &pct) == -1); /* base 1125 ms: counters have not moved */
    host_cpu_close(&h);
}

static void test_missing_file(void)
{
    struct host_cpu h;
    double pct;
    CHECK(host_cpu_open(&h, "/nonexistent/stat", 0) == -1);
    CHECK(host_cpu_read(&h, 0, &pct) == -1);
    host_cpu_close(&h);
}

static void test_real_proc_stat(void)
{
    struct host_cpu h;
    if (host_cpu_open(&h, NULL, 0) != 0)
        return;
    double pct = -1;
    usleep(30000);
    if (host_cpu_read(&h, 30000000, &pct) == 0)
        CHECK(pct >= 0.0 && pct <= 100.0);
    host_cpu_close(&h);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    run_test("host cpu parses the aggregate cpu line", test_parse);
    run_test("host cpu busy % between reads", test_busy_between_reads);
    run_test("host cpu missing file leaves cells empty", test_missing_file);
    run_test("host cpu reads the real /proc/stat", test_real_proc_stat);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) { /* leftover temp dir */ }
    return check_exit_status();
}
