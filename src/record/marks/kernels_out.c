/* kernels_out.c — TRACE.kernels; see kernels_out.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "kernels_out.h"

#define FLUSH_NS 1000000000LL

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int kernels_out_open(struct kernels_out *k, const char *trace_path)
{
    memset(k, 0, sizeof *k);
    snprintf(k->path, sizeof k->path, "%s%s", trace_path, KERNELS_FILE_SUFFIX);
    int fd = open(k->path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0) {
        diag_warn("%s: cannot open for writing: %s; no kernel data recorded", k->path,
                  strerror(errno));
        return -1;
    }
    struct stat st;
    size_t mlen = strlen(KERNELS_FILE_MAGIC);
    char head[sizeof KERNELS_FILE_MAGIC];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_warn("%s: not a regular file; no kernel data recorded", k->path);
        close(fd);
        return -1;
    }
    if (st.st_size > 0 && (pread(fd, head, mlen, 0) != (ssize_t)mlen ||
                           memcmp(head, KERNELS_FILE_MAGIC, mlen) != 0)) {
        diag_warn("%s: exists and is not a flinch kernels file; left alone, no kernel data "
                  "recorded", k->path);
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    k->fp = fdopen(fd, "a");
    if (!k->fp) {
        close(fd);
        return -1;
    }
    if (st.st_size == 0)
        fputs(KERNELS_FILE_MAGIC, k->fp);
    fflush(k->fp);
    k->flushed_ns = now_ns();
    return 0;
}

/* A line the library sends: a type letter and a space, then printable
 * text (no control byte: it could not break the file's lines anyway, but
 * nothing else has any business here). */
static int well_formed(const char *s, size_t len)
{
    if (len < 3 || len > KERNELS_LINE_MAX || !strchr("SONBCXD", s[0]) || s[1] != ' ')
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return 0;
    return 1;
}

int kernels_out_line(void *ctx, const char *payload, size_t len, char *event, size_t event_size)
{
    struct kernels_out *k = ctx;
    if (!well_formed(payload, len)) {
        k->refused++;
        return 0;
    }
    if (k->fp && !k->failed) {
        fwrite(payload, 1, len, k->fp);
        fputc('\n', k->fp);
        k->lines++;
        int64_t now = now_ns();
        if (now - k->flushed_ns >= FLUSH_NS) {
            k->flushed_ns = now;
            if (fflush(k->fp) != 0) {
                k->failed = 1;
                diag_warn("%s: write failed: %s; no more kernel data recorded", k->path,
                          strerror(errno));
            }
        }
    }
    if (payload[0] != 'O')
        return 0;
    snprintf(event, event_size, "cuda_off %.*s", (int)(len - 2), payload + 2);
    return 1;
}

void kernels_out_close(struct kernels_out *k)
{
    if (!k->fp)
        return;
    if (fclose(k->fp) != 0 && !k->failed)
        diag_warn("%s: write failed: %s", k->path, strerror(errno));
    k->fp = NULL;
}
