/*
 * metrics_http.c — see metrics_http.h.
 *
 * One thread, one poll() over the listening socket, a stop pipe and the
 * clients. Each client moves from reading its request (bounded bytes and
 * time) to writing one response, then is closed: every answer says
 * "Connection: close", so there is no keep-alive state to bound. The
 * poll timeout is the nearest client deadline, so a client that stops
 * sending is dropped when its time is up, not when it next speaks.
 *
 * Every answer is strict HTTP/1.1: status line and headers end in CRLF,
 * with Content-Type, Content-Length and Connection: close (a 405 adds
 * Allow). After an error answer the server shuts its side and reads what
 * the client still sends (up to METRICS_HTTP_LINGER_MS) before closing:
 * closing a socket with unread bytes sends a reset, which can destroy the
 * answer before the client reads it (a 431's request is never read whole).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "accept_reserve.h"
#include "metrics_http.h"

struct metrics_snap {
    int refs;                /* under the server's lock */
    size_t len;
    char text[];
};

struct client {
    int fd;                  /* -1: free slot */
    int64_t deadline_ns;
    size_t got;              /* request bytes; SIZE_MAX: writing the answer */
    int linger;              /* after the answer: drain the client's bytes, then close */
    int draining;            /* answer sent, our side shut, reading until EOF */
    char req[METRICS_HTTP_MAX_REQUEST];
    char head[384];          /* response header */
    size_t head_len, sent;
    struct metrics_snap *body;   /* NULL: the body is in `small` */
    const char *small;
    size_t body_len;
};

/* [ADDR:]PORT, or [V6ADDR]:PORT, into a socket address; 0, or -1 after
 * one error line. */
static int parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
    char addr[64] = "127.0.0.1";
    const char *port_s = spec;
    int v6 = spec[0] == '[';
    if (v6) {
        const char *close = strchr(spec, ']');
        size_t alen = close ? (size_t)(close - spec - 1) : 0;
        if (!close || close[1] != ':' || alen == 0 || alen >= sizeof addr) {
            diag_error("--metrics %s: expected [IPV6]:PORT, e.g. [::1]:9400", spec);
            return -1;
        }
        memcpy(addr, spec + 1, alen);
        addr[alen] = '\0';
        port_s = close + 2;
    } else {
        const char *colon = strrchr(spec, ':');
        if (colon) {
            size_t alen = (size_t)(colon - spec);
            if (alen == 0 || alen >= sizeof addr) {
                diag_error("--metrics %s: expected PORT, ADDR:PORT or [IPV6]:PORT", spec);
                return -1;
            }
            memcpy(addr, spec, alen);
            addr[alen] = '\0';
            port_s = colon + 1;
        }
    }
    char *end;
    errno = 0;
    long port = strtol(port_s, &end, 10);
    if (!*port_s || *end || errno || port < 0 || port > 65535) {
        diag_error("--metrics %s: port must be a number from 0 to 65535", spec);
        return -1;
    }
    memset(ss, 0, sizeof *ss);
    if (v6) {
        struct sockaddr_in6 *sa = (struct sockaddr_in6 *)ss;
        sa->sin6_family = AF_INET6;
        sa->sin6_port = htons((unsigned short)port);
        *len = sizeof *sa;
        if (inet_pton(AF_INET6, addr, &sa->sin6_addr) == 1)
            return 0;
        diag_error("--metrics %s: '%s' is not an IPv6 address", spec, addr);
        return -1;
    }
    struct sockaddr_in *sa = (struct sockaddr_in *)ss;
    sa->sin_family = AF_INET;
    sa->sin_port = htons((unsigned short)port);
    *len = sizeof *sa;
    if (inet_pton(AF_INET, addr, &sa->sin_addr) == 1)
        return 0;
    diag_error("--metrics %s: '%s' is not an IPv4 address (IPv6: [ADDR]:PORT)", spec, addr);
    return -1;
}

int metrics_server_open(struct metrics_server *s, const char *spec)
{
    memset(s, 0, sizeof *s);
    s->lfd = -1;
    s->stop_pipe[0] = s->stop_pipe[1] = -1;
    s->acc.spare = -1;
    pthread_mutex_init(&s->lock, NULL);
    struct sockaddr_storage ss;
    socklen_t sl;
    if (parse_listen(spec, &ss, &sl) != 0)
        return -1;
    s->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1, zero = 0;
    /* [::]:PORT takes IPv4 too, whatever net.ipv6.bindv6only says */
    if (s->lfd < 0 || setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0
        || (ss.ss_family == AF_INET6
            && setsockopt(s->lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) != 0)
        || bind(s->lfd, (struct sockaddr *)&ss, sl) != 0 || listen(s->lfd, 16) != 0) {
        diag_error("--metrics %s: cannot listen: %s", spec, strerror(errno));
        if (s->lfd >= 0)
            close(s->lfd);
        s->lfd = -1;
        return -1;
    }
    sl = sizeof ss;
    getsockname(s->lfd, (struct sockaddr *)&ss, &sl);
    char ip[INET6_ADDRSTRLEN];
    if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *sa = (const struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &sa->sin6_addr, ip, sizeof ip);
        snprintf(s->bound, sizeof s->bound, "[%s]:%u", ip, (unsigned)ntohs(sa->sin6_port));
    } else {
        const struct sockaddr_in *sa = (const struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof ip);
        snprintf(s->bound, sizeof s->bound, "%s:%u", ip, (unsigned)ntohs(sa->sin_port));
    }
    return 0;
}

static struct metrics_snap *snap_get(struct metrics_server *s, enum metrics_format fmt)
{
    pthread_mutex_lock(&s->lock);
    struct metrics_snap *p = s->cur[fmt];
    if (p)
        p->refs++;
    pthread_mutex_unlock(&s->lock);
    return p;
}

static void snap_put(struct metrics_server *s, struct metrics_snap *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&s->lock);
    int last = --p->refs == 0;
    pthread_mutex_unlock(&s->lock);
    if (last)
        free(p);
}

void metrics_server_publish(struct metrics_server *s, enum metrics_format fmt, const char *text,
                            size_t len)
{
    struct metrics_snap *p = malloc(sizeof *p + len + 1);
    if (!p)
        return;                          /* keep serving the previous one */
    p->refs = 1;
    p->len = len;
    memcpy(p->text, text, len);
    p->text[len] = '\0';
    pthread_mutex_lock(&s->lock);
    struct metrics_snap *old = s->cur[fmt];
    s->cur[fmt] = p;
    pthread_mutex_unlock(&s->lock);
    snap_put(s, old);
}

static void drop(struct metrics_server *s, struct client *c)
{
    close(c->fd);
    c->fd = -1;
    snap_put(s, c->body);
    c->body = NULL;
}

/* The value of the request's Accept header, or NULL. */
static const char *accept_value(const struct client *c, size_t *len)
{
    for (const char *p = c->req; (p = strchr(p, '\n')) != NULL;) {
        p++;
        if (strncasecmp(p, "accept:", 7) != 0)
            continue;
        p += 7;
        *len = strcspn(p, "\r\n");
        return p;
    }
    return NULL;
}

/* Starts the answer: code and its reason phrase, body (NULL for the
 * snapshot of the metrics format the request's Accept header asks for).
 * head_only: a HEAD request, the headers a GET would get and no body. */
static void respond(struct metrics_server *s, struct client *c, int code, const char *reason,
                    const char *body, int head_only)
{
    const char *type = "text/plain; charset=utf-8";
    if (!body) {
        size_t alen = 0;
        const char *accept = accept_value(c, &alen);
        enum metrics_format fmt = accept ? metrics_negotiate(accept, alen) : METRICS_TEXT;
        c->body = snap_get(s, fmt);
        c->small = c->body ? NULL : "";
        c->body_len = c->body ? c->body->len : 0;
        type = fmt == METRICS_OPENMETRICS ? METRICS_OPENMETRICS_TYPE : METRICS_TEXT_TYPE;
    } else {
        c->small = body;
        c->body_len = strlen(body);
    }
    c->head_len = (size_t)snprintf(c->head, sizeof c->head,
        "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
        code, reason, type, c->body_len, code == 405 ? "Allow: GET, HEAD\r\n" : "");
    if (head_only)
        c->body_len = 0;
    c->sent = 0;
    c->linger = code != 200;
    c->got = SIZE_MAX;                   /* now writing */
    c->deadline_ns = mono_ns() + (int64_t)METRICS_HTTP_RESPONSE_MS * 1000000;
}

/* A whole request head is in: decide the answer. */
static void on_request(struct metrics_server *s, struct client *c)
{
    char *sp1 = memchr(c->req, ' ', c->got);
    char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(c->req + c->got - sp1 - 1)) : NULL;
    if (!sp1 || !sp2 || strncmp(sp2 + 1, "HTTP/1.", 7) != 0) {
        respond(s, c, 400, "Bad Request", "Bad Request\n", 0);
        return;
    }
    size_t mlen = (size_t)(sp1 - c->req), plen = (size_t)(sp2 - sp1 - 1);
    int get = mlen == 3 && memcmp(c->req, "GET", 3) == 0;
    int head = mlen == 4 && memcmp(c->req, "HEAD", 4) == 0;
    const char *path = sp1 + 1;
    int metrics = plen == 8 && memcmp(path, "/metrics", 8) == 0;
    int health = plen == 8 && memcmp(path, "/healthz", 8) == 0;
    if (!metrics && !health)
        respond(s, c, 404, "Not Found", "Not Found\n", head);
    else if (!get && !head)
        respond(s, c, 405, "Method Not Allowed", "Method Not Allowed\n", 0);
    else
        respond(s, c, 200, "OK", metrics ? NULL : "ok\n", head);
}

/* After an error answer: what the client still sends is read and thrown
 * away until it closes (or the linger time is up). */
static void on_draining(struct metrics_server *s, struct client *c)
{
    char sink[4096];
    for (;;) {
        ssize_t n = read(c->fd, sink, sizeof sink);
        if (n > 0)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || errno != EAGAIN)
            drop(s, c);
        return;
    }
}

static void on_readable(struct metrics_server *s, struct client *c)
{
    for (;;) {
        ssize_t n = read(c->fd, c->req + c->got, sizeof c->req - 1 - c->got);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            drop(s, c);
            return;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        c->got += (size_t)n;
        c->req[c->got] = '\0';
        if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
            on_request(s, c);
            return;
        }
        if (c->got == sizeof c->req - 1) {
            respond(s, c, 431, "Request Header Fields Too Large", "Request Header Fields Too Large\n", 0);
            return;
        }
    }
}

static void on_writable(struct metrics_server *s, struct client *c)
{
    for (;;) {
        const char *p;
        size_t left;
        if (c->sent < c->head_len) {
            p = c->head + c->sent;
            left = c->head_len - c->sent;
        } else {
            size_t off = c->sent - c->head_len;
            if (off >= c->body_len) {
                s->served++;
                shutdown(c->fd, SHUT_WR);
                if (!c->linger) {
                    drop(s, c);
                    return;
                }
                c->draining = 1;
                c->deadline_ns = mono_ns() + (int64_t)METRICS_HTTP_LINGER_MS * 1000000;
                return;
            }
            p = (c->body ? c->body->text : c->small) + off;
            left = c->body_len - off;
        }
        ssize_t n = send(c->fd, p, left, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                drop(s, c);
            return;
        }
        c->sent += (size_t)n;
    }
}

static void accept_all(struct metrics_server *s, struct client *cl)
{
    for (int k = 0; k < 64; k++) {           /* bounded per wake-up */
        int fd = accept_reserve_accept(&s->acc, s->lfd, mono_ns());
        if (fd < 0)
            return;
        struct client *c = NULL;
        for (int i = 0; i < METRICS_HTTP_MAX_CONN && !c; i++)
            if (cl[i].fd < 0)
                c = &cl[i];
        if (!c) {
            s->refused++;
            close(fd);
            continue;
        }
        c->fd = fd;
        c->got = 0;
        c->linger = c->draining = 0;
        c->req[0] = '\0';
        c->body = NULL;
        c->deadline_ns = mono_ns() + (int64_t)METRICS_HTTP_REQUEST_MS * 1000000;
    }
}

static void *server_main(void *arg)
{
    struct metrics_server *s = arg;
    static struct client cl[METRICS_HTTP_MAX_CONN];   /* one server per process */
    for (int i = 0; i < METRICS_HTTP_MAX_CONN; i++) {
        cl[i].fd = -1;
        cl[i].body = NULL;
    }
    for (;;) {
        struct pollfd pf[METRICS_HTTP_MAX_CONN + 2];
        struct client *who[METRICS_HTTP_MAX_CONN + 2];
        int n = 0;
        pf[n++] = (struct pollfd){ .fd = s->stop_pipe[0], .events = POLLIN };
        int64_t now = mono_ns(), next = now + 1000 * 1000000LL;
        /* out of descriptors a moment ago: the listener waits (accept_reserve.h) */
        int listen = accept_reserve_ready(&s->acc, now, &next);
        pf[n++] = (struct pollfd){ .fd = listen ? s->lfd : -1, .events = POLLIN };
        for (int i = 0; i < METRICS_HTTP_MAX_CONN; i++) {
            struct client *c = &cl[i];
            if (c->fd < 0)
                continue;
            if (now >= c->deadline_ns) {
                drop(s, c);
                continue;
            }
            if (c->deadline_ns < next)
                next = c->deadline_ns;
            who[n] = c;
            short ev = c->got == SIZE_MAX && !c->draining ? POLLOUT : POLLIN;
            pf[n++] = (struct pollfd){ .fd = c->fd, .events = ev };
        }
        int wait_ms = (int)((next - now) / 1000000) + 1;
        if (poll(pf, (nfds_t)n, wait_ms) < 0 && errno != EINTR)
            break;
        if (pf[0].revents)
            break;
        for (int i = 2; i < n; i++) {
            if (!pf[i].revents || who[i]->fd < 0)
                continue;
            if (who[i]->draining)
                on_draining(s, who[i]);
            else if (who[i]->got == SIZE_MAX)
                on_writable(s, who[i]);
            else
                on_readable(s, who[i]);
        }
        if (listen && (pf[1].revents & POLLIN))
            accept_all(s, cl);
    }
    for (int i = 0; i < METRICS_HTTP_MAX_CONN; i++)
        if (cl[i].fd >= 0)
            drop(s, &cl[i]);
    return NULL;
}

int metrics_server_start(struct metrics_server *s)
{
    if (pipe2(s->stop_pipe, O_CLOEXEC) != 0) {
        diag_error("--metrics: cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    accept_reserve_open(&s->acc);
    int rc = pthread_create(&s->thread, NULL, server_main, s);
    if (rc != 0) {
        diag_error("--metrics: cannot start the server thread: %s", strerror(rc));
        return -1;
    }
    s->running = 1;
    return 0;
}

void metrics_server_stop(struct metrics_server *s)
{
    if (s->running) {
        ssize_t w = write(s->stop_pipe[1], "x", 1);
        (void)w;
        pthread_join(s->thread, NULL);
        s->running = 0;
    }
    for (int i = 0; i < 2; i++)
        if (s->stop_pipe[i] >= 0)
            close(s->stop_pipe[i]);
    s->stop_pipe[0] = s->stop_pipe[1] = -1;
    if (s->lfd >= 0)
        close(s->lfd);
    s->lfd = -1;
    accept_reserve_close(&s->acc);
    for (int k = 0; k < METRICS_FORMATS; k++) {
        snap_put(s, s->cur[k]);
        s->cur[k] = NULL;
    }
    pthread_mutex_destroy(&s->lock);
}
