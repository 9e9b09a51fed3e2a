/* test_csv_split_portable.c — test_csv_split.c on the reader's eight-byte
 * way of finding commas (CSV_SPLIT_PORTABLE), which x86-64 builds do not
 * otherwise use: this reader is compiled in, in place of the library's. */
#define CSV_SPLIT_PORTABLE 1
#include "../../src/trace/csv_reader.c"
#include "test_csv_split.c"
