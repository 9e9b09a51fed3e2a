/* test_mark_line.c — every accept/reject rule of mark_line_parse. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "mark_line.h"

static enum mark_line_status parse(const char *s, struct mark_line *m)
{
    return mark_line_parse(s, strlen(s), m);
}

static void test_plain_label(void)
{
    struct mark_line m;
    CHECK(parse("infer_start", &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "infer_start");
    CHECK(m.has_stamp == 0);
    CHECK(m.stamp_ns == 0);
}

static void test_strips_spaces_and_cr(void)
{
    struct mark_line m;
    CHECK(parse("   infer start  ", &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "infer start");       /* inner space kept */
    CHECK(parse("x\r", &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "x");
    CHECK(parse("  x  \r", &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "x");
    /* only one trailing \r is a line ending; a second is a control char */
    CHECK(parse("x\r\r", &m) == MARK_LINE_CONTROL_CHAR);
    /* \r in the middle is a control character */
    CHECK(parse("a\rb", &m) == MARK_LINE_CONTROL_CHAR);
}

static void test_empty(void)
{
    struct mark_line m;
    CHECK(mark_line_parse("", 0, &m) == MARK_LINE_EMPTY);
    CHECK(parse("    ", &m) == MARK_LINE_EMPTY);
    CHECK(parse("\r", &m) == MARK_LINE_EMPTY);
    CHECK(parse(" \r", &m) == MARK_LINE_EMPTY);
    CHECK_STR(m.label, "");
}

static void test_stamped(void)
{
    struct mark_line m;
    CHECK(parse("infer_start\t123456789", &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "infer_start");
    CHECK(m.has_stamp == 1);
    CHECK(m.stamp_ns == 123456789);
    CHECK(parse(" a b \t 42 \r", &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "a b");
    CHECK(m.stamp_ns == 42);
    CHECK(parse("x\t1", &m) == MARK_LINE_OK && m.stamp_ns == 1);
    CHECK(parse("x\t0000000000000000007", &m) == MARK_LINE_OK && m.stamp_ns == 7);
    CHECK(parse("x\t9223372036854775807", &m) == MARK_LINE_OK);
    CHECK(m.stamp_ns == INT64_MAX);
}

static void test_bad_stamps(void)
{
    static const char *const bad[] = {
        "x\t",                      /* empty */
        "x\t   ",
        "x\t0",                     /* zero */
        "x\t000",
        "x\t-5",                    /* sign */
        "x\t+5",
        "x\t12a",                   /* non-digit */
        "x\t1.5",
        "x\t1e9",
        "x\t0x10",
        "x\t1 2",                   /* inner space */
        "x\t\t2",                   /* empty stamp before attributes */
        "x\t9223372036854775808",   /* INT64_MAX + 1 */
        "x\t18446744073709551616",  /* UINT64_MAX + 1 */
        "x\t99999999999999999999999999",
        "x\t\xd9\xa3",              /* Arabic-Indic digit three */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct mark_line m;
        if (!CHECK(parse(bad[i], &m) == MARK_LINE_BAD_STAMP))
            fprintf(stderr, "    input #%zu\n", i);
        CHECK(m.has_stamp == 0);
        CHECK_STR(m.label, "");
    }
}

static void test_no_label(void)
{
    struct mark_line m;
    CHECK(parse("\t123", &m) == MARK_LINE_NO_LABEL);
    CHECK(parse("   \t123", &m) == MARK_LINE_NO_LABEL);
    CHECK(m.has_stamp == 0);
}

static void test_length_limit(void)
{
    char buf[MARK_LABEL_MAX + 64];
    struct mark_line m;

    memset(buf, 'a', MARK_LABEL_MAX);
    buf[MARK_LABEL_MAX] = '\0';
    CHECK(parse(buf, &m) == MARK_LINE_OK);
    CHECK(strlen(m.label) == MARK_LABEL_MAX);

    buf[MARK_LABEL_MAX] = 'a';
    buf[MARK_LABEL_MAX + 1] = '\0';
    CHECK(parse(buf, &m) == MARK_LINE_TOO_LONG);
    CHECK_STR(m.label, "");

    /* 256 bytes after stripping is fine even if the raw line is longer */
    memset(buf, ' ', 4);
    memset(buf + 4, 'b', MARK_LABEL_MAX);
    memcpy(buf + 4 + MARK_LABEL_MAX, "  \t77\r", 7);
    CHECK(parse(buf, &m) == MARK_LINE_OK);
    CHECK(strlen(m.label) == MARK_LABEL_MAX && m.label[0] == 'b');
    CHECK(m.stamp_ns == 77);

    /* multi-byte UTF-8 counts bytes: 129 two-byte chars = 258 bytes */
    size_t n = 0;
    for (int i = 0; i < 129; i++) {
        buf[n++] = (char)0xc3;
        buf[n++] = (char)0xa9;
    }
    buf[n] = '\0';
    CHECK(parse(buf, &m) == MARK_LINE_TOO_LONG);
    CHECK(mark_line_parse(buf, 256, &m) == MARK_LINE_OK);
}

static void test_control_chars(void)
{
    struct mark_line m;
    /* every byte below 0x20 and 0x7f, in the middle of a label */
    for (int c = 0; c < 0x80; c++) {
        char s[4] = { 'a', (char)c, 'b', '\0' };
        enum mark_line_status want;
        if (c == '\t')
            want = MARK_LINE_BAD_STAMP;     /* "a<TAB>b": b is not a stamp */
        else if (c < 0x20 || c == 0x7f)
            want = MARK_LINE_CONTROL_CHAR;
        else
            want = MARK_LINE_OK;
        if (!CHECK(mark_line_parse(s, 3, &m) == want))
            fprintf(stderr, "    byte 0x%02x\n", c);
    }
    /* NUL inside the given length is rejected, not a silent truncation */
    CHECK(mark_line_parse("ab\0cd", 5, &m) == MARK_LINE_CONTROL_CHAR);
    /* escape sequence injection */
    CHECK(parse("\x1b[31mred", &m) == MARK_LINE_CONTROL_CHAR);
    /* a newline inside is a second row's attempt: rejected */
    CHECK(parse("a\nSAMPLE", &m) == MARK_LINE_CONTROL_CHAR);
    /* a control character in a stamped label */
    CHECK(parse("a\x01\t5", &m) == MARK_LINE_CONTROL_CHAR);
    CHECK(m.has_stamp == 0 && m.stamp_ns == 0);
    /* bytes >= 0x80 (UTF-8) are allowed */
    CHECK(parse("caf\xc3\xa9", &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "caf\xc3\xa9");
    /* CSV/JSON metacharacters are the writers' job to quote, not rejected */
    CHECK(parse("a,\"b\"<c>&", &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "a,\"b\"<c>&");
}

static void test_respects_len(void)
{
    struct mark_line m;
    /* bytes beyond len are never looked at */
    CHECK(mark_line_parse("abc\t5garbage", 5, &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "abc");
    CHECK(m.stamp_ns == 5);
    CHECK(mark_line_parse("abcdef", 2, &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "ab");
}

/* The third field: range attributes. */
static void test_attrs(void)
{
    struct mark_line m;
    CHECK(parse("decode\t42\tstart=812.4 tid=815 domain=vllm", &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "decode");
    CHECK(m.stamp_ns == 42 && m.has_attrs == 1);
    CHECK(m.attrs.edge == MARK_EDGE_START);
    CHECK_STR(m.attrs.range_id, "812.4");
    CHECK(m.attrs.has_tid && m.attrs.tid == 815);
    CHECK_STR(m.attrs.domain, "vllm");
    char buf[MARK_ATTRS_MAX + 1];
    CHECK(mark_attrs_format(&m.attrs, buf, sizeof buf) == strlen("start=812.4 tid=815 domain=vllm"));
    CHECK_STR(buf, "start=812.4 tid=815 domain=vllm");
    /* any order in, canonical order out; spaces around the field dropped */
    CHECK(parse("d\t7\t domain=a:b tid=0 end=x_Y-9 \r", &m) == MARK_LINE_OK);
    CHECK(m.attrs.edge == MARK_EDGE_END);
    mark_attrs_format(&m.attrs, buf, sizeof buf);
    CHECK_STR(buf, "end=x_Y-9 tid=0 domain=a:b");
    CHECK(parse("m\t7\ttid=3", &m) == MARK_LINE_OK && m.attrs.edge == MARK_EDGE_NONE);
    mark_attrs_format(&m.attrs, buf, sizeof buf);
    CHECK_STR(buf, "tid=3");
    CHECK(parse("nvtx pid=9 reason=filter\t7\tdropped=120", &m) == MARK_LINE_OK);
    CHECK(m.attrs.has_dropped && m.attrs.dropped == 120);
    mark_attrs_format(&m.attrs, buf, sizeof buf);
    CHECK_STR(buf, "");                     /* dropped= is never kept on a row */
    /* UTF-8 domain; longest id and domain */
    CHECK(parse("d\t7\tdomain=\xc3\xa9t\xc3\xa9", &m) == MARK_LINE_OK);
    char line[512];
    snprintf(line, sizeof line, "d\t7\tstart=%040d domain=%064d", 1, 2);
    CHECK(parse(line, &m) == MARK_LINE_OK);
    CHECK(mark_attrs_format(&m.attrs, buf, sizeof buf) <= MARK_ATTRS_MAX);
    const char *bad[] = {
        "d\t7\t",                            /* empty */
        "d\t7\t  ",
        "d\t7\tstart=",                      /* empty id */
        "d\t7\tstart=a b",                   /* 'b' is no key=value */
        "d\t7\tstart=a  tid=1",              /* two spaces */
        "d\t7\tstart=a/b",                   /* id character */
        "d\t7\tstart=a end=b",               /* two edges */
        "d\t7\tstart=a start=a",
        "d\t7\ttid=1 tid=2",                 /* repeated */
        "d\t7\ttid=-1",
        "d\t7\ttid=12345678901234567890",
        "d\t7\tdomain=",
        "d\t7\tdomain=a\x01",
        "d\t7\tcolor=red",                   /* unknown key */
        "d\t7\tstart",                       /* no = */
        "d\t7\tdropped=3 start=a",           /* a report is not a range edge */
        "d\t7\tstart=a\tx",                  /* third tab */
        "d\t7\tstart=01234567890123456789012345678901234567890", /* 41 bytes */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parse(bad[i], &m) != MARK_LINE_BAD_ATTRS) {
            CHECK(parse(bad[i], &m) == MARK_LINE_BAD_ATTRS);
            fprintf(stderr, "    input #%zu\n", i);
        }
        CHECK(m.has_attrs == 0 && m.has_stamp == 0 && m.label[0] == '\0');
    }
    /* a bad stamp is reported as such even with attributes */
    CHECK(parse("d\tx\tstart=a", &m) == MARK_LINE_BAD_STAMP);
    /* the old forms carry no attributes */
    CHECK(parse("d\t7", &m) == MARK_LINE_OK && m.has_attrs == 0);
}

/* category= and payload= (NVTX event attributes): canonical order, the
 * payload kept as written (64-bit integers exact), JSON number grammar only. */
static void test_category_payload(void)
{
    struct mark_line m;
    char buf[MARK_ATTRS_MAX + 1];
    CHECK(parse("d\t7\tpayload=-9007199254740993 category=io_wait tid=3 start=1.2", &m) == MARK_LINE_OK);
    CHECK_STR(m.attrs.category, "io_wait");
    CHECK(m.attrs.has_payload);
    CHECK_STR(m.attrs.payload, "-9007199254740993");
    CHECK(m.attrs.payload_value == -9007199254740992.0);    /* as near as a double gets */
    mark_attrs_format(&m.attrs, buf, sizeof buf);
    CHECK_STR(buf, "start=1.2 tid=3 category=io_wait payload=-9007199254740993");
    const char *good[] = { "0", "-0", "18446744073709551615", "0.1", "1.5e-7", "2E+300", "-1.25e3" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char line[80];
        snprintf(line, sizeof line, "d\t7\tpayload=%s", good[i]);
        CHECK(parse(line, &m) == MARK_LINE_OK && m.attrs.has_payload && strcmp(m.attrs.payload, good[i]) == 0);
    }
    CHECK(parse("d\t7\tpayload=0.1", &m) == MARK_LINE_OK && m.attrs.payload_value == 0.1);
    /* the longest category and payload fit MARK_ATTRS_MAX with everything else */
    char line[600];
    snprintf(line, sizeof line, "d\t7\tstart=%040d tid=1234567890123456789 domain=%064d category=%064d "
             "payload=-1.2345678901234567890123e-300", 1, 2, 3);
    CHECK(parse(line, &m) == MARK_LINE_OK);
    CHECK(mark_attrs_format(&m.attrs, buf, sizeof buf) == strlen(line) - 4);
    const char *bad[] = {
        "d\t7\tpayload=",
        "d\t7\tpayload=1.",                 /* not JSON numbers */
        "d\t7\tpayload=.5",
        "d\t7\tpayload=01",
        "d\t7\tpayload=+1",
        "d\t7\tpayload=0x10",
        "d\t7\tpayload=nan",
        "d\t7\tpayload=inf",
        "d\t7\tpayload=1e",
        "d\t7\tpayload=1e999",              /* not finite */
        "d\t7\tpayload=123456789012345678901234567890123",   /* 33 bytes */
        "d\t7\tpayload=1 payload=2",
        "d\t7\tcategory=",
        "d\t7\tcategory=a\x7f",
        "d\t7\tcategory=a category=b",
        "d\t7\tcategory=12345678901234567890123456789012345678901234567890123456789012345", /* 65 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parse(bad[i], &m) != MARK_LINE_BAD_ATTRS) {
            CHECK(parse(bad[i], &m) == MARK_LINE_BAD_ATTRS);
            fprintf(stderr, "    input #%zu\n", i);
        }
    }
}

static void test_status_strings(void)
{
    CHECK_STR(mark_line_status_str(MARK_LINE_TOO_LONG), "label longer than 256 bytes");
    CHECK_STR(mark_line_status_str(MARK_LINE_CONTROL_CHAR), "control character in label");
    CHECK_STR(mark_line_status_str(MARK_LINE_EMPTY), "empty line");
    CHECK_STR(mark_line_status_str(MARK_LINE_BAD_STAMP),
              "timestamp after the tab is not a positive integer of ns");
    CHECK_STR(mark_line_status_str(MARK_LINE_NO_LABEL), "empty label before the tab");
}

/* Issue 9 item 10: a client's stamp within a day of the recorder's clock,
 * checked without overflow at the extremes. */
static void test_stamp_range(void)
{
    const int64_t day = 86400LL * 1000000000LL, now = 5 * day;
    CHECK(mark_stamp_in_range(now, now));
    CHECK(mark_stamp_in_range(now - day, now));
    CHECK(mark_stamp_in_range(now + day, now));
    CHECK(!mark_stamp_in_range(now - day - 1, now));
    CHECK(!mark_stamp_in_range(now + day + 1, now));
    CHECK(!mark_stamp_in_range(INT64_MAX, now));
    CHECK(!mark_stamp_in_range(1, now));
    CHECK(mark_stamp_in_range(1, 1000));
    CHECK(!mark_stamp_in_range(INT64_MIN, now));
    CHECK(mark_stamp_in_range(INT64_MAX, INT64_MAX - 1));
    CHECK(!mark_stamp_in_range(0 + 1, INT64_MAX));
}

int main(void)
{
    run_test("plain label", test_plain_label);
    run_test("strips spaces and one trailing CR", test_strips_spaces_and_cr);
    run_test("empty lines", test_empty);
    run_test("client-stamped form", test_stamped);
    run_test("bad stamps rejected", test_bad_stamps);
    run_test("stamp without label", test_no_label);
    run_test("256-byte label limit", test_length_limit);
    run_test("control characters rejected", test_control_chars);
    run_test("never reads past len", test_respects_len);
    run_test("range attributes", test_attrs);
    run_test("category and payload attributes", test_category_payload);
    run_test("status strings", test_status_strings);
    run_test("stamp within a day of the recorder's clock", test_stamp_range);
    return check_exit_status();
}
