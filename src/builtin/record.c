/* builtin/record.c — placeholder until the subcommand lands. */
#include "builtin.h"
#include "diag.h"

int cmd_record(int argc, char **argv)
{
    (void)argc; (void)argv;
    diag_error("not implemented yet");
    return EXIT_USAGE;
}
