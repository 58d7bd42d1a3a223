/* pool_client: see pool_client.h.
 *
 * One peer (net/peer.h) on a loop of its own, and a state per step: the
 * pool's hello, its welcome after ours, then the run's frames until its
 * exit.  The timer bounds each handshake step and the --pool-wait of a
 * busy pool; every way out goes through pool_end, which closes both so
 * the loop runs dry. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "common/clock.h"
#include "coordinator/fleet/pool_client.h"
#include "coordinator/result/result.h"
#include "net/addr.h"
#include "net/peer.h"
#include "proto/msg.h"

#define POOL_HANDSHAKE_MS 10000

enum pstate { P_HELLO, P_WELCOME, P_RUN, P_OVER };

struct pconn {
    struct peer peer;             /* first: the peer layer's callbacks get the pconn */
    uv_timer_t timer;
    const struct pool_client_options *o;
    const struct pool_submit *sub;
    enum pstate state;
    unsigned char pool_nonce[AUTH_NONCE_LEN], my_nonce[AUTH_NONCE_LEN];
    int status, started, busy, got_exit;
    uint64_t deadline;            /* --pool-wait: when a busy pool is given up (0: never) */
    struct pool_busy bz;
    FILE *files[2];               /* json, journal */
    char why[MSG_TEXT_MAX];       /* the run's last error message */
};

static int fail(int status, const struct pconn *c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(int status, const struct pconn *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "nfstorm: pool %s: ", c->o->pool);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}

/* The submission is over with status: close everything. */
static void pool_end(struct pconn *c, int status)
{
    if (c->state == P_OVER)
        return;
    c->state = P_OVER;
    c->status = status;
    peer_close(&c->peer, "submission over");
    uv_close((uv_handle_t *)&c->timer, NULL);
}

static void on_timer(uv_timer_t *t)
{
    struct pconn *c = t->data;

    if (c->state == P_HELLO || c->state == P_WELCOME)
        pool_end(c, fail(1, c, "%s", c->state == P_HELLO ? "no hello within 10 s" : "no welcome within 10 s"));
    else if (c->busy && !c->started)
        pool_end(c, fail(2, c, "still busy with a run from %s since %s after --pool-wait", c->bz.from,
                         c->bz.since));
}

static void send_msg(struct pconn *c, void (*encode)(struct buf *, const void *), const void *m)
{
    struct buf b;
    buf_init(&b);
    encode(&b, m);
    peer_send(&c->peer, &b);
}

static void encode_hello(struct buf *b, const void *m) { msg_hello_encode(b, m); }
static void encode_auth(struct buf *b, const void *m) { msg_auth_encode(b, m); }
static void encode_submit(struct buf *b, const void *m) { pool_submit_encode(b, m); }

/* The pool's hello: ours back, with our nonce. */
static void on_hello(struct pconn *c, int type, const struct msg_frame *f, char *err, size_t errlen)
{
    struct msg_hello h, mine = { .version = PROTO_VERSION };

    if (type != MSG_HELLO || msg_hello_decode(f, &h, err, errlen) < 0) {
        pool_end(c, fail(1, c, "%s", "not an nfstorm pool (bad hello)"));
        return;
    }
    if (h.version != PROTO_VERSION) {
        pool_end(c, fail(2, c, "protocol version mismatch: submitter %d, pool %u", PROTO_VERSION, h.version));
        return;
    }
    if (auth_nonce(mine.nonce) < 0) {
        pool_end(c, fail(1, c, "%s", "no randomness for the handshake nonce"));
        return;
    }
    memcpy(c->pool_nonce, h.nonce, sizeof c->pool_nonce);
    memcpy(c->my_nonce, mine.nonce, sizeof c->my_nonce);
    send_msg(c, encode_hello, &mine);
    c->state = P_WELCOME;
    uv_timer_start(&c->timer, on_timer, POOL_HANDSHAKE_MS, 0);
}

/* Its welcome: check the pool's proof before handing it the plan. */
static void on_welcome(struct pconn *c, int type, const struct msg_frame *f, char *err, size_t errlen)
{
    struct msg_welcome w;
    struct msg_auth am;

    if (type == MSG_ERROR) {
        struct msg_error e;
        if (msg_error_decode(f, &e, err, errlen) < 0)
            snprintf(e.text, sizeof e.text, "(unreadable)");
        result_clean_text(e.text);
        pool_end(c, fail(2, c, "refused: %s", e.text));
        return;
    }
    if (type != MSG_WELCOME || msg_welcome_decode(f, &w, err, errlen) < 0 || !w.auth ||
        memcmp(w.nonce, c->pool_nonce, sizeof w.nonce) != 0) {
        pool_end(c, fail(1, c, "%s", "not an nfstorm pool (bad welcome)"));
        return;
    }
    if (!auth_check(c->o->secret, AUTH_POOL, c->my_nonce, c->pool_nonce, w.mac)) {
        pool_end(c, fail(2, c, "%s", "authentication failed: the pool's proof does not match --secret-file"));
        return;
    }
    auth_proof(c->o->secret, AUTH_SUBMITTER, c->my_nonce, c->pool_nonce, am.mac);
    send_msg(c, encode_auth, &am);
    send_msg(c, encode_submit, c->sub);
    c->state = P_RUN;
    uv_timer_stop(&c->timer);
}

/* A piece of the run's output: where its stream goes. */
static void on_output(struct pconn *c, const struct msg_frame *f, char *err, size_t errlen)
{
    const struct pool_client_options *o = c->o;
    struct pool_output out;
    char jpath[4096 + 16];
    FILE *fp;
    int k;

    if (pool_output_decode(f, &out, err, errlen) < 0) {
        pool_end(c, fail(1, c, "%s", err));
        return;
    }
    c->started = 1;
    if (out.stream == POOL_STDOUT && o->drop_stdout)
        return;
    if (out.stream == POOL_STDOUT || out.stream == POOL_STDERR) {
        fp = out.stream == POOL_STDOUT ? stdout : stderr;
    } else {
        k = out.stream == POOL_JSON ? 0 : 1;
        if (!o->json)
            return;
        if (!c->files[k]) {
            snprintf(jpath, sizeof jpath, k ? "%s.journal" : "%s", o->json);
            if (!(c->files[k] = fopen(jpath, "wb"))) {
                pool_end(c, fail(1, c, "cannot write %s", jpath));
                return;
            }
            if (k == 0 && o->json_written)
                *o->json_written = 1;
        }
        fp = c->files[k];
    }
    if (fwrite(out.data, 1, out.len, fp) != out.len) {
        pool_end(c, fail(1, c, "%s", "cannot write the run's output"));
        return;
    }
    fflush(fp);
}

static void on_run_frame(struct pconn *c, int type, const struct msg_frame *f, char *err, size_t errlen)
{
    if (type == MSG_BUSY) {
        if (pool_busy_decode(f, &c->bz, err, errlen) < 0) {
            pool_end(c, fail(1, c, "%s", err));
            return;
        }
        result_clean_text(c->bz.from);
        result_clean_text(c->bz.since);
        if (c->sub->wait && !c->o->quiet)
            fprintf(stderr, "nfstorm: waiting: the pool is busy with a run from %s since %s\n", c->bz.from,
                    c->bz.since);
        c->busy = 1;
        if (!c->started && c->deadline) {
            uint64_t now = clock_now_ns();
            uv_timer_start(&c->timer, on_timer, now >= c->deadline ? 0 : (c->deadline - now) / 1000000u + 1, 0);
        }
    } else if (type == MSG_OUTPUT) {
        on_output(c, f, err, errlen);
    } else if (type == MSG_ERROR) {
        struct msg_error e;
        if (msg_error_decode(f, &e, err, errlen) < 0)
            snprintf(e.text, sizeof e.text, "(unreadable)");
        result_clean_text(e.text);
        snprintf(c->why, sizeof c->why, "%s", e.text);
    } else if (type == MSG_EXIT) {
        uint32_t st;
        if (pool_exit_decode(f, &st, err, errlen) < 0) {
            pool_end(c, fail(1, c, "%s", err));
            return;
        }
        c->got_exit = 1;
        pool_end(c, (int)st);
    } else {
        pool_end(c, fail(1, c, "unexpected message: %s", err[0] && type < 0 ? err : "?"));
    }
}

static void handle_frame(void *arg, const struct msg_frame *f, int type, const char *why)
{
    struct pconn *c = arg;
    char err[512] = "";

    if (type < 0)
        snprintf(err, sizeof err, "%s", why);
    if (c->state == P_HELLO)
        on_hello(c, type, f, err, sizeof err);
    else if (c->state == P_WELCOME)
        on_welcome(c, type, f, err, sizeof err);
    else
        on_run_frame(c, type, f, err, sizeof err);
}

static int on_frame(struct peer *p, const char *pl, uint32_t n)
{
    struct pconn *c = (struct pconn *)p;
    msg_dispatch(pl, n, handle_frame, c);
    return c->state == P_OVER;
}

/* The pool hung up (or the link broke, or it sent a frame over the cap). */
static void on_close(struct peer *p, const char *why)
{
    struct pconn *c = (struct pconn *)p;

    if (p->err == -EMSGSIZE && c->state != P_OVER)
        /* we hung up, not the pool: what it sent is no frame of ours */
        pool_end(c, fail(1, c, "%s%s", c->state == P_RUN ? "" : "not an nfstorm pool: ", why));
    else if (c->state == P_HELLO || c->state == P_WELCOME)
        pool_end(c, fail(1, c, "closed %s the handshake", c->state == P_HELLO ? "before" : "during"));
    else if (c->state == P_RUN)
        pool_end(c, fail(1, c, "%s", p->err == UV_EOF ? "the pool closed the connection before the run ended"
                                                      : "connection lost"));
}

static const struct peer_ops pconn_ops = { .on_frame = on_frame, .on_close = on_close };

static void on_connect(uv_connect_t *req, int status)
{
    struct pconn *c = req->data;

    if (c->state == P_OVER)
        return;
    if (status < 0) {
        pool_end(c, fail(1, c, "cannot connect: %s", strerror(-status)));
        return;
    }
    peer_start(&c->peer);
    uv_timer_start(&c->timer, on_timer, POOL_HANDSHAKE_MS, 0);
}

int pool_client_submit(const struct pool_client_options *o, const struct pool_submit *sub)
{
    struct pconn c;
    struct sockaddr_storage ss;
    uv_loop_t loop;
    int rc;

    memset(&c, 0, sizeof c);
    c.o = o;
    c.sub = sub;
    c.status = 1;
    c.deadline = o->wait_ms ? clock_now_ns() + (uint64_t)o->wait_ms * 1000000u : 0;
    uv_loop_init(&loop);
    uv_timer_init(&loop, &c.timer);
    c.timer.data = &c;
    peer_init(&c.peer, &loop, &pconn_ops, POOL_FRAME_MAX);
    if ((rc = addr_resolve(&loop, o->pool, &ss)) < 0)
        pool_end(&c, fail(2, &c, "cannot connect: %s", "want HOST:PORT"));
    else if ((rc = peer_connect(&c.peer, (struct sockaddr *)&ss, on_connect)) < 0)
        pool_end(&c, fail(1, &c, "cannot connect: %s", strerror(-rc)));
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    if (c.got_exit && c.why[0])
        fail(c.status, &c, "%s", c.why);
    if (!c.got_exit && c.why[0] && c.status == 1)
        fail(1, &c, "%s", c.why);
    for (int k = 0; k < 2; k++)
        if (c.files[k] && fclose(c.files[k]) != 0 && c.status == 0)
            c.status = fail(1, &c, "cannot write %s", o->json);
    return c.status;
}
