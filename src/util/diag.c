/* diag.c — see diag.h. */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

static const char *prog_name = "flinch";

void diag_set_prog(const char *prog) { prog_name = prog; }
const char *diag_prog(void) { return prog_name; }

static void emit(const char *kind, const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    /* One write per message so lines from threads never interleave. */
    fprintf(stderr, "%s: %s%s\n", prog_name, kind, line);
}

void diag_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("", fmt, ap);
    va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("warning: ", fmt, ap);
    va_end(ap);
}
