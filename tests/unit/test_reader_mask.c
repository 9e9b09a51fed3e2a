/* test_reader_mask.c — the trace reader's column mask (trace_reader_want):
 * a masked read gives the wanted cells bit for bit as an unmasked read of
 * the same file does, NAN (and 0 reason bits) elsewhere, the same rows,
 * and the same errors with the same messages, on the fixture traces and on
 * lines made awkward on purpose (cells of every length around the word the
 * check reads, quoted cells holding newlines, short and long rows, CRLF,
 * bad cells in the columns left out). */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "trace_reader.h"

static char path[64];

static void write_file(const char *data)
{
    check_write_file(path, sizeof path, "/tmp/flinch_mask_test", data, strlen(data));
}

/* Bit for bit, so that -0.0 and NAN compare too. */
static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

/* Reads FILE twice side by side, unmasked and with MASK: every row the
 * same where the mask wants it, NAN where it does not; the same end and
 * message. Returns the rows read, -1 after a difference (reported). */
static long compare_reads(const char *file, uint64_t mask, const char *what)
{
    struct trace_reader full, masked;
    int rf = trace_reader_open(&full, file), rm = trace_reader_open(&masked, file);
    if (!CHECK(rf == rm))
        return -1;
    if (rf != 0) {
        CHECK_STR(masked.error, full.error);
        return 0;
    }
    trace_reader_want(&masked, mask);
    struct trace_row a, b;
    long rows = 0;
    for (;;) {
        rf = trace_reader_next(&full, &a);
        rm = trace_reader_next(&masked, &b);
        if (!CHECK(rf == rm)) {
            fprintf(stderr, "    %s, %s: row %ld: %d unmasked, %d masked (%s / %s)\n", file, what,
                    rows, rf, rm, full.error, masked.error);
            rows = -1;
            break;
        }
        if (rf < 0) {
            if (!CHECK_STR(masked.error, full.error))
                fprintf(stderr, "    %s, %s\n", file, what);
            break;
        }
        if (rf == 0)
            break;
        rows++;
        int ok = a.type == b.type && a.line == b.line && a.t_mono_ns == b.t_mono_ns &&
                 a.t_wall_ns == b.t_wall_ns && a.has_wall == b.has_wall && a.gpu == b.gpu &&
                 a.recording == b.recording && a.starts_recording == b.starts_recording &&
                 strcmp(a.label, b.label) == 0 && a.proc_state == b.proc_state &&
                 strcmp(a.proc_top_thread, b.proc_top_thread) == 0 && a.has_attrs == b.has_attrs &&
                 memcmp(&a.attrs, &b.attrs, sizeof a.attrs) == 0;
        for (int c = 0; c < COL_COUNT; c++) {
            /* the reader's own: read whatever the mask */
            int wanted = (mask & TRACE_WANT(c)) || c == COL_GPU_INDEX || c == COL_T_MONO_NS ||
                         c == COL_T_WALL_NS;
            ok &= wanted ? same_double(a.v[c], b.v[c]) : isnan(b.v[c]);
        }
        int reasons_wanted = (mask & TRACE_WANT(COL_GPU_CLOCK_EVENT_REASONS)) != 0;
        ok &= b.clock_event_reasons == (reasons_wanted ? a.clock_event_reasons : 0);
        for (int k = 0; k < full.n_rapl; k++)
            ok &= (mask & TRACE_WANT_RAPL) ? same_double(a.rapl_cum_uj[k], b.rapl_cum_uj[k])
                                           : isnan(b.rapl_cum_uj[k]);
        if (!CHECK(ok)) {
            fprintf(stderr, "    %s, %s: line %ld differs\n", file, what, a.line);
            rows = -1;
            break;
        }
    }
    CHECK(full.truncated_last_line == masked.truncated_last_line);
    trace_reader_close(&full);
    trace_reader_close(&masked);
    return rows;
}

/* The masks a pass may use: the clock measure's, a few columns, every
 * column but the rapl ones, nothing at all but the reader's own. */
static const struct {
    uint64_t mask;
    const char *name;
} masks[] = {
    { TRACE_WANT(COL_T_MONO_NS) | TRACE_WANT(COL_T_WALL_NS), "times" },
    { TRACE_WANT(COL_GPU_POWER_W) | TRACE_WANT(COL_GPU_UTIL_PCT) | TRACE_WANT(COL_TICK) |
          TRACE_WANT_RAPL, "power, util, tick, rapl" },
    { TRACE_WANT_ALL & ~TRACE_WANT_RAPL, "all but rapl" },
    { TRACE_WANT_ALL & ~TRACE_WANT(COL_GPU_CLOCK_EVENT_REASONS), "all but reasons" },
    { 0, "none" },
    { TRACE_WANT_ALL, "all" },
};
#define NMASKS (sizeof masks / sizeof masks[0])

static long compare_all_masks(const char *file)
{
    long rows = 0;
    for (size_t m = 0; m < NMASKS; m++) {
        long r = compare_reads(file, masks[m].mask, masks[m].name);
        if (r < 0)
            return -1;
        rows = r;
    }
    return rows;
}

static void test_fixtures(void)
{
    /* tests/run.sh runs a test in a directory of its own, with ROOT set */
    const char *root = getenv("ROOT") ? getenv("ROOT") : ".";
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/fixtures", root);
    DIR *d = opendir(dir);
    if (!CHECK(d != NULL))
        return;
    int traces = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".csv") != 0)
            continue;
        char file[1024];
        snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
        long rows = compare_all_masks(file);
        CHECK(rows >= 0);
        traces += rows > 0;
    }
    closedir(d);
    CHECK(traces >= 3);            /* the fixtures hold traces to compare */
}

#define HEAD "t_mono_ns,t_wall_ns,row_type,label,gpu_power_W,gpu_util_pct,gpu_index," \
             "gpu_clock_event_reasons,tick,late_ns,rapl_cum_uj_package_0,proc_top_thread\n"

/* Each line after HEAD alone, and all the good ones together. */
static void test_awkward_cells(void)
{
    static const char *const good[] = {
        "-0,-0,SAMPLE,,-0,-0.0,0,,-0,-0.0,-0,\n",
        "1,2,SAMPLE,,61.5,7,0,0x0000000000000001,0,-5,77,\n",
        "2,2,SAMPLE,,1,100,0,0x1,1,0,0,\n",                  /* util 100: its range's end */
        "3,2,SAMPLE,,.5,5.,0,,2,,,\n",
        "4,2,SAMPLE,,1234.567,99.99999,0,,12345678,12345678,12345678,\n",  /* one word */
        "5,2,SAMPLE,,1234.5678,0.0000001,0,,123456789,1234567.8,123456789,\n",
        "6,2,SAMPLE,,99999.9999999999,00000000000000,0,,1234567890123456,"
        "123456789012345.6,9007199254740991,\n",                      /* 16 bytes */
        "7,2,SAMPLE,,0099999.999999999,000000000000001,0,,00000000000000001,"
        "1234567890123456.7,9007199254740992,\n",                     /* 17 bytes */
        "8,2,SAMPLE,,1e3,+5,0,0X00FF,0.5e1,-0,1E1,\n",       /* forms the check leaves */
        "9,4,SAMPLE,,1,2,0,,3,4,5,\"a, \"\"b\"\"\nc\"\n",   /* a newline after the last */
        "10,4,SAMPLE,,1,2,0,,3,4,5,plain\r\n",              /* CRLF */
        "11,6,MARK,begin,,,,,,,,\r\n",
        "\n",                                                /* blank */
        "12,8,SAMPLE,,1,2,,,3,4,5,\n",                       /* no gpu_index */
        "13,10,SAMPLE,,1,2,1,,3,4,5,1234 worker\n",
    };
    static const char *const bad[] = {
        "1,2,SAMPLE,,abc,7,0,,0,0,0,\n",
        "1,2,SAMPLE,,1,101,0,,0,0,0,\n",                      /* util out of range */
        "1,2,SAMPLE,,1,100.5,0,,0,0,0,\n",
        "1,2,SAMPLE,,1,-1,0,,0,0,0,\n",
        "1,2,SAMPLE,,1,1.2.3,0,,0,0,0,\n",
        "1,2,SAMPLE,,1,.,0,,0,0,0,\n",
        "1,2,SAMPLE,,1,1234567890123456,0,,0,0,0,\n",         /* 16 digits, over 100 */
        "1,2,SAMPLE,,1e999,1,0,,0,0,0,\n",
        "1,2,SAMPLE,,1,1,0,0xZZ,0,0,0,\n",
        "1,2,SAMPLE,,1,1,0,,9007199254740994,0,0,\n",         /* tick past 2^53 */
        "1,2,SAMPLE,,1,1,0,,0,1 2,0,\n",
        "1,2,SAMPLE,,1,1,0,,0,0,99999999999999999,\n",         /* rapl past 2^53 */
        "1,2,SAMPLE,,1,1,0,,0,0,x,\n",
        "1,2,SAMPLE,,1,1,0,,0,0,0,\"a\nb\",extra\n",          /* wider, over two lines */
        "1,2,SAMPLE,,1,1,0,,0,0,0,,\n",                       /* one cell too many */
        "1,2,SAMPLE,,1,1,0,,0,0\n",                           /* short */
        "1,2,SAMPLE,,1,1,0,,0,0,0,\"never closed\n1,2,SAMPLE,,1,1,0,,0,0,0,\n",
        "1,2,SAMPLE,,1,1,0,,0,0,0,x\n1,2,SAMPLE,,1,1,0,,0,0,0",  /* cut short */
        "1,2,SAMPLE,,1,1,7,,0,0,0,\n0,2,SAMPLE,,1,1,7,,0,0,0,\n", /* back in time */
        "1,2,SAMPLE,,1,1,1.5,,0,0,0,\n",                      /* not a GPU index */
        "1,2,BOGUS,,1,1,0,,0,0,0,\n",
    };
    char all[4096] = HEAD, one[512];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(one, sizeof one, "%s%s", HEAD, good[i]);
        write_file(one);
        long rows = compare_all_masks(path);
        if (!CHECK(rows == (strcmp(good[i], "\n") == 0 ? 0 : 1)))
            fprintf(stderr, "    good line %zu: %ld rows\n", i, rows);
        strncat(all, good[i], sizeof all - strlen(all) - 1);
    }
    write_file(all);
    CHECK(compare_all_masks(path) == 14);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(one, sizeof one, "%s%s", HEAD, bad[i]);
        write_file(one);
        struct trace_reader tr;
        CHECK(trace_reader_open(&tr, path) == 0);
        trace_reader_want(&tr, TRACE_WANT(COL_T_MONO_NS));
        struct trace_row row;
        int rc;
        long rows = 0;
        while ((rc = trace_reader_next(&tr, &row)) == 1)
            rows++;
        /* every bad line fails a masked read too (the cut-short one is
         * skipped with a warning, after its good row) */
        if (!CHECK(rc < 0 || (rc == 0 && tr.truncated_last_line)))
            fprintf(stderr, "    bad line %zu read\n", i);
        trace_reader_close(&tr);
        if (!CHECK(compare_all_masks(path) >= 0))
            fprintf(stderr, "    bad line %zu\n", i);
    }
    /* a NUL byte in a cell no mask wants */
    static const char nul[] = HEAD "1,2,SAMPLE,,1,1,0,,0,0,0,a\0b\n";
    check_write_file(path, sizeof path, "/tmp/flinch_mask_test", nul, sizeof nul - 1);
    CHECK(compare_all_masks(path) == 0);
}

/* The masked values themselves, not only their agreement. */
static void test_values(void)
{
    write_file(HEAD "100,200,SAMPLE,,61.5,7,2,0x0000000000000024,5,-3,77,9 w\n");
    struct trace_reader tr;
    CHECK(trace_reader_open(&tr, path) == 0);
    trace_reader_want(&tr, TRACE_WANT(COL_GPU_UTIL_PCT));
    struct trace_row row;
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(row.t_mono_ns == 100 && row.t_wall_ns == 200 && row.has_wall);
    CHECK(row.v[COL_T_MONO_NS] == 100 && row.v[COL_T_WALL_NS] == 200);
    CHECK(row.v[COL_GPU_UTIL_PCT] == 7 && row.gpu == 2 && row.v[COL_GPU_INDEX] == 2);
    CHECK(isnan(row.v[COL_GPU_POWER_W]) && isnan(row.v[COL_TICK]) && isnan(row.v[COL_LATE_NS]));
    CHECK(isnan(row.v[COL_GPU_CLOCK_EVENT_REASONS]) && row.clock_event_reasons == 0);
    CHECK(isnan(row.rapl_cum_uj[0]));
    CHECK_STR(row.proc_top_thread, "9 w");
    CHECK(trace_reader_next(&tr, &row) == 0);
    trace_reader_close(&tr);
}

int main(void)
{
    run_test("masked reads agree on the fixtures", test_fixtures);
    run_test("masked reads agree on awkward cells and lines", test_awkward_cells);
    run_test("masked values", test_values);
    unlink(path);
    return check_exit_status();
}
