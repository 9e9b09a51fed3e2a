/* test_nvtx_filter.c — the --nvtx=FILTER syntax: parsing, its errors, and
 * the answers for names, domains and categories (nvtx/nvtx_filter.c). */
#include <string.h>

#include "check.h"
#include "nvtx_filter.h"

/* The whole filter's answer for one event, as the bridge combines it. */
static int pass(const char *filter, const char *domain, const char *name, const char *cat_name,
                const char *cat_number)
{
    struct nvtx_filter f;
    char err[NVTX_FILTER_ERROR_MAX];
    if (nvtx_filter_parse(&f, filter, err, sizeof err) != 0)
        return -1;
    int ok = nvtx_filter_pass(&f, domain, name) && nvtx_filter_pass_category(&f, cat_name, cat_number);
    nvtx_filter_free(&f);
    return ok;
}

static const char *parse_error(const char *filter)
{
    static char err[NVTX_FILTER_ERROR_MAX];
    struct nvtx_filter f;
    if (nvtx_filter_parse(&f, filter, err, sizeof err) == 0) {
        nvtx_filter_free(&f);
        return "(parsed)";
    }
    return err;
}

static void test_empty_passes_all(void)
{
    CHECK(pass(NULL, "", "x", "", "") == 1);
    CHECK(pass("", "d", "x", "decode", "1") == 1);
}

static void test_name_and_domain(void)
{
    CHECK(pass("name=step*", "", "step_3", "", "") == 1);
    CHECK(pass("name=step*", "", "op", "", "") == 0);
    CHECK(pass("name!=aten::*", "", "aten::mm", "", "") == 0);
    CHECK(pass("name!=aten::*", "", "forward", "", "") == 1);
    CHECK(pass("name~^fw,domain=", "", "fwd", "", "") == 1);
    CHECK(pass("name~^fw,domain=", "vllm", "fwd", "", "") == 0);
    CHECK(pass("domain=vllm,domain=megatron", "megatron", "x", "", "") == 1);
}

static void test_category_include(void)
{
    /* by name or by number, glob or regex */
    CHECK(pass("category=decode", "", "x", "decode", "1") == 1);
    CHECK(pass("category=1", "", "x", "decode", "1") == 1);
    CHECK(pass("category=dec*", "", "x", "decode", "1") == 1);
    CHECK(pass("category~^de", "", "x", "decode", "1") == 1);
    CHECK(pass("category=decode", "", "x", "prefill", "2") == 0);
    CHECK(pass("category=decode", "", "x", "2", "2") == 0);
    /* no category: only an include that selects the empty name lets it in */
    CHECK(pass("category=decode", "", "x", "", "") == 0);
    CHECK(pass("category=decode,category=", "", "x", "", "") == 1);
    CHECK(pass("category=decode,category=", "", "x", "decode", "1") == 1);
    CHECK(pass("category=decode,category=", "", "x", "io_wait", "3") == 0);
}

static void test_category_exclude(void)
{
    CHECK(pass("category!=op*", "", "x", "op_fwd", "7") == 0);
    CHECK(pass("category!=7", "", "x", "op_fwd", "7") == 0);
    CHECK(pass("category!=op*", "", "x", "decode", "1") == 1);
    CHECK(pass("category!=op*", "", "x", "", "") == 1);
    CHECK(pass("category!~^op_", "", "x", "op_bwd", "8") == 0);
    /* an exclude wins over an include that also matches */
    CHECK(pass("category=*,category!=op_fwd", "", "x", "op_fwd", "7") == 0);
    CHECK(pass("category=*,category!=op_fwd", "", "x", "decode", "1") == 1);
}

static void test_fields_are_independent(void)
{
    /* a name include does not let in a category the filter excludes, and a
     * category term does not decide names */
    CHECK(pass("name=step,category!=op", "", "step", "op", "4") == 0);
    CHECK(pass("name=step,category!=op", "", "step", "decode", "1") == 1);
    CHECK(pass("name=step,category!=op", "", "aten", "decode", "1") == 0);
    CHECK(pass("domain=vllm,category=decode", "vllm", "x", "decode", "1") == 1);
    CHECK(pass("domain=vllm,category=decode", "", "x", "decode", "1") == 0);

    struct nvtx_filter f;
    char err[NVTX_FILTER_ERROR_MAX];
    CHECK(nvtx_filter_parse(&f, "category=decode", err, sizeof err) == 0);
    CHECK(nvtx_filter_has_category_terms(&f) == 1);
    CHECK(nvtx_filter_has_name_terms(&f) == 0);
    CHECK(nvtx_filter_pass(&f, "", "anything") == 1);   /* names: no terms */
    nvtx_filter_free(&f);
    CHECK(nvtx_filter_parse(&f, "name=x,rate=10", err, sizeof err) == 0);
    CHECK(nvtx_filter_has_category_terms(&f) == 0);
    CHECK(nvtx_filter_pass_category(&f, "decode", "1") == 1);
    CHECK(f.rate == 10);
    nvtx_filter_free(&f);
}

static void test_errors(void)
{
    CHECK_STR(parse_error("category"), "term 1 'category': expected = or ~ after the field");
    CHECK_STR(parse_error("name=a,,b"), "term 2 is empty");
    CHECK_STR(parse_error("colour=red"),
              "term 1 'colour=red': expected name=, name!=, name~, name!~, domain=..., category=..., "
              "or rate=N");
    CHECK(strncmp(parse_error("category~("), "term 1 'category~(': bad regex: ", 32) == 0);
    CHECK_STR(parse_error("rate=0"), "term 1 'rate=0': rate must be 1..999999999 per second");
}

int main(void)
{
    run_test("empty filter passes everything", test_empty_passes_all);
    run_test("name and domain terms", test_name_and_domain);
    run_test("category include by name or number, glob or regex", test_category_include);
    run_test("category exclude", test_category_exclude);
    run_test("names, domains and categories decide independently", test_fields_are_independent);
    run_test("parse errors", test_errors);
    return check_exit_status();
}
