/*
 * sort_doubles.h — one stable ascending sort of doubles for every stage
 * that sorts a handful or a few thousand of them (no NAN among them).
 *
 * Owns: the choice of insertion sort (up to SORT_DOUBLES_SMALL values) or a
 * merge of its own above it, both stable: values that compare equal (0 and
 * -0 among them) keep their order, which is the order glibc's qsort, a
 * merge sort, gives them, so whatever is printed from the sorted values
 * (percentiles, edges) is the same value, sign included. Neither calls a
 * comparison function per comparison, which made qsort the larger cost.
 */
#ifndef FLINCH_SORT_DOUBLES_H
#define FLINCH_SORT_DOUBLES_H

#define SORT_DOUBLES_SMALL 64

/* v[0..n) ascending, stably. Above SORT_DOUBLES_SMALL it needs n doubles
 * of scratch; without them it falls back to qsort (stable on glibc). */
void sort_doubles(double *v, long n);

#endif
