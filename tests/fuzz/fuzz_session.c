/* fuzz_session: libFuzzer harness for the agent's session code (agent/
 * session.c, agent/session_run.c and what they call: plan admission, the
 * allow lists, phase prepare/start/stop/finish, clean), driven by a
 * hostile coordinator that has authenticated.
 *
 * No socket: the session is opened through its transport seam
 * (session_open_detached; what the agent sends goes to a counting hook) on
 * a libuv loop of our own, with --insecure semantics, an allow root in a
 * fresh temp directory and one --allow-nfs rule (nothing listens there),
 * and the operator caps of a small agent (--max-threads 8, --max-files 64,
 * --max-memory 256m) so a plan cannot make the harness itself run out of
 * memory or disk.
 *
 * Input: the first byte picks whether the harness says a valid hello
 * first (bit 0 set: the authenticated surface) or the input starts at the
 * hello (pre-auth); the rest is a sequence of [u16 big-endian length]
 * [msgpack payload] records, each sent as one frame.  After a plan, start,
 * stop or clean the loop runs until the session has settled (its work on
 * the thread pool done), at most 50 ms, so prepare, start and the stop
 * paths are reached in order.  A start whose t0_ns has the top bit clear
 * is re-based onto the agent's clock (now - 1 s + t0 mod 3 s: a recorded
 * seed stays startable); with the top bit set it goes as it is, to reach
 * the refusal of an instant far from the clock.  At the end the "coordinator" hangs up and
 * the loop runs until the session is freed (checked: within 10 s), and
 * every file the plan made is removed.
 *
 * Checks: nothing crashes (ASan/UBSan), nothing leaks (libFuzzer's leak
 * check), no session outlives the hang-up, and every frame the agent sends
 * has a valid header and a type msg_parse knows. */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "agent/session.h"
#include "common/clock.h"
#include "common/log.h"
#include "proto/frame.h"
#include "proto/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define CHECK(cond) do { if (!(cond)) die(#cond, __LINE__); } while (0)

static void die(const char *what, int line)
{
    fprintf(stderr, "fuzz_session.c:%d: check failed: %s\n", line, what);
    abort();
}

static struct agent agent;
static uv_loop_t loop;
static char root[64];
static unsigned long frames_out;

/* What the agent sends: each call is one whole frame (session_send). */
static void on_send(void *arg, const char *p, size_t n)
{
    char err[128];
    uint32_t len;
    (void)arg;
    CHECK(n >= FRAME_HEADER_LEN);
    len = (uint32_t)(unsigned char)p[0] << 24 | (uint32_t)(unsigned char)p[1] << 16 |
          (uint32_t)(unsigned char)p[2] << 8 | (unsigned char)p[3];
    CHECK(len == n - FRAME_HEADER_LEN);
    struct msg_frame f;
    CHECK(msg_parse(p + FRAME_HEADER_LEN, len, &f, err, sizeof err) >= 0);
    msg_frame_free(&f);
    frames_out++;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level > 0)
        remove(path);
    return 0;
}

/* The temp directory goes when the fuzzer exits (libFuzzer exits through
 * exit(), so atexit handlers run; a crash leaves it for the post-mortem). */
static void remove_root(void)
{
    nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    rmdir(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[256];
    (void)argc;
    (void)argv;
    log_set_level(LOG_ERROR);
    snprintf(root, sizeof root, "/tmp/fuzz_session.XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    atexit(remove_root);
    CHECK(uv_loop_init(&loop) == 0);
    agent.loop = &loop;
    agent.loop_thread = pthread_self();
    allow_list_init(&agent.allow);
    allow_list_init(&agent.allow_nfs);
    CHECK(allow_list_add(&agent.allow, root, err, sizeof err) == 0);
    /* port 1 on loopback: a plan that gets this far fails to mount, fast */
    agent.allow_nfs.root[agent.allow_nfs.n++] = strdup("nfs://127.0.0.1/export");
    snprintf(agent.host, sizeof agent.host, "fuzzhost");
    agent.lease_ns = 10 * 1000000000ull;
    agent.limits.max_threads = 8;
    agent.limits.max_files = 64;
    agent.limits.max_memory = 256u << 20;
    agent.send_hook = on_send;
    return 0;
}

static void send_frame(struct session *s, const void *p, size_t n)
{
    unsigned char hdr[FRAME_HEADER_LEN];
    frame_put_header(hdr, (uint32_t)n);
    session_feed(s, hdr, sizeof hdr);
    session_feed(s, p, n);
}

static void spin(struct session *s, uint64_t max_ns)
{
    uint64_t end = clock_now_ns() + max_ns;
    uv_run(&loop, UV_RUN_NOWAIT);
    while (agent.nsessions > 0 && !session_settled(s) && clock_now_ns() < end) {
        struct timespec ts = { 0, 100000 };
        nanosleep(&ts, NULL);
        uv_run(&loop, UV_RUN_NOWAIT);
    }
}

/* A decodable start with t0's top bit clear goes in re-based; 1 if sent. */
static int rebase_start(struct session *s, const struct msg_frame *f)
{
    struct msg_start m;
    struct buf b;
    char err[64];

    if (msg_start_decode(f, &m, err, sizeof err) < 0 || (m.t0_ns >> 63))
        return 0;
    m.t0_ns = clock_now_ns() - 1000000000ull + m.t0_ns % 3000000000ull;
    buf_init(&b);
    msg_start_encode(&b, &m);
    session_feed(s, b.data, b.len);
    buf_free(&b);
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct session *s;
    uint64_t end;
    size_t i = 1;

    if (size < 1)
        return 0;
    s = session_open_detached(&agent, "127.0.0.1:40000");
    if (data[0] & 1) {
        struct msg_hello h = { .version = PROTO_VERSION };
        struct buf b;
        buf_init(&b);
        msg_hello_encode(&b, &h);
        session_feed(s, b.data, b.len);    /* the encoder wrote the header */
        buf_free(&b);
    }
    while (i + 2 <= size && agent.nsessions > 0) {
        size_t n = (size_t)data[i] << 8 | data[i + 1];
        char err[64];
        struct msg_frame f;
        int type;
        i += 2;
        if (n > size - i)
            n = size - i;
        type = msg_parse((const char *)data + i, (uint32_t)n, &f, err, sizeof err);
        if (type == MSG_START && rebase_start(s, &f))
            ;
        else
            send_frame(s, data + i, n);
        msg_frame_free(&f);
        i += n;
        if (agent.nsessions == 0)
            break;
        if (type == MSG_PLAN || type == MSG_START || type == MSG_STOP || type == MSG_CLEAN)
            spin(s, 50 * 1000000ull);
        else
            uv_run(&loop, UV_RUN_NOWAIT);
    }
    if (agent.nsessions > 0)
        session_close(s);
    end = clock_now_ns() + 10 * 1000000000ull;
    while (agent.nsessions > 0 || uv_loop_alive(&loop)) {
        struct timespec ts = { 0, 100000 };
        CHECK(clock_now_ns() < end);       /* a session that never ends */
        uv_run(&loop, UV_RUN_NOWAIT);
        if (agent.nsessions > 0 || uv_loop_alive(&loop))
            nanosleep(&ts, NULL);
    }
    CHECK(agent.l.npeers == 0 && agent.l.peers == NULL);
    CHECK(agent.active == NULL && agent.waiting == NULL);
    nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
