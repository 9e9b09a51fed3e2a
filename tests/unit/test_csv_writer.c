/* test_csv_writer.c — CSV quoting, whole-row appends, header checks. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include "check.h"
#include "csv_writer.h"

static char dir[] = "/tmp/flinch-csvw-XXXXXX";

static char *slurp(const char *path)
{
    static char buf[65536];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static void test_quoting(void)
{
    char buf[256];
    const char *cells[] = { "1", NULL, "MARK", "a,b", "say \"hi\"", " lead", "trail ", "plain text", "" };
    size_t n = csv_format_row(buf, sizeof buf, cells, 9);
    CHECK_STR(buf, "1,,MARK,\"a,b\",\"say \"\"hi\"\"\",\" lead\",\"trail \",plain text,\n");
    CHECK(n == strlen(buf));
    CHECK(csv_cell_needs_quotes("x\ny"));
    CHECK(csv_cell_needs_quotes("x\ry"));
    CHECK(!csv_cell_needs_quotes("in side"));
    CHECK(!csv_cell_needs_quotes(""));
}

static void test_too_long(void)
{
    char buf[8];
    const char *cells[] = { "12345", "678" };
    CHECK(csv_format_row(buf, sizeof buf, cells, 2) == 0);
    const char *fit[] = { "12", "34" };
    CHECK(csv_format_row(buf, sizeof buf, fit, 2) == 6);
    CHECK_STR(buf, "12,34\n");
}

static void test_new_file_and_append(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/a.csv", dir);
    struct csv_out o;
    CHECK(csv_out_open(&o, path, "x,y\n", 0) == 0);
    CHECK(o.wrote_header == 1);
    const char *row[] = { "1", "2" };
    CHECK(csv_out_write_cells(&o, row, 2) == 0);
    csv_out_close(&o);
    CHECK(csv_out_open(&o, path, "x,y\n", 0) == 0);
    CHECK(o.wrote_header == 0);
    CHECK(csv_out_write_cells(&o, row, 2) == 0);
    CHECK(csv_out_rows(&o) == 1);
    csv_out_close(&o);
    CHECK_STR(slurp(path), "x,y\n1,2\n1,2\n");
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0644 & ~0022u));
}

static void test_header_mismatch_refused(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/b.csv", dir);
    struct csv_out o;
    CHECK(csv_out_open(&o, path, "x,y,rapl_cum_uj:package-0\n", 0) == 0);
    csv_out_close(&o);
    CHECK(csv_out_open(&o, path, "x,y\n", 0) == -1);
    CHECK_STR(slurp(path), "x,y,rapl_cum_uj:package-0\n");
}

static void test_symlink_refused(void)
{
    char path[256], target[256];
    snprintf(path, sizeof path, "%s/link.csv", dir);
    snprintf(target, sizeof target, "%s/target.csv", dir);
    CHECK(symlink(target, path) == 0);
    struct csv_out o;
    CHECK(csv_out_open(&o, path, "x\n", 0) == -1);
    CHECK(access(target, F_OK) != 0);
}

/* RLIMIT_FSIZE cuts a row short: the partial row must be taken back out so
 * the file still ends on a whole row, and later writes are refused. */
static void test_write_error_keeps_whole_rows(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/c.csv", dir);
    struct csv_out o;
    CHECK(csv_out_open(&o, path, "x,y\n", 0) == 0);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim = { 20, 20 };
    getrlimit(RLIMIT_FSIZE, &old);
    lim.rlim_max = old.rlim_max;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    const char *row[] = { "123", "456" };          /* 8 bytes a row, header 4 */
    CHECK(csv_out_write_cells(&o, row, 2) == 0);  /* 12 */
    CHECK(csv_out_write_cells(&o, row, 2) == 0);  /* 20 */
    CHECK(csv_out_write_cells(&o, row, 2) == -1);
    CHECK(csv_out_failed(&o));
    CHECK(csv_out_write_cells(&o, row, 2) == -1);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(csv_out_write_cells(&o, row, 2) == -1); /* stays failed */
    csv_out_close(&o);
    CHECK_STR(slurp(path), "x,y\n123,456\n123,456\n");

    /* a limit that cuts a row in the middle */
    snprintf(path, sizeof path, "%s/d.csv", dir);
    CHECK(csv_out_open(&o, path, "x,y\n", 0) == 0);
    lim.rlim_cur = 16;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    CHECK(csv_out_write_cells(&o, row, 2) == 0);
    CHECK(csv_out_write_cells(&o, row, 2) == -1);
    setrlimit(RLIMIT_FSIZE, &old);
    csv_out_close(&o);
    CHECK_STR(slurp(path), "x,y\n123,456\n");
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    run_test("csv quoting per RFC 4180", test_quoting);
    run_test("csv row too long for buffer", test_too_long);
    run_test("csv new file then append keeps one header", test_new_file_and_append);
    run_test("csv append refuses a different header", test_header_mismatch_refused);
    run_test("csv output symlink refused", test_symlink_refused);
    run_test("csv write error keeps whole rows only", test_write_error_keeps_whole_rows);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) { /* leftover temp dir */ }
    return check_exit_status();
}
