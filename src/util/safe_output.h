/*
 * safe_output.h — creating an output file (plot's SVG, export's JSON, any
 * later writer) without following a planted symlink, without replacing
 * anything but a regular file, and never over one of the command's inputs.
 *
 * Owns: the one way a reader command writes its output. A regular output
 * (missing, or an existing regular file) is written to a temporary file
 * created in the same directory (O_EXCL, so never through a symlink), and
 * renamed into place only when it is complete: a failed or interrupted run
 * leaves the old file, or nothing. "-" is standard output; an existing
 * non-regular file (/dev/null, a FIFO, a terminal) is opened directly with
 * O_NOFOLLOW and never replaced; a symlink or a directory is refused. An
 * output that is the same file (st_dev, st_ino) as an input is refused
 * before anything is written.
 *
 *   struct safe_output o;
 *   if (safe_output_open(&o, path, inputs, ninputs, err, sizeof err) != 0) ...
 *   fprintf(o.f, ...);
 *   if (safe_output_commit(&o, err, sizeof err) != 0) ...   (or safe_output_abort)
 */
#ifndef FLINCH_SAFE_OUTPUT_H
#define FLINCH_SAFE_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

struct safe_output {
    FILE *f;                 /* write here */
    const char *path;
    char *tmp_path;          /* the temporary file, NULL when written directly */
    long long held_at;       /* standard output held (safe_output_hold): where it began; -1 */
};

/* 0, or -1 with ERR set ("OUT: ..."). INPUTS: the paths read ("-" = stdin,
 * skipped). */
int safe_output_open(struct safe_output *o, const char *path, const char *const *inputs,
                     int ninputs, char *err, size_t errlen);
/* Flushes, checks for write errors and moves the file into place. 0, or -1
 * with ERR set (the temporary file is removed, the old file kept). */
int safe_output_commit(struct safe_output *o, char *err, size_t errlen);
/* Discards what was written (the old file, if any, stays). */
void safe_output_abort(struct safe_output *o);
/* Whether the output PATH would be one safe_output_hold can take back:
 * a regular file (or none yet: a temporary file is written), or "-" when
 * standard output is a regular file written at its end (> or >>). A pipe,
 * a terminal, /dev/null cannot: what reached them stays. */
int safe_output_can_hold(const char *path);
/* For an output written while its input is still being read (export), that
 * may have to be discarded or written again: a regular file already is
 * (its temporary file); "-" on a regular file is held from where it stands,
 * and abort (or a failed commit) cuts it back there. Right after open. 0,
 * or -1 with ERR set where the output cannot be taken back. */
int safe_output_hold(struct safe_output *o, char *err, size_t errlen);
/* Forgets what was written so far, to write the output again from its
 * start; only for a temporary or held output. 0, or -1 with ERR set. */
int safe_output_restart(struct safe_output *o, char *err, size_t errlen);

#endif
