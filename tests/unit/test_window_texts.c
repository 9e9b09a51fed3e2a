/* test_window_texts.c — a window's evidence and confidence reason
 * (window_texts.h): "" until written, full room while a stage writes them,
 * then copied out sized to fit, and again writable from what they said. */
#include <stdint.h>

#include "check.h"
#include "window_texts.h"

static void test_fresh_record(void)
{
    struct window w;
    memset(&w, 0, sizeof w);
    window_texts_init(&w);
    CHECK_STR(w.evidence, "");
    CHECK_STR(w.confidence_reason, "");
    CHECK(w.texts == NULL);
    window_texts_free(&w);               /* nothing owned: still "" */
    CHECK_STR(w.evidence, "");
    CHECK(w.texts == NULL);
}

static void test_written_then_kept(void)
{
    struct window w;
    struct window_text_scratch sc;
    memset(&w, 0, sizeof w);
    window_texts_init(&w);
    window_texts_begin(&sc, &w);
    CHECK(w.evidence == sc.evidence && w.confidence_reason == sc.confidence_reason);
    /* the whole room is there while the stage writes */
    memset(w.evidence, 'e', EVIDENCE_MAX - 1);
    w.evidence[EVIDENCE_MAX - 1] = '\0';
    snprintf(w.confidence_reason, CONFIDENCE_REASON_MAX, "edges +-30 ms");
    CHECK(window_texts_keep(&w) == 0);
    CHECK(w.evidence == w.texts);
    CHECK(w.confidence_reason == w.texts + EVIDENCE_MAX);   /* right after, sized to fit */
    CHECK(strlen(w.evidence) == EVIDENCE_MAX - 1 && w.evidence[0] == 'e');
    CHECK_STR(w.confidence_reason, "edges +-30 ms");
    memset(&sc, 'x', sizeof sc);        /* the scratch is no longer theirs */
    CHECK_STR(w.confidence_reason, "edges +-30 ms");
    window_texts_free(&w);
    CHECK_STR(w.evidence, "");
    CHECK(w.texts == NULL);
}

/* A stage run again (several hosts' windows are judged twice) starts from
 * what the texts said, and a record kept twice holds one allocation. */
static void test_begin_again(void)
{
    struct window w;
    struct window_text_scratch sc, sc2;
    memset(&w, 0, sizeof w);
    window_texts_init(&w);
    window_texts_begin(&sc, &w);
    snprintf(w.evidence, EVIDENCE_MAX, "100%% compute (724 ms)");
    CHECK(window_texts_keep(&w) == 0);
    window_texts_begin(&sc2, &w);
    CHECK(w.texts == NULL && w.evidence == sc2.evidence);
    CHECK_STR(w.evidence, "100% compute (724 ms)");
    CHECK_STR(w.confidence_reason, "");
    size_t len = strlen(w.evidence);
    snprintf(w.evidence + len, EVIDENCE_MAX - len, "; cpu 3%%");
    window_texts_begin(&sc2, &w);        /* begun twice on the same scratch: kept as is */
    CHECK_STR(w.evidence, "100% compute (724 ms); cpu 3%");
    CHECK(window_texts_keep(&w) == 0);
    CHECK(window_texts_keep(&w) == 0);   /* the first copy is freed (LeakSanitizer) */
    CHECK_STR(w.evidence, "100% compute (724 ms); cpu 3%");
    window_texts_free(&w);
}

/* The record is smaller by the texts' room: what made 10,000 windows cost
 * 17 MB of fresh pages. */
static void test_record_size(void)
{
    CHECK(sizeof(struct window) + EVIDENCE_MAX + CONFIDENCE_REASON_MAX
          >= 2 * sizeof(struct window));
}

int main(void)
{
    run_test("window texts: \"\" in a fresh record", test_fresh_record);
    run_test("window texts: full room while written, then sized to fit", test_written_then_kept);
    run_test("window texts: written again from what they said", test_begin_again);
    run_test("window texts: out of the record", test_record_size);
    return check_exit_status();
}
