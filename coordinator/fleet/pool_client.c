/* pool_client: see pool_client.h. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "common/clock.h"
#include "coordinator/fleet/pool_client.h"
#include "coordinator/result/result.h"
#include "proto/frame.h"
#include "proto/msg.h"

#define POOL_HANDSHAKE_MS 10000

struct pconn {
    int fd;
    struct frame_reader rd;
    const char *pool;
    struct msg_frame f;    /* the last frame next_frame read, parsed once */
    int type;              /* its type, or < 0 with why */
    char why[256];
};

static int fail(int status, const struct pconn *c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(int status, const struct pconn *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "nfstorm: pool %s: ", c->pool);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}

static int dial(const char *addr, int *fd)
{
    char host[256];
    const char *colon = strrchr(addr, ':');
    struct addrinfo hints, *ai = NULL;
    size_t hl;
    int rc;

    if (!colon || (hl = (size_t)(colon - addr)) == 0 || hl >= sizeof host || !colon[1])
        return -EINVAL;
    memcpy(host, addr, hl);
    host[hl] = '\0';
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || !ai)
        return -EINVAL;
    *fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    rc = *fd < 0 ? -errno : connect(*fd, ai->ai_addr, ai->ai_addrlen) < 0 ? -errno : 0;
    freeaddrinfo(ai);
    if (rc < 0 && *fd >= 0) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}

static int send_all(int fd, const struct buf *b)
{
    const char *p = b->data;
    size_t n = b->len;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Next frame within timeout_ms (-1: forever).  1 with it parsed in c->f
 * and c->type (valid until the next call), 0 on timeout, -EPIPE when the
 * pool closed, -EMSGSIZE over the cap, -EIO. */
static int next_frame(struct pconn *c, int timeout_ms)
{
    char chunk[64 * 1024];
    for (;;) {
        const char *pl;
        uint32_t n;
        int rc = frame_reader_next(&c->rd, &pl, &n);
        struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
        ssize_t got;
        if (rc > 0) {
            msg_frame_free(&c->f);
            c->type = msg_parse(pl, n, &c->f, c->why, sizeof c->why);
        }
        if (rc != 0)
            return rc;
        rc = poll(&pfd, 1, timeout_ms);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc == 0)
            return 0;
        got = recv(c->fd, chunk, sizeof chunk, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got == 0)
            return -EPIPE;
        if (got < 0)
            return -EIO;
        frame_reader_feed(&c->rd, chunk, (size_t)got);
    }
}

static int handshake(struct pconn *c, const struct auth_secret *secret)
{
    struct msg_hello h, mine = { .version = PROTO_VERSION };
    struct msg_welcome w;
    struct msg_auth am;
    struct buf b;
    char err[256], text[64];
    int rc;

    if ((rc = next_frame(c, POOL_HANDSHAKE_MS)) <= 0)
        return fail(1, c, "%s", rc == 0 ? "no hello within 10 s" : "closed before the handshake");
    if (c->type != MSG_HELLO || msg_hello_decode(&c->f, &h, err, sizeof err) < 0)
        return fail(1, c, "%s", "not an nfstorm pool (bad hello)");
    if (h.version != PROTO_VERSION) {
        snprintf(text, sizeof text, "submitter %d, pool %u", PROTO_VERSION, h.version);
        return fail(2, c, "protocol version mismatch: %s", text);
    }
    if (auth_nonce(mine.nonce) < 0)
        return fail(1, c, "%s", "no randomness for the handshake nonce");
    buf_init(&b);
    msg_hello_encode(&b, &mine);
    rc = send_all(c->fd, &b);
    buf_free(&b);
    if (rc < 0)
        return fail(1, c, "%s", "connection lost during the handshake");
    if ((rc = next_frame(c, POOL_HANDSHAKE_MS)) <= 0)
        return fail(1, c, "%s", rc == 0 ? "no welcome within 10 s" : "closed during the handshake");
    if (c->type == MSG_ERROR) {
        struct msg_error e;
        if (msg_error_decode(&c->f, &e, err, sizeof err) < 0)
            snprintf(e.text, sizeof e.text, "(unreadable)");
        result_clean_text(e.text);
        return fail(2, c, "refused: %s", e.text);
    }
    if (c->type != MSG_WELCOME || msg_welcome_decode(&c->f, &w, err, sizeof err) < 0 || !w.auth ||
        memcmp(w.nonce, h.nonce, sizeof w.nonce) != 0)
        return fail(1, c, "%s", "not an nfstorm pool (bad welcome)");
    if (!auth_check(secret, AUTH_POOL, mine.nonce, h.nonce, w.mac))
        return fail(2, c, "%s", "authentication failed: the pool's proof does not match --secret-file");
    auth_proof(secret, AUTH_SUBMITTER, mine.nonce, h.nonce, am.mac);
    buf_init(&b);
    msg_auth_encode(&b, &am);
    rc = send_all(c->fd, &b);
    buf_free(&b);
    return rc < 0 ? fail(1, c, "%s", "connection lost during the handshake") : 0;
}

static int write_all(FILE *fp, const char *p, size_t n)
{
    return fwrite(p, 1, n, fp) == n ? 0 : -EIO;
}

int pool_client_submit(const struct pool_client_options *o, const struct pool_submit *sub)
{
    struct pconn c = { .fd = -1, .pool = o->pool };
    FILE *files[2] = { NULL, NULL };   /* json, journal */
    char jpath[4096 + 16], err[512];
    struct buf b;
    int status = 1, rc, started = 0, busy = 0;
    uint64_t deadline = o->wait_ms ? clock_now_ns() + (uint64_t)o->wait_ms * 1000000u : 0;
    struct pool_busy bz = { "", "" };
    int got_exit = 0;
    char why[MSG_TEXT_MAX] = "";

    frame_reader_init(&c.rd, POOL_FRAME_MAX);
    if ((rc = dial(o->pool, &c.fd)) < 0) {
        status = fail(rc == -EINVAL ? 2 : 1, &c, "cannot connect: %s",
                      rc == -EINVAL ? "want HOST:PORT" : strerror(-rc));
        goto out;
    }
    if ((status = handshake(&c, o->secret)) != 0)
        goto out;
    status = 1;
    buf_init(&b);
    pool_submit_encode(&b, sub);
    rc = send_all(c.fd, &b);
    buf_free(&b);
    if (rc < 0) {
        status = fail(1, &c, "%s", "connection lost sending the submission");
        goto out;
    }
    for (;;) {
        int tmo = -1, type;
        if (busy && !started && deadline) {
            uint64_t now = clock_now_ns();
            if (now >= deadline) {
                snprintf(err, sizeof err, "still busy with a run from %s since %s after --pool-wait", bz.from,
                         bz.since);
                status = fail(2, &c, "%s", err);
                goto out;
            }
            tmo = (int)((deadline - now) / 1000000u) + 1;
        }
        rc = next_frame(&c, tmo);
        if (rc == 0)
            continue;
        if (rc < 0) {
            if (got_exit)
                break;
            status = fail(1, &c, "%s", rc == -EPIPE ? "the pool closed the connection before the run ended"
                                                    : "connection lost");
            goto out;
        }
        type = c.type;
        if (type == MSG_BUSY) {
            if (pool_busy_decode(&c.f, &bz, err, sizeof err) < 0) {
                status = fail(1, &c, "%s", err);
                goto out;
            }
            result_clean_text(bz.from);
            result_clean_text(bz.since);
            if (sub->wait && !o->quiet)
                fprintf(stderr, "nfstorm: waiting: the pool is busy with a run from %s since %s\n", bz.from,
                        bz.since);
            busy = 1;
        } else if (type == MSG_OUTPUT) {
            struct pool_output out;
            FILE *fp;
            if (pool_output_decode(&c.f, &out, err, sizeof err) < 0) {
                status = fail(1, &c, "%s", err);
                goto out;
            }
            started = 1;
            if (out.stream == POOL_STDOUT && o->drop_stdout) {
                continue;
            } else if (out.stream == POOL_STDOUT || out.stream == POOL_STDERR) {
                fp = out.stream == POOL_STDOUT ? stdout : stderr;
            } else {
                int k = out.stream == POOL_JSON ? 0 : 1;
                if (!o->json)
                    continue;
                if (!files[k]) {
                    snprintf(jpath, sizeof jpath, k ? "%s.journal" : "%s", o->json);
                    if (!(files[k] = fopen(jpath, "wb"))) {
                        status = fail(1, &c, "cannot write %s", jpath);
                        goto out;
                    }
                    if (k == 0 && o->json_written)
                        *o->json_written = 1;
                }
                fp = files[k];
            }
            if (write_all(fp, out.data, out.len) < 0) {
                status = fail(1, &c, "%s", "cannot write the run's output");
                goto out;
            }
            fflush(fp);
        } else if (type == MSG_ERROR) {
            struct msg_error e;
            if (msg_error_decode(&c.f, &e, err, sizeof err) < 0)
                snprintf(e.text, sizeof e.text, "(unreadable)");
            result_clean_text(e.text);
            snprintf(why, sizeof why, "%s", e.text);
        } else if (type == MSG_EXIT) {
            uint32_t st;
            if (pool_exit_decode(&c.f, &st, err, sizeof err) < 0) {
                status = fail(1, &c, "%s", err);
                goto out;
            }
            status = (int)st;
            got_exit = 1;
            break;
        } else {
            status = fail(1, &c, "unexpected message: %s", type < 0 ? c.why : "?");
            goto out;
        }
    }
    if (why[0])
        fail(status, &c, "%s", why);
out:
    if (!got_exit && why[0] && status == 1)
        fail(1, &c, "%s", why);
    for (int k = 0; k < 2; k++)
        if (files[k] && fclose(files[k]) != 0 && status == 0)
            status = fail(1, &c, "cannot write %s", o->json);
    if (c.fd >= 0)
        close(c.fd);
    frame_reader_free(&c.rd);
    msg_frame_free(&c.f);
    return status;
}
