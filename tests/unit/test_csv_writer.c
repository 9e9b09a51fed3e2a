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

/* The row formatter as it was before it copied plain cells whole: the
 * reference the faster one must equal, output and refusals alike. */
static size_t reference_format_row(char *buf, size_t cap, const char *const *cells, int ncells,
                                   int always_quote)
{
    size_t len = 0;
    for (int i = 0; i < ncells; i++) {
        if (i > 0) {
            if (len + 1 >= cap)
                return 0;
            buf[len++] = ',';
        }
        const char *c = cells[i];
        if (!c)
            continue;
        size_t n = strlen(c);
        int quote = (i == always_quote && *c) ||
                    (n > 0 && (c[0] == ' ' || c[0] == '\t' || c[n - 1] == ' ' || c[n - 1] == '\t' ||
                               strpbrk(c, ",\"\r\n") != NULL));
        if (quote) {
            if (len + 1 >= cap)
                return 0;
            buf[len++] = '"';
        }
        for (; *c; c++) {
            if (len + 2 >= cap)
                return 0;
            if (*c == '"')
                buf[len++] = '"';
            buf[len++] = *c;
        }
        if (quote) {
            if (len + 1 >= cap)
                return 0;
            buf[len++] = '"';
        }
    }
    if (len + 1 >= cap)
        return 0;
    buf[len++] = '\n';
    buf[len] = '\0';
    return len;
}

/* Random rows of cells drawn from bytes that matter to quoting, formatted
 * into every buffer size from 1 to past the row's length. */
static void test_same_as_reference(void)
{
    static const char alphabet[] = "a1 ,\"\t\r\nx.";
    unsigned rng = 12345;
    int bad = 0;
    for (int row = 0; row < 3000 && bad < 5; row++) {
        char store[8][12];
        const char *cells[8];
        int ncells = 1 + (int)((rng = rng * 1103515245u + 12345u) >> 16) % 8;
        for (int i = 0; i < ncells; i++) {
            rng = rng * 1103515245u + 12345u;
            int n = (int)(rng >> 16) % 12;
            if (n == 11) { cells[i] = NULL; continue; }
            for (int k = 0; k < n; k++) {
                rng = rng * 1103515245u + 12345u;
                store[i][k] = alphabet[(rng >> 16) % (sizeof alphabet - 1)];
            }
            store[i][n] = '\0';
            cells[i] = store[i];
        }
        int always = (int)(rng >> 20) % 10 - 1;
        for (size_t cap = 1; cap < 260; cap++) {
            char got[260], want[260];
            size_t g = csv_format_row_quoting(got, cap, cells, ncells, always);
            size_t w = reference_format_row(want, cap, cells, ncells, always);
            if (g != w || (g && memcmp(got, want, g + 1) != 0)) {
                bad++;
                CHECK(g == w);
                if (g && w)
                    CHECK_STR(got, want);
                break;
            }
            if (w)
                break;
        }
    }
    CHECK(bad == 0);
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
    run_test("csv rows equal the byte-by-byte formatter's at every buffer size", test_same_as_reference);
    run_test("csv new file then append keeps one header", test_new_file_and_append);
    run_test("csv append refuses a different header", test_header_mismatch_refused);
    run_test("csv output symlink refused", test_symlink_refused);
    run_test("csv write error keeps whole rows only", test_write_error_keeps_whole_rows);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) { /* leftover temp dir */ }
    return check_exit_status();
}
