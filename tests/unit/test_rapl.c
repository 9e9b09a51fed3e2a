/* test_rapl.c — RAPL discovery in a fake powercap tree, wraparound, unreadable counters. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "rapl.h"

static char root[] = "/tmp/flinch-rapl-XXXXXX";

static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (write(fd, text, strlen(text)) < 0) { /* checked by the reads */ }
    close(fd);
}

static void zone(const char *dir, const char *name, const char *energy, const char *range)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, dir);
    mkdir(path, 0755);
    char rel[256];
    snprintf(rel, sizeof rel, "%s/name", dir);
    put(rel, name);
    snprintf(rel, sizeof rel, "%s/energy_uj", dir);
    put(rel, energy);
    snprintf(rel, sizeof rel, "%s/max_energy_range_uj", dir);
    put(rel, range);
}

static void test_wrap_delta(void)
{
    CHECK(rapl_wrap_delta(100, 250, 1000) == 150);
    CHECK(rapl_wrap_delta(900, 50, 1000) == 150);        /* wrapped once */
    CHECK(rapl_wrap_delta(1000, 0, 1000) == 0);
    CHECK(rapl_wrap_delta(900, 50, 0) == 50);            /* range unknown */
    CHECK(rapl_wrap_delta(262143328850ULL, 1000, 262143328850ULL) == 1000);
}

static void test_discover_and_wrap(void)
{
    zone("intel-rapl:0", "package-0\n", "900\n", "1000\n");
    zone("intel-rapl:0:0", "core\n", "5\n", "1000\n");        /* not wanted */
    zone("intel-rapl:0:1", "dram\n", "10\n", "1000\n");
    zone("intel-rapl:1", "package-1\n", "0\n", "1000\n");
    zone("intel-rapl-mmio:0", "package-0\n", "7\n", "1000\n"); /* duplicate view */
    zone("intel-rapl:10", "psys\n", "1\n", "1000\n");          /* not wanted */
    struct rapl r;
    CHECK(rapl_discover(&r, root, NULL) == 3);
    CHECK_STR(r.dom[0].name, "package-0");
    CHECK_STR(r.dom[1].name, "package-0.dram");
    CHECK_STR(r.dom[2].name, "package-1");
    CHECK(r.dom[0].max_range_uj == 1000);

    unsigned long long raw = 0;
    CHECK(rapl_read_raw(&r, &raw) == 0 && raw == 900);
    rapl_sample(&r);
    CHECK(r.dom[0].have_value && r.dom[0].cum_uj == 0);
    put("intel-rapl:0/energy_uj", "980\n");
    put("intel-rapl:0:1/energy_uj", "30\n");
    rapl_sample(&r);
    CHECK(r.dom[0].cum_uj == 80);
    CHECK(r.dom[1].cum_uj == 20);
    put("intel-rapl:0/energy_uj", "60\n");                    /* wrapped: +20 +60 */
    rapl_sample(&r);
    CHECK(r.dom[0].cum_uj == 160);
    CHECK(rapl_read_raw(&r, &raw) == 0 && raw == 60);
}

static void test_explicit_raw_path(void)
{
    put("custom_uj", "12345\n");
    char path[512];
    snprintf(path, sizeof path, "%s/custom_uj", root);
    struct rapl r;
    rapl_discover(&r, root, path);
    unsigned long long raw = 0;
    CHECK(rapl_read_raw(&r, &raw) == 0 && raw == 12345);
}

static void test_unreadable_counter(void)
{
    if (geteuid() == 0)
        return;       /* root reads mode-000 files; nothing to test */
    char path[512];
    snprintf(path, sizeof path, "%s/intel-rapl:1/energy_uj", root);
    chmod(path, 0);
    struct rapl r;
    CHECK(rapl_discover(&r, root, NULL) == 3);
    rapl_sample(&r);
    CHECK(r.dom[2].have_value == 0);
    CHECK(r.dom[2].warned == 1);
    CHECK(r.dom[0].have_value == 1);
    chmod(path, 0644);
}

static void test_no_powercap(void)
{
    struct rapl r;
    unsigned long long raw;
    CHECK(rapl_discover(&r, "/nonexistent/powercap", NULL) == 0);
    CHECK(rapl_read_raw(&r, &raw) == -1);
    rapl_sample(&r);
}

int main(void)
{
    if (!mkdtemp(root))
        return 1;
    run_test("rapl wrap delta with max_energy_range_uj", test_wrap_delta);
    run_test("rapl discovers package and dram domains, cumulative across a wrap", test_discover_and_wrap);
    run_test("rapl explicit --rapl file feeds the raw column", test_explicit_raw_path);
    run_test("rapl unreadable energy_uj warns and leaves cells empty", test_unreadable_counter);
    run_test("rapl without powercap records nothing", test_no_powercap);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) { /* leftover temp dir */ }
    return check_exit_status();
}
