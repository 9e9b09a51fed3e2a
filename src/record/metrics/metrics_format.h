/*
 * metrics_format.h — the two exposition formats `flinch record --metrics`
 * speaks, shared by the renderer (metrics_text.h) and the server
 * (metrics_http.h): the Prometheus text format 0.0.4 (--metrics-file, and
 * a scrape that does not ask for OpenMetrics) and OpenMetrics 1.0.0 (a
 * scrape whose Accept header prefers it): counter families named without
 * _total, UNIT lines, flinch_build as an info family, `# EOF` at the end.
 * Samples and values are the same in both.
 */
#ifndef FLINCH_METRICS_FORMAT_H
#define FLINCH_METRICS_FORMAT_H

enum metrics_format { METRICS_TEXT, METRICS_OPENMETRICS, METRICS_FORMATS };

#define METRICS_TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define METRICS_OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

#endif
