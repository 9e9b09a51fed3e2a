/*
 * metrics_file.h — `--metrics-file PATH`: the exposition text written for
 * node_exporter's textfile collector, replaced atomically.
 *
 * Owns: the safe replace. The text goes to a new temporary file in PATH's
 * directory (O_EXCL | O_NOFOLLOW, so nothing existing is written through),
 * gets mode 0644 with fchmod on its descriptor (the collector runs as
 * another user), and is renamed over PATH, so a reader sees the old file
 * or the new one, never a part. PATH itself must be absent or a regular
 * file (checked with lstat: a symlink is refused, not followed), in a
 * directory that exists and may be written (checked at the start).
 */
#ifndef FLINCH_METRICS_FILE_H
#define FLINCH_METRICS_FILE_H

#include <stddef.h>

/* Checks PATH before recording starts. 0, or -1 after one error line. */
int metrics_file_check(const char *path);
/* Replaces PATH with text. 0, or -1 with errno set (nothing replaced). */
int metrics_file_write(const char *path, const char *text, size_t len);
/* 1 when the latest metrics_file_write failed (the final one, once the
 * recording is over: the file does not hold its last state). */
int metrics_file_last_failed(void);

#endif
