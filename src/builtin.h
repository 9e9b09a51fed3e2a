/*
 * builtin.h — the subcommands. Each lives in src/builtin/NAME.c, takes the
 * arguments after its name (argv[0] is "NAME"), and returns an exit code
 * from diag.h. Shared machinery lives in the src/ files beside them.
 */
#ifndef FLINCH_BUILTIN_H
#define FLINCH_BUILTIN_H

int cmd_record(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_mark(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_help(int argc, char **argv);   /* flinch help COMMAND: its man page */

#endif
