/*
 * svg_writer.h — the SVG elements flinch plot draws, written straight to a
 * FILE.
 *
 * Owns: XML escaping of text and attribute values (& < > " ' as entities;
 * control characters XML 1.0 forbids and bytes that are not valid UTF-8
 * become U+FFFD, so any MARK label yields a well-formed file) and the
 * spelling of each element. Coordinates are written with one decimal: a
 * tenth of a pixel is below what a screen shows, and it keeps a day-long
 * plot small. Class names refer to the <style> block svg_plot.c writes.
 */
#ifndef FLINCH_SVG_WRITER_H
#define FLINCH_SVG_WRITER_H

#include <stdio.h>

/* Writes S escaped for XML text or a double-quoted attribute value: markup
 * characters as entities, and every byte or character XML 1.0 does not
 * allow (C0 controls but tab/LF/CR, DEL, U+FFFE, U+FFFF, bytes that are not
 * UTF-8; also C1 controls) as U+FFFD, so any label gives a valid SVG. */
void svg_escape(FILE *f, const char *s);

/* The root element (with xmlns, width, height, viewBox) and its end. */
void svg_begin(FILE *f, int width, int height);
void svg_end(FILE *f);

/* <g class="CLS"> ... </g>; CLS may be NULL. */
void svg_group_begin(FILE *f, const char *cls);
void svg_group_end(FILE *f);

/* <text> with text-anchor ANCHOR ("start", "middle", "end") and class CLS
 * (either may be NULL). ROTATE degrees about (x, y) when non-zero. */
void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, double rotate,
              const char *text);
/* The same, horizontal, drawn exactly WIDTH px wide (textLength): a label
 * whose room was measured from an average glyph width can never overprint
 * its neighbour or run past the edge, whatever the font. */
void svg_text_fit(FILE *f, double x, double y, const char *anchor, const char *cls, double width,
                  const char *text);

void svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *cls,
              const char *stroke);

/* A rectangle; FILL may be NULL (the class decides). When TITLE is not NULL
 * the rectangle gets a <title> child: the tooltip browsers show. */
void svg_rect(FILE *f, double x, double y, double w, double h, const char *cls, const char *fill,
              const char *title);

/* A polyline point by point: begin, any number of points, end. TITLE (may
 * be NULL) becomes its <title>: the series' name as a tooltip. */
void svg_polyline_begin(FILE *f, const char *cls, const char *stroke);
void svg_polyline_point(FILE *f, double x, double y);
void svg_polyline_end(FILE *f, const char *title);

#endif
