/* test_trace_reader.c — header validation, typed rows, the exact error
 * messages for bad rows, and the number parser against strtod. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "trace_reader.h"

static char path[64];

static void write_file(const char *data)
{
    check_write_file(path, sizeof path, "/tmp/flinch_tr_test", data, strlen(data));
}

#define ORIG "t_mono_ns,t_wall_ns,row_type,label,gpu_power_W,gpu_util_pct,gpu_mem_util_pct," \
             "gpu_sm_clock_MHz,gpu_temp_C,rapl_energy_uj\n"

/* Reads the whole file; returns the last status and the error text. */
static int read_all(const char *data, long *rows, char *err, size_t cap)
{
    write_file(data);
    struct trace_reader tr;
    int rc = trace_reader_open(&tr, path);
    *rows = 0;
    if (rc == 0) {
        struct trace_row row;
        while ((rc = trace_reader_next(&tr, &row)) == 1)
            (*rows)++;
    }
    snprintf(err, cap, "%s", rc < 0 ? tr.error : "");
    trace_reader_close(&tr);
    return rc;
}

static void test_original_rows(void)
{
    write_file(ORIG "100,200,MARK,begin,,,,,,\n"
                    "110,210,SAMPLE,,61.5,7,3,1980,40,12345\n");
    struct trace_reader tr;
    CHECK(trace_reader_open(&tr, path) == 0);
    CHECK(trace_reader_has(&tr, COL_GPU_POWER_W));
    CHECK(!trace_reader_has(&tr, COL_GPU_ENERGY_MJ));
    struct trace_row row;
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(row.type == TRACE_MARK && row.line == 2 && row.t_mono_ns == 100 && row.t_wall_ns == 200);
    CHECK_STR(row.label, "begin");
    CHECK(isnan(row.v[COL_GPU_POWER_W]));
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(row.type == TRACE_SAMPLE && row.gpu == 0);
    CHECK(row.v[COL_GPU_POWER_W] == 61.5 && row.v[COL_GPU_UTIL_PCT] == 7);
    CHECK(row.v[COL_RAPL_ENERGY_UJ] == 12345);
    CHECK(isnan(row.v[COL_GPU_ENERGY_MJ]));
    CHECK(trace_reader_next(&tr, &row) == 0);
    trace_reader_close(&tr);
}

static void test_flinch_columns(void)
{
    write_file("row_type,t_mono_ns,label,gpu_index,gpu_energy_mJ,gpu_clock_event_reasons,"
               "proc_state,rapl_cum_uj:package-0,extra\n"
               "SAMPLE,5,,1,1000001,0x0000000000000024,S,77,whatever\n");
    struct trace_reader tr;
    CHECK(trace_reader_open(&tr, path) == 0);
    CHECK(tr.n_rapl == 1);
    CHECK_STR(tr.rapl_domain[0], "package-0");
    struct trace_row row;
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(row.gpu == 1 && row.v[COL_GPU_ENERGY_MJ] == 1000001);
    CHECK(row.clock_event_reasons == 0x24 && row.proc_state == 'S');
    CHECK(row.rapl_cum_uj[0] == 77 && !row.has_wall);
    trace_reader_close(&tr);

    /* issue 9 item 20: the plain-identifier names flinch writes now, and
     * both spellings side by side */
    write_file("t_mono_ns,row_type,label,rapl_cum_uj_package_0,rapl_cum_uj:package-0.dram\n"
               "5,SAMPLE,,77,x\n");
    CHECK(trace_reader_open(&tr, path) == 0);
    CHECK(tr.n_rapl == 2);
    CHECK_STR(tr.rapl_domain[0], "package_0");
    CHECK_STR(tr.rapl_domain[1], "package-0.dram");
    CHECK(trace_reader_next(&tr, &row) == -1);      /* 'x' is not a number */
    trace_reader_close(&tr);
}

static void test_errors(void)
{
    long rows;
    char err[512];
    CHECK(read_all("a,b,c\n1,2,3\n", &rows, err, sizeof err) == -1);
    CHECK(strstr(err, ":1: not a flinch trace: no column t_mono_ns (header starts 'a')") != NULL);
    CHECK(read_all(ORIG "1,2,SAMPLE,,abc,,,,,\n", &rows, err, sizeof err) == -1);
    CHECK(strstr(err, ":2: column gpu_power_W: not a number: 'abc'") != NULL);
    CHECK(read_all("t_mono_ns,row_type,label,rapl_cum_uj:package-0.dram\n5,SAMPLE,,x\n", &rows,
                   err, sizeof err) == -1);
    CHECK(strstr(err, ":2: column rapl_cum_uj:package-0.dram: not a number: 'x'") != NULL);
    CHECK(read_all(ORIG "1,2,SAMPLE,,1,,,\n", &rows, err, sizeof err) == -1);
    CHECK(strstr(err, ":2: 8 cells where the header has 10") != NULL);
    CHECK(read_all(ORIG "1,2,BOGUS,,1,,,,,\n", &rows, err, sizeof err) == -1);
    CHECK(strstr(err, ":2: column row_type: unknown row type 'BOGUS'") != NULL);
    CHECK(read_all(ORIG "20,2,SAMPLE,,1,,,,,\n10,2,MARK,x,,,,,,\n5,2,SAMPLE,,1,,,,,\n",
                   &rows, err, sizeof err) == -1);
    CHECK(strstr(err, ":4: column t_mono_ns: sample out of time order "
                      "(5 < 20 of the previous sample of GPU 0 at line 2)") != NULL);
    CHECK(rows == 2);
    CHECK(read_all(ORIG "1.5,2,SAMPLE,,1,,,,,\n", &rows, err, sizeof err) == -1);
    CHECK(strstr(err, ":2: column t_mono_ns: not an integer: '1.5'") != NULL);
    CHECK(read_all("", &rows, err, sizeof err) == -1);
    CHECK(strstr(err, "empty file") != NULL);
}

static void test_truncated_last_line(void)
{
    long rows;
    char err[512];
    CHECK(read_all(ORIG "1,2,SAMPLE,,1,,,,,\n2,3,SAMP", &rows, err, sizeof err) == 0);
    CHECK(rows == 1);
    /* a complete last row without its newline is kept */
    CHECK(read_all(ORIG "1,2,SAMPLE,,1,,,,,\n2,3,SAMPLE,,1,,,,,", &rows, err, sizeof err) == 0);
    CHECK(rows == 2);
}

static void test_parse_double(void)
{
    static const char *const cases[] = {
        "0", "-0", "612.345", "0.1", "1e-3", "6E+2", "123456789012345", "1234567890123456789",
        "0.000000000000000000000000001", "3.14159265358979323846", "1e300", "75.000", "+5",
        "9007199254740993", "0.30000000000000004", "9223372036854775807", "18446744073709551615",
        "9999999999999999999", "1790000010000000123", "3375512841123456", "12345678901234567.5",
        "0.9007199254740993", "-1790000010000000001",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got, want = strtod(cases[i], NULL);
        CHECK(trace_parse_double(cases[i], strlen(cases[i]), &got) == 0);
        if (!CHECK(got == want))
            fprintf(stderr, "    case %s: %.17g vs %.17g\n", cases[i], got, want);
    }
    /* random decimals: bit-exact with strtod */
    unsigned long long x = 88172645463325252ull;
    int bad = 0;
    for (int i = 0; i < 50000; i++) {      /* ns timestamps: 16 to 19 digit integers */
        char s[32];
        snprintf(s, sizeof s, "%llu", (unsigned long long)(rand() % 1000) * 1000000000000000ULL +
                 (unsigned long long)rand() * 1000ULL + (unsigned long long)(rand() % 1000));
        double got, want = strtod(s, NULL);
        CHECK(trace_parse_double(s, strlen(s), &got) == 0);
        if (memcmp(&got, &want, sizeof got) != 0) {
            CHECK_STR(s, "(bit-exact with strtod)");
            break;
        }
    }
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        char s[64];
        int n = snprintf(s, sizeof s, "%llu.%0*llu", (x >> 20) % 100000, (int)(x % 7) + 1,
                         (x >> 8) % 1000000);
        double got, want = strtod(s, NULL);
        if (trace_parse_double(s, (size_t)n, &got) != 0 || got != want)
            bad++;
    }
    CHECK(bad == 0);
    static const char *const badcases[] = { "", "-", ".", "abc", "1.2.3", "1e", "nan", "inf", "0x10", " 1", "1 " };
    for (size_t i = 0; i < sizeof badcases / sizeof badcases[0]; i++) {
        double v;
        CHECK(trace_parse_double(badcases[i], strlen(badcases[i]), &v) == -1);
    }
}

/* The times' doubles come from their integers: the same value as their
 * text read as a double, -0.0 for "-0" included. */
static void test_time_doubles(void)
{
    write_file(ORIG "-0,-0,SAMPLE,,1,1,1,1,1,1\n"
                    "0000000000000000123,4611686018427387903,SAMPLE,,1,1,1,1,1,1\n"
                    "4611686018427387903,9007199254740993,SAMPLE,,1,1,1,1,1,1\n");
    struct trace_reader tr;
    CHECK(trace_reader_open(&tr, path) == 0);
    struct trace_row row;
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(row.t_mono_ns == 0 && row.v[COL_T_MONO_NS] == 0 && signbit(row.v[COL_T_MONO_NS]));
    CHECK(row.has_wall && row.v[COL_T_WALL_NS] == 0 && signbit(row.v[COL_T_WALL_NS]));
    double want;
    CHECK(trace_parse_double("4611686018427387903", 19, &want) == 0);
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(row.v[COL_T_MONO_NS] == 123 && row.v[COL_T_WALL_NS] == want);
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(trace_parse_double("9007199254740993", 16, &want) == 0);
    CHECK(row.v[COL_T_WALL_NS] == want && row.v[COL_T_WALL_NS] == 9007199254740992.0);
    CHECK(trace_reader_next(&tr, &row) == 0);
    trace_reader_close(&tr);
}

int main(void)
{
    run_test("trace reader: original ten-column rows", test_original_rows);
    run_test("trace reader: columns by name, gpu_index, reasons, rapl_cum", test_flinch_columns);
    run_test("trace reader: error messages name file, line, column", test_errors);
    run_test("trace reader: truncated last line skipped", test_truncated_last_line);
    run_test("trace_parse_double matches strtod", test_parse_double);
    run_test("trace reader: the times' doubles", test_time_doubles);
    unlink(path);
    return check_exit_status();
}
