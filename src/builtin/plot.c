/* builtin/plot.c — placeholder until the subcommand lands. */
#include "builtin.h"
#include "diag.h"

int cmd_plot(int argc, char **argv)
{
    (void)argc; (void)argv;
    diag_error("not implemented yet");
    return EXIT_USAGE;
}
