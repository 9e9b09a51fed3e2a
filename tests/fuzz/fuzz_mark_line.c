/*
 * fuzz_mark_line.c — libFuzzer target for mark_line_parse (issue 6).
 *
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -Isrc/trace tests/fuzz/fuzz_mark_line.c src/trace/mark_line.c -o build-fuzz/fuzz_mark_line
 *   build-fuzz/fuzz_mark_line -max_total_time=60 tests/fuzz/corpus/mark_line
 *
 * Besides memory errors it checks the parser's promises: an accepted label
 * is 1..MARK_LABEL_MAX bytes, NUL-terminated, free of control characters
 * and of surrounding spaces; a stamp is positive; a rejected line leaves
 * the label empty and no stamp; accepted range attributes written in
 * canonical form (mark_attrs_format, the trace's mark_attrs cell) parse
 * back to the same attributes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mark_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mark_line m;
    /* a copy of exactly size bytes, so ASan catches any read past len */
    char *line = malloc(size ? size : 1);
    if (!line)
        return 0;
    memcpy(line, data, size);
    enum mark_line_status st = mark_line_parse(line, size, &m);
    size_t len = strnlen(m.label, sizeof m.label);
    if (len == sizeof m.label)
        abort();                        /* not NUL-terminated */
    if (st == MARK_LINE_OK) {
        if (len == 0 || len > MARK_LABEL_MAX)
            abort();
        if (m.label[0] == ' ' || m.label[len - 1] == ' ')
            abort();
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)m.label[i];
            if (c < 0x20 || c == 0x7f)
                abort();
        }
        if (m.has_stamp ? m.stamp_ns <= 0 : m.stamp_ns != 0)
            abort();
        if (m.has_attrs && !m.has_stamp)
            abort();
        char text[MARK_ATTRS_MAX + 1];
        size_t tl = mark_attrs_format(&m.attrs, text, sizeof text);
        struct mark_attrs back;
        if (tl > 0) {
            if (mark_attrs_parse(text, tl, &back) != 0 || back.edge != m.attrs.edge ||
                strcmp(back.range_id, m.attrs.range_id) != 0 || back.has_tid != m.attrs.has_tid ||
                back.tid != m.attrs.tid || strcmp(back.domain, m.attrs.domain) != 0)
                abort();
        }
    } else if (len != 0 || m.has_stamp || m.stamp_ns != 0 || m.has_attrs) {
        abort();
    }
    if (mark_line_status_str(st) == NULL)
        abort();
    free(line);
    return 0;
}
