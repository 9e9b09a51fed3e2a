/* labels_seen.c — see labels_seen.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labels_seen.h"
#include "trace_schema.h"

void labels_seen_add(char **labels, int *n, const char *label)
{
    for (int i = 0; i < *n; i++)
        if (strncmp(labels[i], label, MARK_LABEL_MAX) == 0)
            return;
    if (*n == LABELS_SEEN_MAX)
        return;
    char *copy = strndup(label, MARK_LABEL_MAX);
    if (copy)
        labels[(*n)++] = copy;
}

void labels_seen_format(char *const *labels, int n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", labels[i]);
    if (n == LABELS_SEEN_MAX && len < cap)
        snprintf(buf + len, cap - len, ", ...");
}
