/* test_mountstats: the /proc/self/mountstats parser and its deltas
 * (agent/mountstats.c) on the fixtures of tests/fixtures/mountstats/:
 * NFSv3 over tcp, NFSv4.1 with two transports, statvers 1.0 (udp, no errors
 * column), truncated and garbled sections, mounts that are not NFS. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/mountstats.h"

#define FIX "tests/fixtures/mountstats/"

static char *fixture(const char *name)
{
    char path[256];
    char *t;
    snprintf(path, sizeof path, FIX "%s", name);
    t = mountstats_read(path);
    assert_non_null(t);
    return t;
}

static const struct ms_op *op(const struct mountstats *m, const char *name)
{
    for (uint32_t i = 0; i < m->nops; i++)
        if (strcmp(m->op[i].name, name) == 0)
            return &m->op[i];
    return NULL;
}

static const struct ms_op *dop(const struct ms_sample *m, const char *name)
{
    for (uint32_t i = 0; i < m->nops; i++)
        if (strcmp(m->op[i].name, name) == 0)
            return &m->op[i];
    return NULL;
}

static void test_mountstats_nfs3_tcp_every_field(void **state)
{
    struct mountstats *m = malloc(sizeof *m);
    char *t = fixture("nfs3_tcp.txt");
    const struct ms_op *o;
    (void)state;

    assert_int_equal(mountstats_find(t, "/mnt/nfs3", m), 0);
    assert_string_equal(m->mount, "/mnt/nfs3");
    assert_string_equal(m->fstype, "nfs");
    assert_string_equal(m->statvers, "1.1");
    assert_string_equal(m->xprt_proto, "tcp");
    assert_int_equal(m->nxprt, 1);
    assert_int_equal(m->age_s, 3600);
    /* tcp 871 1 2 0 4 5000 4998 1 15000 37 32 9000 120 */
    assert_int_equal(m->xprt.connects, 2);
    assert_int_equal(m->xprt.sends, 5000);
    assert_int_equal(m->xprt.recvs, 4998);
    assert_int_equal(m->xprt.bad_xids, 1);
    assert_int_equal(m->xprt.req_u, 15000);
    assert_int_equal(m->xprt.backlog_u, 37);
    assert_int_equal(m->nops, 8);
    assert_string_equal(m->op[0].name, "NULL");
    assert_string_equal(m->op[7].name, "COMMIT");
    o = op(m, "READ");
    assert_non_null(o);
    assert_int_equal(o->ops, 100);
    assert_int_equal(o->ntrans, 101);
    assert_int_equal(o->timeouts, 1);
    assert_int_equal(o->bytes_sent, 13600);
    assert_int_equal(o->bytes_recv, 410000);
    assert_int_equal(o->queue_ms, 12);
    assert_int_equal(o->rtt_ms, 900);
    assert_int_equal(o->execute_ms, 915);
    assert_int_equal(o->errors, 0);
    o = op(m, "LOOKUP");
    assert_int_equal(o->errors, 4);
    free(t);
    free(m);
}

static void test_mountstats_nfs41_sums_transports_and_escapes(void **state)
{
    struct mountstats *m = malloc(sizeof *m);
    char *t = fixture("nfs41.txt");
    (void)state;

    assert_int_equal(mountstats_find(t, "/mnt/efs data", m), 0);
    assert_string_equal(m->fstype, "nfs4");
    assert_int_equal(m->nxprt, 2);
    assert_int_equal(m->xprt.connects, 3);
    assert_int_equal(m->xprt.sends, 3000);
    assert_int_equal(m->xprt.recvs, 2997);
    assert_int_equal(m->xprt.bad_xids, 1);
    assert_int_equal(m->xprt.req_u, 10000);
    assert_int_equal(m->xprt.backlog_u, 11);
    assert_int_equal(m->nops, 9);
    assert_int_equal(op(m, "WRITE")->errors, 3);
    assert_int_equal(op(m, "WRITE")->ntrans, 1201);
    assert_int_equal(op(m, "EXCHANGE_ID")->ops, 1);
    assert_string_equal(m->op[8].name, "TEST_STATEID");
    /* the escaped form is not the mount point */
    assert_int_equal(mountstats_find(t, "/mnt/efs\\040data", m), -ENOENT);
    free(t);
    free(m);
}

static void test_mountstats_statvers10_udp_no_errors_column(void **state)
{
    struct mountstats *m = malloc(sizeof *m);
    char *t = fixture("statvers10.txt");
    (void)state;

    assert_int_equal(mountstats_find(t, "/mnt/old", m), 0);
    assert_string_equal(m->statvers, "1.0");
    assert_string_equal(m->xprt_proto, "udp");
    /* udp 900 1 640 638 2 1900 17 */
    assert_int_equal(m->xprt.connects, 0);
    assert_int_equal(m->xprt.sends, 640);
    assert_int_equal(m->xprt.recvs, 638);
    assert_int_equal(m->xprt.bad_xids, 2);
    assert_int_equal(m->xprt.req_u, 1900);
    assert_int_equal(m->xprt.backlog_u, 17);
    assert_int_equal(m->nops, 3);
    assert_int_equal(op(m, "READ")->ops, 64);
    assert_int_equal(op(m, "READ")->timeouts, 2);
    assert_int_equal(op(m, "READ")->execute_ms, 710);
    assert_int_equal(op(m, "READ")->errors, 0);
    free(t);
    free(m);
}

static void test_mountstats_truncated_and_garbled_rejected(void **state)
{
    struct mountstats *m = malloc(sizeof *m);
    char *t = fixture("truncated.txt"), *g = fixture("garbled.txt");
    (void)state;

    assert_int_equal(mountstats_find(t, "/mnt/cut", m), -EBADMSG);
    assert_int_equal(m->nops, 0);
    assert_int_equal(mountstats_find(g, "/mnt/garbled", m), -EBADMSG);     /* "1O1" */
    assert_int_equal(mountstats_find(g, "/mnt/xprtshort", m), -EBADMSG);   /* 6 tcp fields */
    assert_int_equal(mountstats_find(g, "/mnt/overflow", m), -EBADMSG);    /* 2^64 */
    /* a bad neighbour does not spoil a good section */
    assert_int_equal(mountstats_find(g, "/mnt/good", m), 0);
    assert_int_equal(op(m, "READ")->ops, 7);
    assert_int_equal(m->xprt.sends, 10);
    free(t);
    free(g);
    free(m);
}

static void test_mountstats_not_nfs_and_absent(void **state)
{
    struct mountstats *m = malloc(sizeof *m);
    char *t = fixture("nonnfs.txt"), *n3 = fixture("nfs3_tcp.txt");
    (void)state;

    assert_int_equal(mountstats_find(t, "/tmp", m), -EMEDIUMTYPE);
    assert_string_equal(m->fstype, "tmpfs");
    assert_string_equal(m->mount, "/tmp");
    assert_int_equal(m->nops, 0);
    assert_int_equal(mountstats_find(t, "/", m), -EMEDIUMTYPE);
    assert_string_equal(m->fstype, "ext4");
    assert_int_equal(mountstats_find(t, "/mnt/nfs3", m), -ENOENT);
    assert_int_equal(mountstats_find(n3, "/proc", m), -EMEDIUMTYPE);
    assert_int_equal(mountstats_find("", "/", m), -ENOENT);
    free(t);
    free(n3);
    free(m);
}

static void test_mountstats_delta_counts_the_span(void **state)
{
    struct mountstats *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    struct ms_sample *d = malloc(sizeof *d);
    char *t0 = fixture("nfs3_tcp.txt"), *t1 = fixture("nfs3_tcp_later.txt");
    const struct ms_op *o;
    (void)state;

    assert_int_equal(mountstats_find(t0, "/mnt/nfs3", a), 0);
    assert_int_equal(mountstats_find(t1, "/mnt/nfs3", b), 0);
    mountstats_delta(b, a, d);
    assert_int_equal(d->present, 1);
    assert_string_equal(d->mount, "/mnt/nfs3");
    assert_int_equal(d->xprt.connects, 1);
    assert_int_equal(d->xprt.sends, 400);
    assert_int_equal(d->xprt.recvs, 399);
    assert_int_equal(d->xprt.bad_xids, 1);
    assert_int_equal(d->xprt.req_u, 1300);
    assert_int_equal(d->xprt.backlog_u, 4);
    /* only the operations that moved: GETATTR, READ, WRITE */
    assert_int_equal(d->nops, 3);
    o = dop(d, "READ");
    assert_non_null(o);
    assert_int_equal(o->ops, 250);
    assert_int_equal(o->ntrans, 252);
    assert_int_equal(o->timeouts, 2);
    assert_int_equal(o->bytes_sent, 34000);
    assert_int_equal(o->bytes_recv, 1024000);
    assert_int_equal(o->queue_ms, 8);
    assert_int_equal(o->rtt_ms, 2000);
    assert_int_equal(o->execute_ms, 2035);
    assert_int_equal(o->errors, 1);
    assert_int_equal(dop(d, "WRITE")->ops, 130);
    assert_int_equal(dop(d, "WRITE")->bytes_sent, 549000);
    assert_int_equal(dop(d, "GETATTR")->ops, 10);
    assert_null(dop(d, "NULL"));
    /* counters going backwards (a remount) count from zero */
    mountstats_delta(a, b, d);
    assert_int_equal(dop(d, "READ")->ops, 100);
    assert_int_equal(d->xprt.sends, 5000);
    /* nothing moved: nothing listed */
    mountstats_delta(a, a, d);
    assert_int_equal(d->nops, 0);
    assert_int_equal(d->xprt.sends, 0);
    free(t0);
    free(t1);
    free(a);
    free(b);
    free(d);
}

/* Hostile text: bounded everywhere, never a crash. */
static void test_mountstats_hostile_text_bounded(void **state)
{
    struct mountstats *m = malloc(sizeof *m);
    size_t cap = 200000;
    char *t = malloc(cap), *p;
    (void)state;

    /* more operations than MS_OPS_MAX */
    p = t + sprintf(t, "device s:/ mounted on /m with fstype nfs statvers=1.1\n\tper-op statistics\n");
    for (int i = 0; i < MS_OPS_MAX + 5; i++)
        p += sprintf(p, "\tOP%d: 1 1 0 1 1 0 0 0 0\n", i);
    assert_int_equal(mountstats_find(t, "/m", m), -EBADMSG);
    /* an overlong operation name, an overlong mount point, many numbers */
    sprintf(t, "device s:/ mounted on /m with fstype nfs\n\tper-op statistics\n"
               "\tAVERYVERYVERYLONGOPERATIONNAME: 1 1 0 1 1 0 0 0 0\n");
    assert_int_equal(mountstats_find(t, "/m", m), -EBADMSG);
    p = t + sprintf(t, "device s:/ mounted on /");
    memset(p, 'x', 5000);
    strcpy(p + 5000, " with fstype nfs\n");
    assert_int_equal(mountstats_find(t, "/m", m), -ENOENT);
    p = t + sprintf(t, "device s:/ mounted on /m with fstype nfs\n\txprt:\ttcp");
    for (int i = 0; i < 100; i++)
        p += sprintf(p, " 1");
    strcpy(p, "\n");
    assert_int_equal(mountstats_find(t, "/m", m), -EBADMSG);
    /* half a header, a header without a type, an unknown transport */
    assert_int_equal(mountstats_find("device s:/ mounted on /m with", "/m", m), -ENOENT);
    assert_int_equal(mountstats_find("device\ndevice s:/ mounted\n", "/m", m), -ENOENT);
    assert_int_equal(mountstats_find("device s:/ mounted on /m with fstype nfs\n\txprt: local 1 2\n",
                                     "/m", m), 0);
    assert_int_equal(m->nxprt, 0);
    /* the later of two sections of one mount point wins */
    assert_int_equal(mountstats_find("device a mounted on /m with fstype nfs\n\tper-op statistics\n"
                                     "\tREAD: 1 1 0 1 1 0 0 0 0\n"
                                     "device b mounted on /m with fstype nfs4\n\tper-op statistics\n"
                                     "\tREAD: 9 9 0 1 1 0 0 0 0\n", "/m", m), 0);
    assert_string_equal(m->fstype, "nfs4");
    assert_int_equal(op(m, "READ")->ops, 9);
    assert_null(mountstats_read("/nonexistent/mountstats"));
    free(t);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mountstats_nfs3_tcp_every_field),
        cmocka_unit_test(test_mountstats_nfs41_sums_transports_and_escapes),
        cmocka_unit_test(test_mountstats_statvers10_udp_no_errors_column),
        cmocka_unit_test(test_mountstats_truncated_and_garbled_rejected),
        cmocka_unit_test(test_mountstats_not_nfs_and_absent),
        cmocka_unit_test(test_mountstats_delta_counts_the_span),
        cmocka_unit_test(test_mountstats_hostile_text_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
