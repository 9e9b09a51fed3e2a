/*
 * window_texts.h — a window's evidence and confidence reason: written into
 * full-size buffers while the stages that compose them run, then kept
 * sized to fit.
 *
 * Owns: the fitted copies (one allocation per window, struct window.texts).
 *
 * Why: the stages append clause after clause (verdict.c, confidence.c,
 * kernels_window.c, slow_clock.c, ...), so they need room for the longest
 * text (EVIDENCE_MAX, CONFIDENCE_REASON_MAX: 880 bytes); held in every
 * record that room was most of its 1.5 KB, and with 10,000 windows 17 MB
 * of fresh pages, each a page fault, for texts of ~150 bytes.
 *
 * A record starts with both texts "" (window_texts_init). A stage that
 * writes them runs between window_texts_begin, which points them at a
 * scratch holding what they said, and window_texts_keep, which copies them
 * out sized to fit; nothing writes them outside such a span.
 */
#ifndef FLINCH_WINDOW_TEXTS_H
#define FLINCH_WINDOW_TEXTS_H

#include "analysis.h"

struct window_text_scratch {
    char evidence[EVIDENCE_MAX];
    char confidence_reason[CONFIDENCE_REASON_MAX];
};

/* Both texts "" (shared, never written), nothing owned. */
void window_texts_init(struct window *w);
/* Points w's texts at sc, holding what they said. */
void window_texts_begin(struct window_text_scratch *sc, struct window *w);
/* Copies w's texts out of the scratch, sized to fit; 0, or -1 when out of
 * memory (the evidence then says so, the reason is ""). */
int window_texts_keep(struct window *w);
/* Frees what window_texts_keep made; the texts are "" again. */
void window_texts_free(struct window *w);

#endif
