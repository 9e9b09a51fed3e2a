/* path_identity.c — see path_identity.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path_identity.h"

#define LINK_HOPS_MAX 40   /* the kernel's own limit (ELOOP) */

/* A path that does not exist: its parent directory's identity plus the
 * final name (trailing slashes dropped). */
static int missing(const char *path, struct path_identity *id)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    size_t nlen = len - start;
    if (nlen == 0 || nlen > NAME_MAX || (nlen == 1 && path[start] == '.') ||
        (nlen == 2 && path[start] == '.' && path[start + 1] == '.'))
        return -1;
    char dir[PATH_MAX];
    if (start == 0)
        snprintf(dir, sizeof dir, ".");
    else if (start == 1)
        snprintf(dir, sizeof dir, "/");
    else if (start - 1 < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(start - 1), path);
    else
        return -1;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return -1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    memcpy(id->name, path + start, nlen);
    id->name[nlen] = '\0';
    return 0;
}

/* Why the loop: a dangling symlink names the file a write through it would
 * create, so it is followed by hand (stat cannot) to the path it points to,
 * a relative target taken from the link's own directory. */
int path_identity_get(const char *path, struct path_identity *id)
{
    memset(id, 0, sizeof *id);
    if (!path || !*path || strlen(path) >= PATH_MAX)
        return -1;
    char cur[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hop = 0; hop <= LINK_HOPS_MAX; hop++) {
        struct stat st;
        if (stat(cur, &st) == 0) {
            id->dev = st.st_dev;
            id->ino = st.st_ino;
            return 0;
        }
        if (errno != ENOENT)
            return -1;
        if (lstat(cur, &st) != 0)
            return errno == ENOENT ? missing(cur, id) : -1;
        if (!S_ISLNK(st.st_mode))
            return -1;
        char target[PATH_MAX];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n <= 0)
            return -1;
        target[n] = '\0';
        char *slash = strrchr(cur, '/');
        if (target[0] == '/' || !slash) {
            memcpy(cur, target, (size_t)n + 1);
        } else {
            size_t dlen = (size_t)(slash - cur) + 1;
            if (dlen + (size_t)n >= sizeof cur)
                return -1;
            memcpy(cur + dlen, target, (size_t)n + 1);
        }
    }
    return -1;
}

int path_identity_equal(const struct path_identity *a, const struct path_identity *b)
{
    return a->dev == b->dev && a->ino == b->ino && strcmp(a->name, b->name) == 0;
}

int path_identity_same(const char *a, const char *b)
{
    struct path_identity ia, ib;
    return path_identity_get(a, &ia) == 0 && path_identity_get(b, &ib) == 0 &&
           path_identity_equal(&ia, &ib);
}

int path_identity_check(const struct path_role *list, int n, char *err, size_t errlen)
{
    struct path_identity *id = n > 0 ? malloc(sizeof *id * (size_t)n) : NULL;
    if (n > 0 && !id) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* an unresolvable path is marked by a name no file can have ("/") */
    for (int i = 0; i < n; i++)
        if (!list[i].path || path_identity_get(list[i].path, &id[i]) != 0)
            id[i].name[0] = '/';
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++)
        for (int j = 0; j < i && rc == 0; j++)
            if (id[i].name[0] != '/' && id[j].name[0] != '/' &&
                (list[i].output || list[j].output) && path_identity_equal(&id[i], &id[j])) {
                snprintf(err, errlen, "%s%s%s: is the same file as %s%s%s: refusing to overwrite it",
                         list[i].role, *list[i].role ? " " : "", list[i].path,
                         list[j].role, *list[j].role ? " " : "", list[j].path);
                rc = -1;
            }
    free(id);
    return rc;
}
