/*
 * live_counts.c — see live_counts.h. Only the cells it needs are looked
 * at: the row type, the tick and the arrival time, all before the first
 * free-text cell that could be long, but after the label, which may be
 * quoted and hold commas and doubled quotes.
 */
#include <stdlib.h>
#include <string.h>

#include "live_counts.h"
#include "trace_schema.h"

void live_counts_init(struct live_counts *c)
{
    memset(c, 0, sizeof *c);
    c->last_tick = -1;
}

/* The cells of row up to column `upto`: start and length of each, quotes
 * kept (a quoted cell is only ever the label here). The number of cells
 * found. */
static int split_cells(const char *row, size_t len, int upto, const char **cell, size_t *clen)
{
    size_t i = 0;
    int n = 0;
    while (n <= upto && i <= len) {
        size_t start = i;
        if (i < len && row[i] == '"') {
            for (i++; i < len; i++)
                if (row[i] == '"') {
                    if (i + 1 < len && row[i + 1] == '"')
                        i++;
                    else {
                        i++;
                        break;
                    }
                }
        }
        while (i < len && row[i] != ',' && row[i] != '\n')
            i++;
        cell[n] = row + start;
        clen[n] = i - start;
        n++;
        if (i >= len || row[i] == '\n')
            break;
        i++;                                    /* the comma */
    }
    return n;
}

static int cell_is(const char *cell, size_t len, const char *word)
{
    return len == strlen(word) && memcmp(cell, word, len) == 0;
}

void live_counts_row(struct live_counts *c, const char *row, size_t len)
{
    const char *cell[COL_ARRIVAL_MONO_NS + 1];
    size_t clen[COL_ARRIVAL_MONO_NS + 1];
    int n = split_cells(row, len, COL_ARRIVAL_MONO_NS, cell, clen);
    if (n <= COL_ROW_TYPE)
        return;
    if (cell_is(cell[COL_ROW_TYPE], clen[COL_ROW_TYPE], "MARK")) {
        if (n > COL_ARRIVAL_MONO_NS && clen[COL_ARRIVAL_MONO_NS] > 0)
            __atomic_store_n(&c->marks, c->marks + 1, __ATOMIC_RELAXED);
        return;
    }
    if (!cell_is(cell[COL_ROW_TYPE], clen[COL_ROW_TYPE], "SAMPLE"))
        return;
    __atomic_store_n(&c->samples, c->samples + 1, __ATOMIC_RELAXED);
    if (n <= COL_TICK || clen[COL_TICK] == 0 || clen[COL_TICK] > 20)
        return;
    char num[24];
    memcpy(num, cell[COL_TICK], clen[COL_TICK]);
    num[clen[COL_TICK]] = '\0';
    char *end;
    long long t = strtoll(num, &end, 10);
    if (*end || t < 0)
        return;
    if (t > c->last_tick + 1)
        __atomic_store_n(&c->ticks_skipped, c->ticks_skipped + (t - c->last_tick - 1),
                         __ATOMIC_RELAXED);
    if (t > c->last_tick)
        __atomic_store_n(&c->last_tick, t, __ATOMIC_RELAXED);
}

void live_counts_load(const struct live_counts *c, struct live_counts *out)
{
    out->samples = __atomic_load_n(&c->samples, __ATOMIC_RELAXED);
    out->marks = __atomic_load_n(&c->marks, __ATOMIC_RELAXED);
    out->ticks_skipped = __atomic_load_n(&c->ticks_skipped, __ATOMIC_RELAXED);
    out->last_tick = __atomic_load_n(&c->last_tick, __ATOMIC_RELAXED);
}
