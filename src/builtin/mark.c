/*
 * builtin/mark.c — `flinch mark LABEL`: one MARK into a running recorder.
 *
 * The mark is stamped here, with CLOCK_MONOTONIC, and sent in the
 * client-stamped form "LABEL<TAB>T_MONO_NS", so its time in the trace is
 * when this command ran, not when the recorder got round to reading it.
 * The label is checked with the recorder's own parser first, so a mark the
 * recorder would drop is refused here with the reason. Sending is
 * include/flinch_mark.h's job (non-blocking open, one atomic write, no
 * SIGPIPE, the default path's rules: no symbolic link, no other user's
 * FIFO); this file only maps its errno to messages and exit codes.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "clock.h"
#include "diag.h"
#include "flinch_mark.h"
#include "mark_line.h"

static void mark_usage(FILE *out)
{
    fprintf(out,
        "usage: flinch mark LABEL [--fifo PATH] [--at-ns NS]\n"
        "\n"
        "Writes one MARK to a running 'flinch record --marks-fifo PATH' (or to the\n"
        "command 'flinch record -- CMD' wraps), stamped with CLOCK_MONOTONIC now.\n"
        "\n"
        "options:\n"
        "  --fifo PATH   the recorder's FIFO (default: $FLINCH_MARKS, else /tmp/flinch_marks)\n"
        "  --at-ns NS    stamp the mark at NS (CLOCK_MONOTONIC ns, e.g. Python's\n"
        "                time.monotonic_ns()) instead of now; within a day of now\n"
        "  -h, --help    this help\n"
        "\n"
        "LABEL: 1 to 256 bytes after surrounding spaces are dropped, no control\n"
        "characters (tab, newline, bytes below 0x20, 0x7f).\n"
        "\n"
        "Never waits for a recorder: exit 1 at once when none is listening or\n"
        "when its FIFO is full (the recorder stopped reading).\n"
        "The default path is refused when it is a symbolic link or a FIFO owned\n"
        "by another user (not root); --fifo and $FLINCH_MARKS are used as given.\n"
        "exit status: 0 written; 1 no recorder listening, FIFO missing or full,\n"
        "write failed; 2 bad label, bad option, PATH is not a FIFO, or the\n"
        "default path refused.\n");
}

/*
 * Builds "LABEL<TAB>STAMP" and runs it through mark_line_parse, exactly as
 * the recorder will; on success out holds the stripped label and stamp.
 */
static int check_mark(const char *label, const char *stamp_text, struct mark_line *out)
{
    char line[MARK_LABEL_MAX + 64];
    size_t label_len = strlen(label);

    if (strchr(label, '\t')) {
        diag_error("bad label: %s", mark_line_status_str(MARK_LINE_CONTROL_CHAR));
        return -1;
    }
    if (label_len > sizeof line - 32) {
        diag_error("bad label: %s", mark_line_status_str(MARK_LINE_TOO_LONG));
        return -1;
    }
    int n = snprintf(line, sizeof line, "%s\t%s", label, stamp_text);
    enum mark_line_status status = mark_line_parse(line, (size_t)n, out);
    if (status == MARK_LINE_BAD_STAMP) {
        diag_error("--at-ns '%s': %s", stamp_text, mark_line_status_str(status));
        return -1;
    }
    if (status == MARK_LINE_NO_LABEL) {
        diag_error("bad label: the label is empty");
        return -1;
    }
    if (status != MARK_LINE_OK) {
        diag_error("bad label: %s", mark_line_status_str(status));
        return -1;
    }
    return 0;
}

/*
 * The default path was refused (ELOOP: a symbolic link; EPERM: another
 * user's FIFO): one line saying which and how to use it anyway. The owner
 * is looked up again for the message only.
 */
static void refuse_default(const char *fifo, int why)
{
    struct stat st;
    if (why == ELOOP)
        diag_error("%s is a symbolic link; not followed at the default path "
                   "(use --fifo PATH or FLINCH_MARKS to name the FIFO)", fifo);
    else if (lstat(fifo, &st) == 0)
        diag_error("%s is owned by uid %lu, neither you nor root; refused at the default path "
                   "(use --fifo PATH or FLINCH_MARKS to name the FIFO)", fifo,
                   (unsigned long)st.st_uid);
    else
        diag_error("%s is owned by another user, neither you nor root; refused at the default "
                   "path (use --fifo PATH or FLINCH_MARKS to name the FIFO)", fifo);
}

int cmd_mark(int argc, char **argv)
{
    static const struct option options[] = {
        { "fifo",  required_argument, NULL, 'f' },
        { "at-ns", required_argument, NULL, 'a' },
        { "help",  no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *fifo = NULL, *at_ns = NULL;
    int opt;

    optind = 1;
    while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        switch (opt) {
        case 'f': fifo = optarg; break;
        case 'a': at_ns = optarg; break;
        case 'h': mark_usage(stdout); return EXIT_OK;
        default:  return diag_bad_option(opt, argv);
        }
    }
    if (optind != argc - 1) {
        diag_error(optind == argc ? "missing LABEL (see 'flinch mark --help')"
                                  : "one LABEL only; quote labels with spaces");
        return EXIT_USAGE;
    }
    int default_rules = 0;
    if (!fifo) {
        fifo = flinch_mark_fifo_path();
        default_rules = flinch_mark_fifo_is_default();
    }
    if (at_ns && (at_ns[0] == '\0' || strlen(at_ns) > 24)) {
        diag_error("--at-ns '%s': %s", at_ns, mark_line_status_str(MARK_LINE_BAD_STAMP));
        return EXIT_USAGE;
    }

    char now_text[24];
    snprintf(now_text, sizeof now_text, "%lld", (long long)mono_ns());
    struct mark_line mark;
    if (check_mark(argv[optind], at_ns ? at_ns : now_text, &mark) != 0)
        return EXIT_USAGE;
    if (!mark_stamp_in_range(mark.stamp_ns, mono_ns())) {
        diag_error("--at-ns %s: more than a day from now (CLOCK_MONOTONIC is %s); "
                   "the recorder would reject it", at_ns, now_text);
        return EXIT_USAGE;
    }

    if (flinch_mark_send(fifo, default_rules, mark.label, (long long)mark.stamp_ns) == 0)
        return EXIT_OK;
    if (default_rules && (errno == ELOOP || errno == EPERM)) {
        refuse_default(fifo, errno);
        return EXIT_USAGE;
    }
    switch (errno) {
    case ENXIO:
        diag_error("no recorder is listening on %s", fifo);
        return EXIT_RUNTIME;
    case ENOENT:
        diag_error("%s does not exist (is flinch record --marks-fifo %s running?)", fifo, fifo);
        return EXIT_RUNTIME;
    case ENOTSUP:
        diag_error("%s is not a FIFO", fifo);
        return EXIT_USAGE;
    case EAGAIN:
        diag_error("%s is full: the recorder holds it but is not reading (stopped?); "
                   "mark not written", fifo);
        return EXIT_RUNTIME;
    case EPIPE:
        diag_error("the recorder on %s closed it before the mark was written", fifo);
        return EXIT_RUNTIME;
    default:
        diag_error("%s: %s", fifo, strerror(errno));
        return EXIT_RUNTIME;
    }
}
