/*
 * flinch.c — entry point: finds the subcommand in a small table and runs it.
 *
 * "Was the GPU computing, or was everything waiting?" Each subcommand is one
 * step of answering that: record a trace, mark moments in it, analyze the
 * windows between marks, and plot or export the result.
 */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "builtin.h"
#include "diag.h"
#include "region_arena.h"
#include "version.h"

struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    int reads_to_exit;      /* reads its input through once and exits: keep_heap() */
};

static const struct subcommand subcommands[] = {
    { "record",  cmd_record,  "sample GPUs (NVML), host CPU and RAPL into a CSV; take MARKs from a FIFO", 0 },
    { "mark",    cmd_mark,    "drop a MARK into a running recorder's FIFO", 0 },
    { "analyze", cmd_analyze, "duration, energy, utilization and a verdict for windows between MARKs", 1 },
    { "plot",    cmd_plot,    "draw a trace as a self-contained SVG timeline", 1 },
    { "export",  cmd_export,  "convert a trace to Perfetto / Chrome trace-event JSON", 1 },
};

/* For a command that reads a trace through once and exits: glibc gives
 * the top of its heap back to the system whenever 128 KiB of it are free,
 * and the analyzer frees and allocates its per-stream blocks all along, so
 * the same pages were given back and faulted in again: a one-window
 * analysis took 3,000 page faults where 1,380 do (~11 us each on the
 * benchmarks' VMs). Such a command keeps what it frees for its next
 * allocations. The recorder, which runs for hours, keeps glibc's default.
 *
 * Then the heap is grown by HEAP_ADVISED at once (one block just under the
 * mmap threshold, which is raised to it, freed back to the heap's top) and
 * its whole huge pages advised for transparent huge pages: the analyzer's
 * many small allocations (a window's GPU record, texts, segments; the
 * sample store's blocks as pushed) and its larger arrays (the gathered
 * windows) then fault 2 MiB at a time, not 4 KiB, as glibc's own
 * glibc.malloc.hugetlb=1 tunable would, which can only be set before the
 * process starts. The block is only reserved: pages count once touched.
 * 10,000 windows took ~1,000 page faults instead of 4,800, one window ~300
 * instead of 1,384 (peak RSS 13 MiB for 11). */
#define HEAP_ADVISED ((size_t)32 << 20)

/* A sanitizer's build brings its own malloc: glibc's settings do nothing
 * there, and the block would only be poisoned and held in quarantine. */
#if defined(__SANITIZE_ADDRESS__)
#define HEAP_OWN_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_OWN_MALLOC 1
#endif
#endif

static void keep_heap(void)
{
#if defined(__GLIBC__) && !defined(HEAP_OWN_MALLOC)
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, (int)HEAP_ADVISED);   /* glibc's largest */
    void *p = malloc(HEAP_ADVISED - 4096);          /* under it, with malloc's header */
    if (p) {
        advise_huge_pages(p, HEAP_ADVISED - 4096);
        free(p);
    }
#endif
}

static void usage(FILE *out)
{
    fprintf(out,
        "usage: flinch <command> [options]\n"
        "       flinch help <command>\n"
        "       flinch --help | --version\n"
        "\n"
        "Was the GPU computing during that pause, or was everything waiting?\n"
        "\n"
        "commands:\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out,
        "\n"
        "'flinch <command> --help' describes each command; 'flinch help <command>'\n"
        "shows its manual page (also 'flinch help trace' and 'flinch help methods').\n"
        "\n"
        "exit status: 0 ok; 1 failed while running (write error, no mark reader);\n"
        "2 bad usage or input, or could not start (no NVML driver, no GPU, bad CSV);\n"
        "3 a GPU fell off the bus during recording (rows written are kept).\n"
        "'flinch record -- CMD' exits with CMD's status.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0 && argc > 2) {
        diag_set_prog("flinch help");
        return cmd_help(argc - 1, argv + 1);
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("flinch %s\n", FLINCH_VERSION);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++) {
        if (strcmp(name, subcommands[i].name) == 0) {
            static char prog[64];
            snprintf(prog, sizeof prog, "flinch %s", name);
            diag_set_prog(prog);
            if (subcommands[i].reads_to_exit)
                keep_heap();
            return subcommands[i].run(argc - 1, argv + 1);
        }
    }
    diag_error("unknown command '%s' (see 'flinch --help')", name);
    return EXIT_USAGE;
}
