/*
 * help.c — `flinch help TOPIC`: shows a command's manual page (or the trace
 * format's, or the methods'), falling back to the command's usage where
 * man(1) or the page is missing.
 *
 * The page is looked for beside the binary first, so that the pages of the
 * flinch being run are shown, not whichever another install put on MANPATH:
 * BINDIR/../share/man/manS/PAGE.S (after `make install`), then
 * BINDIR/../man/PAGE.S (a build folder of the source tree: build/flinch
 * next to man/). Only when neither exists is man(1) asked for the page by
 * name.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "diag.h"

struct help_topic {
    const char *name;     /* what the user types after `flinch help` */
    const char *page;     /* the manual page's name */
    char section;         /* its section */
    int (*usage)(int argc, char **argv);   /* the command's own --help, or NULL */
};

static const struct help_topic topics[] = {
    { "flinch",  "flinch",         '1', NULL },
    { "record",  "flinch-record",  '1', cmd_record },
    { "mark",    "flinch-mark",    '1', cmd_mark },
    { "analyze", "flinch-analyze", '1', cmd_analyze },
    { "plot",    "flinch-plot",    '1', cmd_plot },
    { "export",  "flinch-export",  '1', cmd_export },
    { "trace",   "flinch-trace",   '5', NULL },
    { "methods", "flinch-methods", '7', NULL },
};

/* The page's file beside the running binary, or 0 when there is none. */
static int find_page_file(const struct help_topic *t, char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    int len = snprintf(out, size, "%s/../share/man/man%c/%s.%c", exe, t->section, t->page, t->section);
    if (len > 0 && (size_t)len < size && access(out, R_OK) == 0)
        return 1;
    len = snprintf(out, size, "%s/../man/%s.%c", exe, t->page, t->section);
    if (len > 0 && (size_t)len < size && access(out, R_OK) == 0)
        return 1;
    return 0;
}

/* Runs man(1) on the page; returns man's exit status, or -1 when man
 * could not be run at all. */
static int run_man(const struct help_topic *t)
{
    char file[PATH_MAX];
    char section[2] = { t->section, '\0' };
    int have_file = find_page_file(t, file, sizeof file);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (have_file)
            execlp("man", "man", "-l", file, (char *)NULL);
        else
            execlp("man", "man", section, t->page, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 127)
        return -1;
    return WEXITSTATUS(status);
}

int cmd_help(int argc, char **argv)
{
    if (argc != 2) {
        diag_error("usage: flinch help COMMAND (record, mark, analyze, plot, export; "
                   "or trace, methods, flinch)");
        return EXIT_USAGE;
    }
    const struct help_topic *t = NULL;
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
        if (strcmp(argv[1], topics[i].name) == 0)
            t = &topics[i];
    if (!t) {
        diag_error("no help on '%s': try record, mark, analyze, plot, export, trace, methods",
                   argv[1]);
        return EXIT_USAGE;
    }
    if (run_man(t) == 0)
        return EXIT_OK;
    if (t->usage) {
        char *help_argv[] = { (char *)t->name, (char *)"--help", NULL };
        return t->usage(2, help_argv);
    }
    diag_error("cannot show %s(%c): man(1) or the page is missing (the page's source is "
               "man/%s.%c in flinch's source tree)", t->page, t->section, t->page, t->section);
    return EXIT_RUNTIME;
}
