/* svg_writer.c — see svg_writer.h. */
#include <string.h>

#include "svg_writer.h"
#include "utf8.h"

/* XML 1.0 text: markup characters as entities; what XML forbids (controls
 * but tab and newlines, U+FFFE, U+FFFF) and what only hides text (C1
 * controls) become U+FFFD, so a label never makes the SVG invalid. */
static void xml_ascii(FILE *f, unsigned char c)
{
    static const char *const named[128] = {
        ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&apos;",
    };
    if (named[c])
        fputs(named[c], f);
    else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F)
        fputs(UTF8_REPLACEMENT, f);
    else
        fputc(c, f);
}

static int xml_forbidden(const unsigned char *c, int len)
{
    return (len == 3 && c[0] == 0xEF && c[1] == 0xBF && c[2] >= 0xBE) || utf8_is_c1(c, len);
}

void svg_escape(FILE *f, const char *s) { utf8_write_escaped(f, s, xml_ascii, xml_forbidden); }

static void attr(FILE *f, const char *name, const char *value)
{
    if (!value)
        return;
    fprintf(f, " %s=\"", name);
    svg_escape(f, value);
    fputc('"', f);
}

void svg_begin(FILE *f, int width, int height)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\">\n", width, height, width, height);
}

void svg_end(FILE *f) { fputs("</svg>\n", f); }

void svg_group_begin(FILE *f, const char *cls)
{
    fputs("<g", f);
    attr(f, "class", cls);
    fputs(">\n", f);
}

void svg_group_end(FILE *f) { fputs("</g>\n", f); }

void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls, double rotate,
              const char *text)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
    if (anchor && strcmp(anchor, "start") != 0)
        attr(f, "text-anchor", anchor);
    attr(f, "class", cls);
    if (rotate != 0)
        fprintf(f, " transform=\"rotate(%g %.1f %.1f)\"", rotate, x, y);
    fputc('>', f);
    svg_escape(f, text);
    fputs("</text>\n", f);
}

void svg_text_fit(FILE *f, double x, double y, const char *anchor, const char *cls, double width,
                  const char *text)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
    if (anchor && strcmp(anchor, "start") != 0)
        attr(f, "text-anchor", anchor);
    attr(f, "class", cls);
    fprintf(f, " textLength=\"%.1f\" lengthAdjust=\"spacingAndGlyphs\">", width);
    svg_escape(f, text);
    fputs("</text>\n", f);
}

void svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *cls,
              const char *stroke)
{
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", x1, y1, x2, y2);
    attr(f, "class", cls);
    attr(f, "stroke", stroke);
    fputs("/>\n", f);
}

void svg_rect(FILE *f, double x, double y, double w, double h, const char *cls, const char *fill,
              const char *title)
{
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", x, y, w, h);
    attr(f, "class", cls);
    attr(f, "fill", fill);
    if (!title) {
        fputs("/>\n", f);
        return;
    }
    fputs("><title>", f);
    svg_escape(f, title);
    fputs("</title></rect>\n", f);
}

void svg_polyline_begin(FILE *f, const char *cls, const char *stroke)
{
    fputs("<polyline", f);
    attr(f, "class", cls);
    attr(f, "stroke", stroke);
    fputs(" points=\"", f);
}

void svg_polyline_point(FILE *f, double x, double y) { fprintf(f, "%.1f,%.1f ", x, y); }

void svg_polyline_end(FILE *f, const char *title)
{
    if (!title) {
        fputs("\"/>\n", f);
        return;
    }
    fputs("\"><title>", f);
    svg_escape(f, title);
    fputs("</title></polyline>\n", f);
}
