/* window_texts.c — see window_texts.h. */
#include <stdlib.h>
#include <string.h>

#include "window_texts.h"

/* The text of a record no stage has written, and what stands for texts
 * that could not be kept: never written through. */
static char no_text[1];
static char lost_text[] = "out of memory: this window's evidence was lost";

void window_texts_init(struct window *w)
{
    w->texts = NULL;
    w->evidence = no_text;
    w->confidence_reason = no_text;
}

void window_texts_begin(struct window_text_scratch *sc, struct window *w)
{
    /* the texts may already point into sc (a stage run twice): move, not copy */
    memmove(sc->evidence, w->evidence, strlen(w->evidence) + 1);
    memmove(sc->confidence_reason, w->confidence_reason, strlen(w->confidence_reason) + 1);
    window_texts_free(w);
    w->evidence = sc->evidence;
    w->confidence_reason = sc->confidence_reason;
}

int window_texts_keep(struct window *w)
{
    size_t ne = strlen(w->evidence) + 1, nr = strlen(w->confidence_reason) + 1;
    char *t = malloc(ne + nr);
    if (!t) {
        window_texts_free(w);
        w->evidence = lost_text;
        return -1;
    }
    memcpy(t, w->evidence, ne);
    memcpy(t + ne, w->confidence_reason, nr);
    free(w->texts);
    w->texts = t;
    w->evidence = t;
    w->confidence_reason = t + ne;
    return 0;
}

void window_texts_free(struct window *w)
{
    free(w->texts);
    window_texts_init(w);
}
