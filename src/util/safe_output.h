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

#endif
