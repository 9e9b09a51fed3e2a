/* windows.c — the pairing rule for start and end MARKs; see windows.h. */
#include <stdlib.h>
#include <string.h>

#include "windows.h"

void pairing_init(struct pairing *p, const char *start_label, const char *end_label)
{
    memset(p, 0, sizeof *p);
    p->start_label = start_label;
    p->end_label = end_label;
}

void pairing_free(struct pairing *p)
{
    free(p->open_id);
    free(p->open_t);
    free(p->closed);
    memset(p, 0, sizeof *p);
}

long pairing_open_count(const struct pairing *p) { return p->nopen; }
const long *pairing_open_ids(const struct pairing *p) { return p->open_id; }

int pairing_on_mark(struct pairing *p, const char *label, int64_t t, long new_id,
                    struct pairing_step *step)
{
    step->closed = p->closed;
    step->nclosed = 0;
    step->opens = 0;
    if (strcmp(label, p->end_label) == 0) {
        if (p->ncap_closed < p->nopen) {
            long *n = realloc(p->closed, sizeof *n * (size_t)p->nopen);
            if (!n)
                return -1;
            p->closed = n;
            p->ncap_closed = p->nopen;
            step->closed = n;
        }
        long kept = 0;
        for (long i = 0; i < p->nopen; i++) {
            if (p->open_t[i] <= t) {
                p->closed[step->nclosed++] = p->open_id[i];
            } else {
                p->open_id[kept] = p->open_id[i];
                p->open_t[kept++] = p->open_t[i];
            }
        }
        p->nopen = kept;
        if (step->nclosed == 0 && strcmp(label, p->start_label) != 0)
            p->unmatched_ends++;
    }
    if (strcmp(label, p->start_label) == 0) {
        if (p->nopen == p->cap) {
            long ncap = p->cap ? p->cap * 2 : 16;
            long *ni = realloc(p->open_id, sizeof *ni * (size_t)ncap);
            if (!ni)
                return -1;
            p->open_id = ni;
            int64_t *nt = realloc(p->open_t, sizeof *nt * (size_t)ncap);
            if (!nt)
                return -1;
            p->open_t = nt;
            p->cap = ncap;
        }
        p->open_id[p->nopen] = new_id;
        p->open_t[p->nopen++] = t;
        step->opens = 1;
    }
    return 0;
}
