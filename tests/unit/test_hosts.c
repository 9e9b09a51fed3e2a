/* test_hosts.c — host names, clock offsets, host:label references. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "hosts.h"
#include "trace_schema.h"

static void names(void)
{
    struct host_trace h;
    char err[HOST_ERROR_MAX];
    CHECK(host_trace_parse("node1=/tmp/x.csv", &h, err, sizeof err) == 0);
    CHECK_STR(h.name, "node1");
    CHECK_STR(h.path, "/tmp/x.csv");
    CHECK(host_trace_parse("runs/gpu-a.csv", &h, err, sizeof err) == 0);
    CHECK_STR(h.name, "gpu-a");
    CHECK_STR(h.path, "runs/gpu-a.csv");
    CHECK(host_trace_parse("./a=b/t.csv", &h, err, sizeof err) == 0);  /* '=' inside a path */
    CHECK_STR(h.name, "t");
    CHECK(host_trace_parse("trace", &h, err, sizeof err) == 0);
    CHECK_STR(h.name, "trace");
    CHECK(host_trace_parse("a:b.csv", &h, err, sizeof err) == -1);
    CHECK_STR(err, "'a:b.csv': host name 'a:b' may not hold ':', '=' or control characters (use HOST=PATH)");
    CHECK(host_trace_parse("n=", &h, err, sizeof err) == -1);
    CHECK_STR(err, "'n=': no file after '='");
    CHECK(host_trace_parse(".csv", &h, err, sizeof err) == 0);   /* not stripped to nothing */
    CHECK_STR(h.name, ".csv");
}

static const char header[] = "t_mono_ns,t_wall_ns,row_type,label\n";

static void offsets(void)
{
    char path[] = "/tmp/flinch-test-hosts-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(header, f);
    /* offsets 1000, 1000, 5000 (a clock step), 1000, and a row without wall */
    fputs("100,1100,MARK,a\n200,1200,MARK,b\n300,5300,MARK,c\n400,1400,MARK,d\n50,,MARK,e\n", f);
    fclose(f);
    struct host_trace h;
    char err[HOST_ERROR_MAX];
    CHECK(host_trace_parse(path, &h, err, sizeof err) == 0);
    CHECK(host_trace_measure(&h, err, sizeof err) == 0);
    CHECK(h.has_wall && h.wall_offset_ns == 1000 && h.offset_spread_ns == 4000);
    CHECK(h.rows == 5 && h.min_mono_ns == 50 && h.max_mono_ns == 400);
    CHECK(host_shared_ns(&h, 7) == 1007 && host_mono_ns(&h, 1007) == 7);
    unlink(path);
    CHECK(host_trace_measure(&h, err, sizeof err) == -1);
}

static void bounded_median(void)
{
    char path[] = "/tmp/flinch-test-hosts-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(header, f);
    /* 100000 rows: offset 7 except every 10th row at 9: median 7 */
    for (long i = 0; i < 100000; i++)
        fprintf(f, "%ld,%ld,MARK,x\n", i * 10, i * 10 + (i % 10 == 3 ? 9 : 7));
    fclose(f);
    struct host_trace h;
    char err[HOST_ERROR_MAX];
    CHECK(host_trace_parse(path, &h, err, sizeof err) == 0);
    CHECK(host_trace_measure(&h, err, sizeof err) == 0);
    CHECK(h.wall_offset_ns == 7 && h.offset_spread_ns == 2 && h.rows == 100000);
    unlink(path);
}

static void refs_and_checks(void)
{
    struct host_trace hs[2];
    char err[HOST_ERROR_MAX];
    CHECK(host_trace_parse("host1=a.csv", &hs[0], err, sizeof err) == 0);
    CHECK(host_trace_parse("host2=b.csv", &hs[1], err, sizeof err) == 0);
    int h;
    const char *label;
    host_ref_parse(hs, 2, "host2:infer_start", &h, &label);
    CHECK(h == 1);
    CHECK_STR(label, "infer_start");
    host_ref_parse(hs, 2, "req:42", &h, &label);      /* not a host: a label with ':' */
    CHECK(h == -1);
    CHECK_STR(label, "req:42");
    host_ref_parse(hs, 2, "infer_start", &h, &label);
    CHECK(h == -1);
    CHECK_STR(label, "infer_start");
    hs[0].has_wall = hs[1].has_wall = 1;
    CHECK(hosts_check(hs, 2, err, sizeof err) == 0);
    hs[1].has_wall = 0;
    CHECK(hosts_check(hs, 2, err, sizeof err) == -1);
    CHECK_STR(err, "b.csv: no t_wall_ns values: cannot align it with the other hosts");
    CHECK(hosts_check(hs, 1, err, sizeof err) == 0);   /* alone, mono time is enough */
    CHECK(host_trace_parse("host1=c.csv", &hs[1], err, sizeof err) == 0);
    hs[1].has_wall = 1;
    CHECK(hosts_check(hs, 2, err, sizeof err) == -1);
    CHECK_STR(err, "a.csv and c.csv are both host 'host1' (name them: HOST=PATH)");
}

/* Issue 9, item 10: a mark moved through two hosts' offsets could overflow
 * int64 (window edges at +-9e18); the conversions clamp to +-TRACE_NS_MAX,
 * so a difference of two converted times never overflows. */
static void conversions_saturate(void)
{
    struct host_trace a = { .wall_offset_ns = TRACE_NS_MAX }, b = { .wall_offset_ns = -TRACE_NS_MAX };
    CHECK(host_shared_ns(&a, TRACE_NS_MAX) == TRACE_NS_MAX);
    CHECK(host_mono_ns(&b, TRACE_NS_MAX) == TRACE_NS_MAX);
    CHECK(host_mono_ns(&a, -TRACE_NS_MAX) == -TRACE_NS_MAX);
    CHECK(host_mono_ns(&a, INT64_MIN) == -TRACE_NS_MAX);
    CHECK(host_shared_ns(&b, 0) == -TRACE_NS_MAX);
    struct host_trace c = { .wall_offset_ns = 1700000000000000000 };
    CHECK(host_shared_ns(&c, 5) == 1700000000000000005);
    CHECK(host_mono_ns(&c, 1700000000000000005) == 5);
}

int main(void)
{
    run_test("clock conversions saturate at +-2^62 ns", conversions_saturate);
    run_test("host names from HOST=PATH or the file name", names);
    run_test("clock offset is the median of wall - mono", offsets);
    run_test("offset median in bounded memory over 100000 rows", bounded_median);
    run_test("host:label references and host set checks", refs_and_checks);
    return check_exit_status();
}
