/*
 * path_identity.h — whether two paths name the same file, however they are
 * spelled: `t.csv`, `./t.csv`, `/abs/t.csv`, `dir/../t.csv`, a symlink to
 * it, a hard link of it.
 *
 * Owns: the one comparison every command makes between its outputs and its
 * inputs and other outputs (record: the trace, its .threads file, the
 * metrics file, the marks FIFO; plot and export: -o against each trace and
 * its .threads file), so that none writes over another.
 *
 * A path that exists is its file's (st_dev, st_ino) (symlinks followed, as
 * an open would). A path that does not exist yet is the (st_dev, st_ino) of
 * the directory it would be created in (its parent, resolved by the kernel:
 * symlinks and `..` included) plus its final name. A dangling symlink is
 * the path it points to, resolved the same way.
 */
#ifndef FLINCH_PATH_IDENTITY_H
#define FLINCH_PATH_IDENTITY_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

struct path_identity {
    dev_t dev;
    ino_t ino;
    char name[NAME_MAX + 1];   /* "" for a file that exists; else the name it would get */
};

/* 0, or -1 when PATH cannot be resolved (empty, its directory missing, a
 * symlink loop): such a path cannot be written either, and is taken to be
 * the same as nothing. */
int path_identity_get(const char *path, struct path_identity *id);
int path_identity_equal(const struct path_identity *a, const struct path_identity *b);
/* 1 when A and B name the same file (both resolved), else 0. */
int path_identity_same(const char *a, const char *b);

/* A path a command reads or writes, and how to name it in a message. */
struct path_role {
    const char *role;        /* "--out", "the input", ""; NULL path: skipped */
    const char *path;
    int output;              /* the command writes (or creates) it */
};

/* Checks that no output in LIST is the same file as any other entry (an
 * input, or another output). 0, or -1 with ERR set to one line naming both,
 * the later entry first: "[ROLE ]PATH: is the same file as [ROLE ]PATH:
 * refusing to overwrite it". */
int path_identity_check(const struct path_role *list, int n, char *err, size_t errlen);

#endif
