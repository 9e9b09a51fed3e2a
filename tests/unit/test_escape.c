/* test_escape.c — JSON and SVG/XML escaping, UTF-8 validity. */
#include <stdlib.h>

#include "check.h"
#include "json_escape.h"
#include "svg_writer.h"
#include "utf8.h"

static char *json(const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    json_write_string(f, s);
    fclose(f);
    return buf;
}

static char *xml(const char *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    svg_escape(f, s);
    fclose(f);
    return buf;
}

#define JSON_IS(in, want) do { char *g = json(in); CHECK_STR(g, want); free(g); } while (0)
#define XML_IS(in, want) do { char *g = xml(in); CHECK_STR(g, want); free(g); } while (0)

static void json_strings(void)
{
    JSON_IS("infer_start", "\"infer_start\"");
    JSON_IS("a\"b\\c", "\"a\\\"b\\\\c\"");
    JSON_IS("tab\there\nnl\r\b\f", "\"tab\\there\\nnl\\r\\b\\f\"");
    JSON_IS("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
    JSON_IS("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x9a\x80", "\"caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x9a\x80\"");
    JSON_IS("bad\xff" "end", "\"bad\xef\xbf\xbd" "end\"");
    JSON_IS("cut\xe2\x86", "\"cut\xef\xbf\xbd\xef\xbf\xbd\"");
    JSON_IS("</script>", "\"</script>\"");
    JSON_IS("", "\"\"");
}

static void xml_text(void)
{
    XML_IS("a<b&\"c\"", "a&lt;b&amp;&quot;c&quot;");
    XML_IS("it's > 0", "it&apos;s &gt; 0");
    XML_IS("x\x01y", "x\xef\xbf\xbdy");          /* XML 1.0 forbids U+0001 */
    XML_IS("t\tn\n", "t\tn\n");
    XML_IS("\xc3\xa9\xc0\xaf", "\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");  /* overlong '/' */
    /* issue 9: valid UTF-8 that XML 1.0 forbids made the whole SVG invalid */
    XML_IS("a\xef\xbf\xbe" "b\xef\xbf\xbf" "c", "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c");  /* U+FFFE, U+FFFF */
    XML_IS("\xc2\x9b" "31m", "\xef\xbf\xbd" "31m");                           /* C1 CSI */
    XML_IS("\xef\xbf\xbd\xef\xbf\xbc\xc2\xa0", "\xef\xbf\xbd\xef\xbf\xbc\xc2\xa0"); /* allowed */
}

static void utf8(void)
{
    CHECK(utf8_char_len("a", 1) == 1);
    CHECK(utf8_char_len("\xc3\xa9", 2) == 2);
    CHECK(utf8_char_len("\xc3\xa9", 1) == 0);
    CHECK(utf8_char_len("\xed\xa0\x80", 3) == 0);   /* surrogate */
    CHECK(utf8_char_len("\xf4\x90\x80\x80", 4) == 0); /* > U+10FFFF */
    CHECK(utf8_char_len("\xe0\x80\xaf", 3) == 0);   /* overlong */
    CHECK(utf8_char_len("\xf0\x9f\x9a\x80", 4) == 4);
    CHECK(utf8_char_len("\x80", 1) == 0);
}

int main(void)
{
    run_test("JSON string escaping", json_strings);
    run_test("XML text escaping", xml_text);
    run_test("UTF-8 character lengths", utf8);
    return check_exit_status();
}
