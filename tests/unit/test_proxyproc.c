/* test_proxyproc: the local NFS proxy of an efs-utils mount
 * (agent/proxyproc.c) on the fixtures of tests/fixtures/proc/ (a /proc
 * with efs-proxy, or stunnel, listening on the mount's port, its
 * connections to the mount target, and an unrelated sshd),
 * tests/fixtures/mountinfo/efs-utils.txt and the efs_*.txt mountstats:
 * which mounts and URLs point at a loopback port, the /proc/net/tcp,
 * /proc/PID/stat parsers on hostile and odd lines, the bytes between two
 * looks, and
 * the proxy's sample crossing the wire and the JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <jansson.h>

#include "agent/mountinfo.h"
#include "agent/mountstats.h"
#include "agent/proxyproc.h"
#include "coordinator/report/client_json.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "tests/unit/msg_frame_util.h"

#define FIX "tests/fixtures/"

static char *slurp(const char *path)
{
    char *t = mountstats_read(path);
    assert_non_null(t);
    return t;
}

/* efs-utils' mounts (mountinfo): 127.0.0.1:/ with port= is a proxy; a
 * direct mount to the file system, or a loopback mount without port=, is
 * not. */
static void test_proxyproc_mountinfo_efs_utils(void **state)
{
    char *t = slurp(FIX "mountinfo/efs-utils.txt");
    struct storage_info s;
    uint32_t port = 0;
    (void)state;

    assert_int_equal(mountinfo_find(t, "/mnt/efs/data", &s), 0);
    assert_string_equal(s.source, "127.0.0.1:/");
    assert_int_equal(proxyproc_mount_port(s.source, s.options, &port), 0);
    assert_int_equal(port, 20049);
    assert_int_equal(mountinfo_find(t, "/mnt/efs-old", &s), 0);
    assert_int_equal(proxyproc_mount_port(s.source, s.options, &port), 0);
    assert_int_equal(port, 20050);
    assert_int_equal(mountinfo_find(t, "/mnt/direct/x", &s), 0);
    assert_int_equal(proxyproc_mount_port(s.source, s.options, &port), -ENOENT);
    assert_int_equal(mountinfo_find(t, "/mnt/local-nfs", &s), 0);
    assert_int_equal(proxyproc_mount_port(s.source, s.options, &port), -ENOENT);
    free(t);
    /* odd options: mountport= is not port=, a port out of range or not a number */
    assert_int_equal(proxyproc_mount_port("127.0.0.1:/", "rw,mountport=20049", &port), -ENOENT);
    assert_int_equal(proxyproc_mount_port("127.0.0.1:/", "rw,port=0", &port), -ENOENT);
    assert_int_equal(proxyproc_mount_port("127.0.0.1:/", "rw,port=65536", &port), -ENOENT);
    assert_int_equal(proxyproc_mount_port("127.0.0.1:/", "rw,port=2x", &port), -ENOENT);
    assert_int_equal(proxyproc_mount_port("127.0.0.1:/", "rw,port=", &port), -ENOENT);
    assert_int_equal(proxyproc_mount_port("no-colon", "port=1", &port), -ENOENT);
    assert_int_equal(proxyproc_mount_port("[::1]:/", "rw,port=20051", &port), 0);
    assert_int_equal(port, 20051);
    assert_int_equal(proxyproc_mount_port("localhost:/", "rw,port=20052", &port), 0);
    assert_int_equal(port, 20052);
    /* addr= (the kernel's resolved address) decides over the source */
    assert_int_equal(proxyproc_mount_port("127.0.0.1:/", "port=20049,addr=10.0.1.5", &port), -ENOENT);
}

/* The same from mountstats' device and opts: lines (efs-proxy and stunnel
 * forms); mountstats_find still reads their counters. */
static void test_proxyproc_mountstats_efs_utils(void **state)
{
    char *p = slurp(FIX "mountstats/efs_proxy.txt"), *s = slurp(FIX "mountstats/efs_stunnel.txt");
    char *direct = slurp(FIX "mountstats/nfs41.txt");
    struct mountstats *m = calloc(1, sizeof *m);
    uint32_t port = 0;
    (void)state;

    assert_int_equal(proxyproc_mountstats_port(p, "/mnt/efs", &port), 0);
    assert_int_equal(port, 20049);
    assert_int_equal(proxyproc_mountstats_port(s, "/mnt/efs-old", &port), 0);
    assert_int_equal(port, 20050);
    assert_int_equal(proxyproc_mountstats_port(p, "/mnt/other", &port), -ENOENT);
    assert_int_equal(proxyproc_mountstats_port(direct, "/mnt/efs data", &port), -ENOENT);
    assert_int_equal(mountstats_find(p, "/mnt/efs", m), 0);
    assert_string_equal(m->fstype, "nfs4");
    assert_true(m->nops > 0);
    /* hostile: a device line cut short, an opts line without a device */
    assert_int_equal(proxyproc_mountstats_port("device 127.0.0.1:/ mounted on /mnt/efs\n"
                                               "\topts:\trw,port=20049\n", "/mnt/efs", &port), -ENOENT);
    assert_int_equal(proxyproc_mountstats_port("\topts:\trw,port=20049\n", "/mnt/efs", &port), -ENOENT);
    assert_int_equal(proxyproc_mountstats_port("device 127.0.0.1:/ mounted on /mnt/a\\040b with fstype nfs4\n"
                                               "\topts:\trw,port=20053\n", "/mnt/a b", &port), 0);
    assert_int_equal(port, 20053);
    free(m);
    free(p);
    free(s);
    free(direct);
}

static void test_proxyproc_url(void **state)
{
    uint32_t port = 0;
    (void)state;
    assert_int_equal(proxyproc_url_port("nfs://127.0.0.1/nfstorm?version=4&nfsport=20049", &port), 0);
    assert_int_equal(port, 20049);
    assert_int_equal(proxyproc_url_port("nfs://127.0.0.1:20055/x", &port), 0);
    assert_int_equal(port, 20055);
    assert_int_equal(proxyproc_url_port("nfs://[::1]/x?nfsport=20056", &port), 0);
    assert_int_equal(port, 20056);
    assert_int_equal(proxyproc_url_port("nfs://10.0.1.5/x?nfsport=2049", &port), -ENOENT);
    assert_int_equal(proxyproc_url_port("nfs://127.0.0.1/x", &port), -ENOENT);
    assert_int_equal(proxyproc_url_port("nfs://127.0.0.1/x?mountport=5&nfsport=99999", &port), -ENOENT);
    assert_int_equal(proxyproc_url_port("/mnt/efs", &port), -ENOENT);
}

static void test_proxyproc_tcp_line(void **state)
{
    struct proxyproc_sock s;
    char text[64];
    (void)state;
    assert_int_equal(proxyproc_tcp_line("   3: 0900000A:9C40 0501000A:0801 01 00000000:00000000 "
                                        "00:00000000 00000000     0        0 5003 1 0 100 0 0 10 0", 0, &s), 0);
    assert_int_equal(s.state, 1);
    assert_int_equal(s.local_port, 40000);
    assert_int_equal(s.remote_port, 2049);
    assert_int_equal(s.inode, 5003);
    proxyproc_remote_text(&s, text, sizeof text);
    assert_string_equal(text, "10.0.1.5:2049");
    /* IPv6: ::1 listening on 20049; fd00::5 as four host-order words */
    assert_int_equal(proxyproc_tcp_line("   0: 00000000000000000000000001000000:4E51 "
                                        "000000000000000000000000000000FD:0000 0A 00000000:00000000 "
                                        "00:00000000 00000000     0        0 9001 1", 1, &s), 0);
    assert_int_equal(s.local_port, 20049);
    assert_int_equal(s.state, 10);
    assert_int_equal(s.local[15], 1);
    assert_int_equal(proxyproc_tcp_line("   1: 000000FD000000000000000005000000:9C40 "
                                        "000000FD000000000000000005000000:0801 01 0:0 0:0 0 0 0 9002", 1, &s), 0);
    proxyproc_remote_text(&s, text, sizeof text);
    assert_string_equal(text, "[fd00::5]:2049");
    /* the header, short, bad hex, wrong widths, a v6 line read as v4, no inode */
    assert_int_equal(proxyproc_tcp_line("  sl  local_address rem_address   st tx_queue rx_queue tr "
                                        "tm->when retrnsmt   uid  timeout inode", 0, &s), -EINVAL);
    assert_int_equal(proxyproc_tcp_line("   3: 0900000A:9C40", 0, &s), -EINVAL);
    assert_int_equal(proxyproc_tcp_line("   3: 0900000Z:9C40 0501000A:0801 01 0:0 0:0 0 0 0 5", 0, &s), -EINVAL);
    assert_int_equal(proxyproc_tcp_line("   3: 900000A:9C40 0501000A:0801 01 0:0 0:0 0 0 0 5", 0, &s), -EINVAL);
    assert_int_equal(proxyproc_tcp_line("   3: 0900000A:9C40 0501000A:0801 1 0:0 0:0 0 0 0 5", 0, &s), -EINVAL);
    assert_int_equal(proxyproc_tcp_line("   3: 0900000A:9C40 0501000A:0801 01 0:0 0:0 0 0 0 5x", 0, &s), -EINVAL);
    assert_int_equal(proxyproc_tcp_line("   3: 0900000A:9C40 0501000A:0801 01 0:0 0:0 0 0 0 -5", 0, &s), -EINVAL);
    assert_int_equal(proxyproc_tcp_line("   1: 000000FD000000000000000005000000:9C40 "
                                        "000000FD000000000000000005000000:0801 01 0:0 0:0 0 0 0 9002", 0, &s), -EINVAL);
    {
        char long_line[PROXYPROC_LINE_MAX + 10];
        memset(long_line, 'A', sizeof long_line - 1);
        long_line[sizeof long_line - 1] = '\0';
        assert_int_equal(proxyproc_tcp_line(long_line, 0, &s), -EINVAL);
    }
}

static void test_proxyproc_stat_io(void **state)
{
    char name[CLIENT_PROXY_NAME_MAX];
    uint64_t ut = 0, st = 0;
    (void)state;
    assert_int_equal(proxyproc_stat_parse("4242 (efs-proxy) S 1 4242 4242 0 -1 4194560 900 0 0 0 150 50 0 0 "
                                          "20 0 3 0 12345\n", name, sizeof name, &ut, &st), 0);
    assert_string_equal(name, "efs-proxy");
    assert_int_equal(ut, 150);
    assert_int_equal(st, 50);
    /* a name with spaces, parentheses and a control byte: up to the last ')' */
    assert_int_equal(proxyproc_stat_parse("7 (a) b (\x01z) R 1 7 7 0 -1 0 0 0 0 0 9 8 0\n", name, sizeof name,
                                          &ut, &st), 0);
    assert_string_equal(name, "a) b (?z");
    assert_int_equal(ut, 9);
    assert_int_equal(st, 8);
    /* a very long name is cut to fit */
    assert_int_equal(proxyproc_stat_parse("7 (abcdefghijklmnopqrstuvwxyz) R 1 7 7 0 -1 0 0 0 0 0 9 8 0", name,
                                          sizeof name, &ut, &st), 0);
    assert_int_equal(strlen(name), sizeof name - 1);
    /* truncated, no parentheses, a negative or non-numeric time */
    assert_int_equal(proxyproc_stat_parse("7 (x) S 1 7 7 0", name, sizeof name, &ut, &st), -EINVAL);
    assert_int_equal(proxyproc_stat_parse("7 x S 1 7 7 0 -1 0 0 0 0 0 9 8", name, sizeof name, &ut, &st), -EINVAL);
    assert_int_equal(proxyproc_stat_parse("7 (x) S 1 7 7 0 -1 0 0 0 0 0 -9 8", name, sizeof name, &ut, &st),
                     -EINVAL);
    assert_int_equal(proxyproc_stat_parse("7 (x) S 1 7 7 0 -1 0 0 0 0 0 9z 8", name, sizeof name, &ut, &st),
                     -EINVAL);
    assert_int_equal(proxyproc_stat_parse("", name, sizeof name, &ut, &st), -EINVAL);
}

/* Bytes between two looks: per connection, a new one from its opening, a
 * counter that went back (an inode reused) from 0. */
static void test_proxyproc_bytes_delta(void **state)
{
    struct proxyproc_now then, now;
    uint64_t rx = 1, tx = 1;
    (void)state;
    memset(&then, 0, sizeof then);
    memset(&now, 0, sizeof now);
    then.nconn = 2;
    then.conn_inode[0] = 11, then.conn_rx[0] = 1000, then.conn_tx[0] = 100;
    then.conn_inode[1] = 12, then.conn_rx[1] = 5000, then.conn_tx[1] = 500;   /* closes */
    now.nconn = 3;
    now.conn_inode[0] = 11, now.conn_rx[0] = 4000, now.conn_tx[0] = 150;
    now.conn_inode[1] = 13, now.conn_rx[1] = 700, now.conn_tx[1] = 70;        /* new */
    now.conn_inode[2] = 12, now.conn_rx[2] = 10, now.conn_tx[2] = 1;          /* reused inode */
    proxyproc_bytes_delta(&now, &then, &rx, &tx);
    assert_int_equal(rx, 3000 + 700 + 10);
    assert_int_equal(tx, 50 + 70 + 1);
    now.nconn = 0;
    proxyproc_bytes_delta(&now, &then, &rx, &tx);
    assert_int_equal(rx, 0);
    assert_int_equal(tx, 0);
}

/* More connections than are followed: one that enters the followed set
 * (the kernel's table order moved) was open at the last look, so its
 * bytes before now are not this interval's; nor are those of one a
 * partial look may have missed.  A connection the last complete look did
 * not see at all is new and counts from its opening. */
static void test_proxyproc_bytes_delta_many(void **state)
{
    static struct proxyproc_now then, now;
    uint64_t rx = 0, tx = 0;
    (void)state;
    memset(&then, 0, sizeof then);
    memset(&now, 0, sizeof now);
    for (uint32_t i = 0; i < 70; i++)
        then.seen_inode[then.nseen++] = 100 + i;
    then.conns = 70;
    for (uint32_t i = 0; i < PROXYPROC_CONNS_MAX; i++) {
        then.conn_inode[then.nconn] = 100 + i;
        then.conn_rx[then.nconn] = 1000;
        then.conn_tx[then.nconn++] = 10;
    }
    /* now: 101..164 followed; 164 was open then (seen), with a long life */
    for (uint32_t i = 0; i < PROXYPROC_CONNS_MAX; i++) {
        now.conn_inode[now.nconn] = 101 + i;
        now.conn_rx[now.nconn] = 101 + i == 164 ? 1000000000ull : 3000;
        now.conn_tx[now.nconn++] = 101 + i == 164 ? 1000000000ull : 30;
    }
    proxyproc_bytes_delta(&now, &then, &rx, &tx);
    assert_int_equal(rx, 63u * 2000u);
    assert_int_equal(tx, 63u * 20u);
    /* a new one (not seen then) counts from its opening */
    now.conn_inode[63] = 999;
    proxyproc_bytes_delta(&now, &then, &rx, &tx);
    assert_int_equal(rx, 63u * 2000u + 1000000000ull);
    /* unless the look then may have missed it */
    then.partial = 1;
    proxyproc_bytes_delta(&now, &then, &rx, &tx);
    assert_int_equal(rx, 63u * 2000u);
}

/* A proxy that exited mid-run but was not reaped (a zombie: its stat is
 * still there, its fds are not) is gone, not a proxy with no connection;
 * a live process is read.  Real processes on the real /proc. */
static void test_proxyproc_read_zombie(void **state)
{
    struct proxyproc_now now;
    pid_t child;
    char path[64], text[512];
    (void)state;
    unsetenv(PROXYPROC_TEST_ENV);
    assert_int_equal(proxyproc_read("/proc", (uint32_t)getpid(), 1, &now), 0);
    child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(0);
    /* wait (bounded) until the kernel shows it exited, without reaping it */
    snprintf(path, sizeof path, "/proc/%d/stat", (int)child);
    for (int i = 0; i < 2000; i++) {
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f)
            fclose(f);
        text[n] = '\0';
        if (strstr(text, ") Z "))
            break;
        usleep(1000);
    }
    assert_non_null(strstr(text, ") Z "));
    assert_int_equal(proxyproc_read("/proc", (uint32_t)child, 1, &now), -ESRCH);
    assert_int_equal(waitpid(child, NULL, 0), child);
    assert_int_equal(proxyproc_read("/proc", (uint32_t)child, 1, &now), -ESRCH);
}

/* The whole path on a fixture /proc: the listener's owner is found, its
 * connections to the file system counted (not the accepted one, not
 * sshd's, not a TIME_WAIT), each remote once; CPU in microseconds. */
static void test_proxyproc_fixture_efs_proxy(void **state)
{
    struct proxyproc_now now;
    uint32_t pid = 0;
    long hz = sysconf(_SC_CLK_TCK);
    (void)state;
    setenv(PROXYPROC_TEST_ENV, FIX "proc/efs-proxy", 1);   /* a fixture: its inodes are made up */

    assert_int_equal(proxyproc_find(FIX "proc/efs-proxy", 20049, &pid), 0);
    assert_int_equal(pid, 4242);
    assert_int_equal(proxyproc_read(FIX "proc/efs-proxy", pid, 20049, &now), 0);
    assert_string_equal(now.name, "efs-proxy");
    assert_int_equal(now.conns, 3);
    assert_string_equal(now.remotes, "10.0.1.5:2049 10.0.1.6:2049");
    assert_string_equal(now.first_host, "10.0.1.5");
    assert_int_equal(now.utime_us, 150 * (1000000 / hz));
    assert_int_equal(now.stime_us, 50 * (1000000 / hz));
    /* bytes are not asked of the kernel for a fixture's made-up inodes */
    assert_int_equal(now.nconn, 3);
    assert_int_equal(now.conn_rx[0] + now.conn_tx[2], 0);
    /* nobody listens on another port; sshd's port 22 is not on loopback
     * but on any address: found, and it is sshd */
    assert_int_equal(proxyproc_find(FIX "proc/efs-proxy", 20050, &pid), -ENOENT);
    assert_int_equal(proxyproc_find(FIX "proc/efs-proxy", 22, &pid), 0);
    assert_int_equal(pid, 77);
    /* a process that is gone */
    assert_int_equal(proxyproc_read(FIX "proc/efs-proxy", 999, 20049, &now), -ESRCH);
    assert_int_equal(proxyproc_find(FIX "proc/missing", 20049, &pid), -ENOENT);
}

/* stunnel: one connection, and garbage lines in
 * /proc/net/tcp skipped (one with a bad hex digit names a listener on the
 * same port: not taken). */
static void test_proxyproc_fixture_stunnel(void **state)
{
    struct proxyproc_now now;
    uint32_t pid = 0;
    (void)state;
    setenv(PROXYPROC_TEST_ENV, FIX "proc/stunnel", 1);

    assert_int_equal(proxyproc_find(FIX "proc/stunnel", 20050, &pid), 0);
    assert_int_equal(pid, 3131);
    assert_int_equal(proxyproc_read(FIX "proc/stunnel", pid, 20050, &now), 0);
    assert_string_equal(now.name, "stunnel");
    assert_int_equal(now.conns, 1);
    assert_string_equal(now.remotes, "10.0.1.5:2049");
    assert_int_equal(now.nconn, 1);
}

static void same_proxy(const struct proxy_sample *a, const struct proxy_sample *b)
{
    assert_int_equal(a->present, b->present);
    assert_int_equal(a->pid, b->pid);
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->port, b->port);
    assert_int_equal(a->cpu_user_us, b->cpu_user_us);
    assert_int_equal(a->cpu_sys_us, b->cpu_sys_us);
    assert_int_equal(a->conns, b->conns);
    assert_string_equal(a->remotes, b->remotes);
    assert_int_equal(a->rx_bytes, b->rx_bytes);
    assert_int_equal(a->tx_bytes, b->tx_bytes);
    assert_string_equal(a->route_host, b->route_host);
}

/* The proxy's sample crosses the wire (the optional "proxy" map) and the
 * JSON, and a hostile one (a control byte) is refused. */
static void test_proxyproc_sample_round_trip(void **state)
{
    struct msg_interval in, out;
    struct client_sample back;
    struct buf b;
    char err[256];
    json_t *j;
    (void)state;

    memset(&in, 0, sizeof in);
    op_set_init(&in.stats);
    in.client.proxy = (struct proxy_sample){ .present = 1, .pid = 4242, .port = 20049, .cpu_user_us = 150000,
                                             .cpu_sys_us = 50000, .conns = 3, .rx_bytes = 1000,
                                             .tx_bytes = 2000 };
    snprintf(in.client.proxy.name, sizeof in.client.proxy.name, "efs-proxy");
    snprintf(in.client.proxy.remotes, sizeof in.client.proxy.remotes, "10.0.1.5:2049 10.0.1.6:2049");
    snprintf(in.client.proxy.route_host, sizeof in.client.proxy.route_host, "10.0.1.5");
    buf_init(&b);
    msg_interval_encode(&b, &in);
    assert_int_equal(DECODE(msg_interval_decode, b.data + 4, (uint32_t)(b.len - 4), &out, err, sizeof err), 0);
    same_proxy(&out.client.proxy, &in.client.proxy);
    assert_int_equal(out.client.host.present, 0);
    msg_interval_free(&out);
    buf_free(&b);

    j = json_pack("{so}", "proxy", client_json_proxy(&in.client.proxy));
    assert_int_equal(json_array_size(json_object_get(json_object_get(j, "proxy"), "remotes")), 2);
    assert_int_equal(client_json_parse(j, &back, err, sizeof err), 0);
    same_proxy(&back.proxy, &in.client.proxy);
    json_object_set_new(json_object_get(j, "proxy"), "remotes", json_pack("[s]", "a b"));
    assert_int_equal(client_json_parse(j, &back, err, sizeof err), -EINVAL);
    json_object_set_new(json_object_get(j, "proxy"), "remotes", json_pack("[]"));
    json_object_set_new(json_object_get(j, "proxy"), "port", json_integer(70000));
    assert_int_equal(client_json_parse(j, &back, err, sizeof err), -EINVAL);
    json_decref(j);

    /* a control byte in the name: the decoder refuses the message */
    in.client.proxy.name[2] = '\n';
    buf_init(&b);
    msg_interval_encode(&b, &in);
    assert_int_not_equal(DECODE(msg_interval_decode, b.data + 4, (uint32_t)(b.len - 4), &out, err, sizeof err), 0);
    assert_non_null(strstr(err, "proxy"));
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proxyproc_mountinfo_efs_utils),
        cmocka_unit_test(test_proxyproc_mountstats_efs_utils),
        cmocka_unit_test(test_proxyproc_url),
        cmocka_unit_test(test_proxyproc_tcp_line),
        cmocka_unit_test(test_proxyproc_stat_io),
        cmocka_unit_test(test_proxyproc_bytes_delta),
        cmocka_unit_test(test_proxyproc_bytes_delta_many),
        cmocka_unit_test(test_proxyproc_read_zombie),
        cmocka_unit_test(test_proxyproc_fixture_efs_proxy),
        cmocka_unit_test(test_proxyproc_fixture_stunnel),
        cmocka_unit_test(test_proxyproc_sample_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
