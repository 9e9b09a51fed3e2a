/* diag.c — see diag.h. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "utf8.h"

static const char *prog_name = "flinch";

void diag_set_prog(const char *prog) { prog_name = prog; }
const char *diag_prog(void) { return prog_name; }

size_t diag_escape(const char *s, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(s), o = 0;
    if (cap == 0)
        return 0;
    for (size_t i = 0; i < n && o + 5 < cap;) {
        unsigned char c = (unsigned char)s[i];
        int len = utf8_char_len(s + i, n - i);
        /* C1 controls (U+0080..U+009F) act like ESC on some terminals */
        int c1 = utf8_is_c1((const unsigned char *)s + i, len);
        if (len == 0 || c1 || (len == 1 && (c < 0x20 || c == 0x7F || c == '\\'))) {
            int bytes = c1 ? 2 : 1;
            for (int k = 0; k < bytes && o + 5 < cap; k++) {
                unsigned char b = (unsigned char)s[i + (size_t)k];
                out[o++] = '\\';
                out[o++] = 'x';
                out[o++] = hex[b >> 4];
                out[o++] = hex[b & 15];
            }
            i += (size_t)bytes;
            continue;
        }
        if (o + (size_t)len >= cap)
            break;
        memcpy(out + o, s + i, (size_t)len);
        o += (size_t)len;
        i += (size_t)len;
    }
    out[o] = '\0';
    return o;
}

/* Messages held (diag_hold): the lines, in order, until released or
 * dropped. Only the thread that holds writes while holding. */
static int holding;
static char *held;
static size_t nheld, cap_held;

static void hold_line(const char *line, size_t n)
{
    if (nheld + n > cap_held) {
        size_t cap = cap_held ? cap_held : 1024;
        while (cap < nheld + n)
            cap *= 2;
        char *p = realloc(held, cap);
        if (!p) {                  /* no memory to hold it: say it now */
            fwrite(line, 1, n, stderr);
            return;
        }
        held = p;
        cap_held = cap;
    }
    memcpy(held + nheld, line, n);
    nheld += n;
}

static void emit(const char *kind, const char *fmt, va_list ap)
{
    char line[1024], safe[4 * sizeof line + 8], out[sizeof safe + 256];
    vsnprintf(line, sizeof line, fmt, ap);
    diag_escape(line, safe, sizeof safe);
    int n = snprintf(out, sizeof out, "%s: %s%s\n", prog_name, kind, safe);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof out)
        n = (int)sizeof out - 1;
    if (holding)
        hold_line(out, (size_t)n);
    else  /* One write per message so lines from threads never interleave. */
        fwrite(out, 1, (size_t)n, stderr);
}

void diag_hold(int on) { holding = on; }

void diag_held_release(int print)
{
    if (print && nheld)
        fwrite(held, 1, nheld, stderr);
    free(held);
    held = NULL;
    nheld = cap_held = 0;
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

int diag_bad_option(int ch, char *const argv[])
{
    /* getopt has moved optind past the bad element: a long option is named
     * as written up to '=', a short one (maybe inside a group such as -qx)
     * by its letter. */
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    char name[128];
    if (strncmp(arg, "--", 2) == 0 || optopt <= 0 || optopt > 127)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    else
        snprintf(name, sizeof name, "-%c", optopt);
    if (ch == ':')
        diag_error("option '%s' needs a value (see '%s --help')", name, prog_name);
    else
        diag_error("unknown option '%s' (see '%s --help')", name, prog_name);
    return EXIT_USAGE;
}

/* Repeated warnings (diag_warn_repeat): one slot per (file, format). The
 * kinds are few (a format is a string constant; files are the inputs), so
 * a small table searched in order does; when it is full the last slot
 * takes every new kind, which then share one count. */
#define REPEAT_KINDS 64
struct repeat_kind {
    char file[256];
    const char *fmt;
    long shown, suppressed, last_line;
};
static struct repeat_kind repeat[REPEAT_KINDS];
static int nrepeat, repeat_atexit;
static pthread_mutex_t repeat_lock = PTHREAD_MUTEX_INITIALIZER;

static void repeat_at_exit(void) { diag_repeat_summary(NULL); }

static struct repeat_kind *repeat_find(const char *file, const char *fmt)
{
    for (int i = 0; i < nrepeat; i++)
        if (repeat[i].fmt == fmt && strncmp(repeat[i].file, file, sizeof repeat[i].file - 1) == 0)
            return &repeat[i];
    if (nrepeat == REPEAT_KINDS)
        return &repeat[REPEAT_KINDS - 1];
    struct repeat_kind *k = &repeat[nrepeat++];
    snprintf(k->file, sizeof k->file, "%s", file);
    k->fmt = fmt;
    k->last_line = 0;
    return k;
}

void diag_warn_repeat(const char *file, long line, const char *fmt, ...)
{
    pthread_mutex_lock(&repeat_lock);
    struct repeat_kind *k = repeat_find(file, fmt);
    int print = 0;
    if (line > 0 && line <= k->last_line) {
        /* a second pass over lines already warned about */
    } else if (k->shown < DIAG_REPEAT_SHOWN) {
        k->shown++;
        print = 1;
    } else {
        k->suppressed++;
        if (!repeat_atexit) {
            repeat_atexit = 1;
            atexit(repeat_at_exit);
        }
    }
    if (line > k->last_line)
        k->last_line = line;
    pthread_mutex_unlock(&repeat_lock);
    if (print) {
        va_list ap;
        va_start(ap, fmt);
        emit("warning: ", fmt, ap);
        va_end(ap);
    }
}

void diag_repeat_summary(const char *file)
{
    pthread_mutex_lock(&repeat_lock);
    for (int i = 0; i < nrepeat; i++) {
        struct repeat_kind *k = &repeat[i];
        if (!k->suppressed || (file && strncmp(k->file, file, sizeof k->file - 1) != 0))
            continue;
        diag_warn("%s: %ld more warning%s like this suppressed", k->file, k->suppressed,
                  k->suppressed == 1 ? "" : "s");
        k->suppressed = 0;
        k->shown = 0;
    }
    pthread_mutex_unlock(&repeat_lock);
}
