/*
 * scenario_internal.h — what the scenario parser's files share: the
 * parser's state and its messages (scenario.c), and the `at` line
 * (scenario_at.c). Private to the scenario parser.
 */
#ifndef FLINCH_SIM_SCENARIO_INTERNAL_H
#define FLINCH_SIM_SCENARIO_INTERNAL_H

#include "scenario.h"

#pragma GCC visibility push(hidden)

/* Parser state: where we are, for messages, and the GPU reference that
 * must be checked against `gpus` once the whole file is read. */
struct parser {
    struct sim_scenario *sc;
    const char *file;
    int line;
    char *err;
    size_t errlen;
    long long last_at_ms, max_at_ms;
    int max_at_line;
    unsigned max_gpu;
    int max_gpu_line;
};

/* "FILE:LINE: message" into p->err; returns -1. */
__attribute__((format(printf, 2, 3)))
int scenario_fail(struct parser *p, const char *fmt, ...);
/* Whole decimal integer in [min, max]; 0 or -1. */
int scenario_parse_ll(const char *s, long long min, long long max, long long *out);
/* The same, failing with a message naming what. */
int scenario_int_arg(struct parser *p, const char *what, const char *s,
                     long long min, long long max, long long *out);
/* A GPU index, remembered for the check against `gpus` at the end. */
int scenario_note_gpu(struct parser *p, const char *what, const char *s, unsigned *gpu);
/* at T [gpu G|all] key=value... (scenario_at.c) */
int scenario_parse_at(struct parser *p, char **tok, int ntok);

#pragma GCC visibility pop

#endif
