/* test_nfs_rpcstat: the RPC reply parser (agent/nfs_rpcstat.c) on built
 * replies, short and hostile ones included, and the name tables and set
 * arithmetic of common/nfs_rpc.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/nfs_rpcstat.h"
#include "common/nfs_rpc.h"

#define NFS 100003u

struct msg {
    unsigned char b[512];
    size_t n;
};

static void w32(struct msg *m, uint32_t v)
{
    m->b[m->n++] = (unsigned char)(v >> 24);
    m->b[m->n++] = (unsigned char)(v >> 16);
    m->b[m->n++] = (unsigned char)(v >> 8);
    m->b[m->n++] = (unsigned char)v;
}

/* xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, accept_stat */
static void accepted(struct msg *m, uint32_t astat)
{
    m->n = 0;
    w32(m, 0x1234);
    w32(m, 1);
    w32(m, 0);
    w32(m, 0);
    w32(m, 0);
    w32(m, astat);
}

static void test_nfs_rpcstat_v3_status(void **state)
{
    struct msg m;
    struct nfs_rpc_reply rep;
    char name[48];
    (void)state;

    accepted(&m, 0);
    w32(&m, 28);                                   /* nfsstat3 NFS3ERR_NOSPC */
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 3, 7, &rep), 0);
    assert_int_equal(rep.proc, NFSP_WRITE);
    assert_string_equal(nfs_status_name(rep.status, name, sizeof name), "NFS3ERR_NOSPC");

    accepted(&m, 0);
    w32(&m, 0);                                    /* NFS3_OK */
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 3, 6, &rep), 0);
    assert_int_equal(rep.proc, NFSP_READ);
    assert_int_equal(rep.status, 0);

    accepted(&m, 0);
    w32(&m, 10008);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 3, 21, &rep), 0);
    assert_int_equal(rep.proc, NFSP_COMMIT);
    assert_string_equal(nfs_status_name(rep.status, name, sizeof name), "NFS3ERR_JUKEBOX");

    /* NULL has no body; MOUNT is named by its program */
    accepted(&m, 0);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 3, 0, &rep), 0);
    assert_int_equal(rep.proc, NFSP_NULL);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, 100005u, 3, 1, &rep), 0);
    assert_int_equal(rep.proc, NFSP_MOUNT);
}

static void test_nfs_rpcstat_v4_significant_op(void **state)
{
    struct msg m;
    struct nfs_rpc_reply rep;
    char name[48];
    (void)state;

    /* PUTFH ok, GETATTR ok (bitmap 2 words, 8 bytes of attrs), ACCESS ok,
     * OPEN NFS4ERR_NOENT: the compound is an OPEN that failed */
    accepted(&m, 0);
    w32(&m, 2);                                    /* status NFS4ERR_NOENT */
    w32(&m, 3);                                    /* tag "abc" + pad */
    m.b[m.n++] = 'a'; m.b[m.n++] = 'b'; m.b[m.n++] = 'c'; m.b[m.n++] = 0;
    w32(&m, 4);
    w32(&m, 22); w32(&m, 0);
    w32(&m, 9); w32(&m, 0); w32(&m, 2); w32(&m, 1); w32(&m, 2); w32(&m, 8); w32(&m, 0); w32(&m, 0);
    w32(&m, 3); w32(&m, 0); w32(&m, 0x1f); w32(&m, 0x1f);
    w32(&m, 18); w32(&m, 2);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 4, 1, &rep), 0);
    assert_int_equal(rep.proc, NFSP_OPEN);
    assert_string_equal(nfs_status_name(rep.status, name, sizeof name), "NFS4ERR_NOENT");

    /* PUTFH, READ ok: READ; the READ body is never read */
    accepted(&m, 0);
    w32(&m, 0); w32(&m, 0); w32(&m, 2);
    w32(&m, 22); w32(&m, 0);
    w32(&m, 25); w32(&m, 0);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 4, 1, &rep), 0);
    assert_int_equal(rep.proc, NFSP_READ);
    assert_int_equal(rep.status, 0);

    /* PUTROOTFH, LOOKUP, GETFH, GETATTR: a LOOKUP (the first of rank 2) */
    accepted(&m, 0);
    w32(&m, 0); w32(&m, 0); w32(&m, 4);
    w32(&m, 24); w32(&m, 0);
    w32(&m, 15); w32(&m, 0);
    w32(&m, 10); w32(&m, 0); w32(&m, 4); w32(&m, 0xabcd);
    w32(&m, 9); w32(&m, 0); w32(&m, 0); w32(&m, 0);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 4, 1, &rep), 0);
    assert_int_equal(rep.proc, NFSP_LOOKUP);

    /* PUTFH failing: named PUTFH, NFS4ERR_DELAY */
    accepted(&m, 0);
    w32(&m, 10008); w32(&m, 0); w32(&m, 1);
    w32(&m, 22); w32(&m, 10008);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 4, 1, &rep), 0);
    assert_int_equal(rep.proc, NFSP_PUTFH);
    assert_string_equal(nfs_status_name(rep.status, name, sizeof name), "NFS4ERR_DELAY");
}

static void test_nfs_rpcstat_rpc_errors(void **state)
{
    struct msg m;
    struct nfs_rpc_reply rep;
    char name[48];
    (void)state;

    accepted(&m, 3);                               /* PROC_UNAVAIL */
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 3, 6, &rep), 0);
    assert_string_equal(nfs_status_name(rep.status, name, sizeof name), "RPC_PROC_UNAVAIL");
    m.n = 0;                                       /* MSG_DENIED, AUTH_ERROR */
    w32(&m, 1); w32(&m, 1); w32(&m, 1); w32(&m, 1);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 3, 6, &rep), 0);
    assert_string_equal(nfs_status_name(rep.status, name, sizeof name), "RPC_AUTH_ERROR");
}

/* Every prefix of valid replies, and hostile fields: never a read past
 * the end (ASan watches a heap copy of exactly len bytes), never a crash,
 * and the call's own identity when the reply is unreadable. */
static void test_nfs_rpcstat_short_and_hostile(void **state)
{
    struct msg m;
    struct nfs_rpc_reply rep;
    (void)state;

    accepted(&m, 0);
    w32(&m, 0); w32(&m, 0); w32(&m, 3);
    w32(&m, 22); w32(&m, 0);
    w32(&m, 9); w32(&m, 0); w32(&m, 1); w32(&m, 0); w32(&m, 4); w32(&m, 7);
    w32(&m, 38); w32(&m, 0);
    for (size_t len = 0; len <= m.n; len++) {
        unsigned char *copy = malloc(len ? len : 1);
        memcpy(copy, m.b, len);
        int rc = nfs_rpcstat_parse_reply(copy, len, NFS, 4, 1, &rep);
        if (len < 24 + 12)
            assert_int_equal(rc, -EBADMSG);
        assert_true(rep.proc < NFSP__COUNT);
        free(copy);
    }
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 4, 1, &rep), 0);
    assert_int_equal(rep.proc, NFSP_WRITE);

    assert_int_equal(nfs_rpcstat_parse_reply(NULL, 100, NFS, 3, 6, &rep), -EBADMSG);
    assert_int_equal(rep.proc, NFSP_READ);          /* the call's identity */
    assert_int_equal(rep.status, 0);

    m.n = 0;                                       /* a CALL, not a reply */
    w32(&m, 1); w32(&m, 0); w32(&m, 0);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 3, 6, &rep), -EBADMSG);
    m.n = 0;                                       /* verifier longer than allowed */
    w32(&m, 1); w32(&m, 1); w32(&m, 0); w32(&m, 0); w32(&m, 0xffffffffu);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 3, 6, &rep), -EBADMSG);
    accepted(&m, 77);                              /* unknown accept_stat */
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 3, 6, &rep), -EBADMSG);

    /* a tag of 4 GB, a count of 4 billion ops, a bitmap of 4 billion
     * words: each stops at the end of the buffer */
    accepted(&m, 0);
    w32(&m, 0); w32(&m, 0xfffffff0u); w32(&m, 1);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 4, 1, &rep), 0);
    assert_int_equal(rep.proc, NFSP_COMPOUND);
    accepted(&m, 0);
    w32(&m, 0); w32(&m, 0); w32(&m, 0xffffffffu);
    w32(&m, 22); w32(&m, 0);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 4, 1, &rep), 0);
    assert_int_equal(rep.proc, NFSP_PUTFH);
    accepted(&m, 0);
    w32(&m, 0); w32(&m, 0); w32(&m, 2);
    w32(&m, 9); w32(&m, 0); w32(&m, 0xffffffffu);
    assert_int_equal(nfs_rpcstat_parse_reply(m.b, m.n, NFS, 4, 1, &rep), 0);
    assert_int_equal(rep.proc, NFSP_GETATTR);
}

static void test_nfs_rpc_names(void **state)
{
    char name[48];
    (void)state;
    assert_string_equal(nfs_proc_name(NFSP_READDIRPLUS), "READDIRPLUS");
    assert_string_equal(nfs_proc_name(9999), "OTHER");
    assert_int_equal(nfs_proc_from_name("COMMIT"), NFSP_COMMIT);
    assert_int_equal(nfs_proc_from_name("commit"), -1);
    assert_int_equal(nfs_proc_v3(21), NFSP_COMMIT);
    assert_int_equal(nfs_proc_v3(22), NFSP_OTHER);
    assert_int_equal(nfs_proc_v4op(38), NFSP_WRITE);
    assert_int_equal(nfs_proc_v4op(1000), NFSP_OTHER);
    /* every name made from a code reads back as that code */
    static const uint32_t codes[] = {
        NFS_STATUS_CODE(3, 28), NFS_STATUS_CODE(3, 13), NFS_STATUS_CODE(4, 13),
        NFS_STATUS_CODE(4, 10008), NFS_STATUS_CODE(3, 10008), NFS_STATUS_CODE(4, 4242),
        NFS_STATUS_CODE(1, 101), NFS_STATUS_CODE(4, 10048),
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        assert_int_equal(nfs_status_from_name(nfs_status_name(codes[i], name, sizeof name)), codes[i]);
    assert_string_equal(nfs_status_name(NFS_STATUS_CODE(4, 13), name, sizeof name), "NFS4ERR_ACCESS");
    assert_string_equal(nfs_status_name(NFS_STATUS_CODE(3, 13), name, sizeof name), "NFS3ERR_ACCES");
    assert_string_equal(nfs_status_name(NFS_STATUS_CODE(4, 4242), name, sizeof name), "NFS4ERR_4242");
    assert_int_equal(nfs_status_from_name("NFS3ERR_NOSUCH"), -1);
    assert_int_equal(nfs_status_from_name("NFS3ERR_99999"), -1);
    assert_int_equal(nfs_status_from_name("EIO"), -1);
    assert_false(nfs_status_valid(NFS_STATUS_CODE(7, 1)));
}

static void test_nfs_rpc_set_merge_exact(void **state)
{
    struct nfs_rpc_set a, b, t;
    (void)state;
    nfs_rpc_set_init(&a);
    nfs_rpc_set_init(&b);
    nfs_rpc_set_init(&t);
    assert_true(nfs_rpc_set_empty(&a));
    struct nfs_rpc_proc *p = nfs_rpc_set_proc(&a, NFSP_WRITE);
    p->calls = 3;
    p->errors = 1;
    hist_record(&p->rtt, 1000);
    hist_record(&p->rtt, 2000);
    nfs_rpc_proc_error(p, NFS_STATUS_CODE(3, 28), 1);
    a.reconnects = 1;
    p = nfs_rpc_set_proc(&b, NFSP_WRITE);
    p->calls = 2;
    p->errors = 2;
    hist_record(&p->rtt, 3000);
    nfs_rpc_proc_error(p, NFS_STATUS_CODE(3, 28), 1);
    nfs_rpc_proc_error(p, NFS_STATUS_CODE(3, 69), 1);
    b.retransmits = 4;
    nfs_rpc_set_merge(&t, &a);
    nfs_rpc_set_merge(&t, &b);
    p = t.proc[NFSP_WRITE];
    assert_non_null(p);
    assert_int_equal(p->calls, 5);
    assert_int_equal(p->errors, 3);
    assert_int_equal(p->rtt.count, 3);
    assert_int_equal(p->rtt.sum_ns, 6000);
    assert_int_equal(p->nstatus, 2);
    assert_int_equal(p->status[0].code, NFS_STATUS_CODE(3, 28));
    assert_int_equal(p->status[0].n, 2);
    assert_int_equal(t.retransmits, 4);
    assert_int_equal(t.reconnects, 1);
    /* more distinct statuses than kept: the rest is counted apart */
    for (uint32_t i = 0; i < NFS_RPC_STATUS_MAX + 3; i++)
        nfs_rpc_proc_error(p, NFS_STATUS_CODE(4, 10010 + i), 1);
    assert_int_equal(p->nstatus, NFS_RPC_STATUS_MAX);
    assert_int_equal(p->status_other, 5);
    nfs_rpc_set_free(&a);
    nfs_rpc_set_free(&b);
    nfs_rpc_set_free(&t);
    assert_true(nfs_rpc_set_empty(&t));
}

/* The op split merges exactly, a set with only a split is not empty, its
 * client part is the rest, and parts beyond the latency are invalid. */
static void test_nfs_op_split(void **state)
{
    struct nfs_rpc_set a, t;
    (void)state;
    nfs_rpc_set_init(&a);
    nfs_rpc_set_init(&t);
    a.split[NFS_SPLIT_READ] = (struct nfs_op_split){ .ops = 2, .lat_ns = 1000, .rtt_ns = 600,
                                                     .queued_ns = 300, .late_ns = 0 };
    assert_false(nfs_rpc_set_empty(&a));
    nfs_rpc_set_merge(&t, &a);
    nfs_rpc_set_merge(&t, &a);
    assert_int_equal(t.split[NFS_SPLIT_READ].ops, 4);
    assert_int_equal(t.split[NFS_SPLIT_READ].lat_ns, 2000);
    assert_int_equal(nfs_op_split_client(&t.split[NFS_SPLIT_READ]), 200);
    assert_true(nfs_op_split_valid(&t.split[NFS_SPLIT_READ]));
    assert_int_equal(t.split[NFS_SPLIT_WRITE].ops, 0);
    t.split[NFS_SPLIT_READ].late_ns = 201;
    assert_false(nfs_op_split_valid(&t.split[NFS_SPLIT_READ]));
    t.split[NFS_SPLIT_READ].late_ns = UINT64_MAX;
    assert_false(nfs_op_split_valid(&t.split[NFS_SPLIT_READ]));
    nfs_rpc_set_free(&a);
    nfs_rpc_set_free(&t);
}

/* A LOOKUP answered NOENT is an answer (every create looks first): counted
 * in errors and status, not in failed; NOENT elsewhere is a failure. */
static void test_nfs_rpc_lookup_noent_not_failed(void **state)
{
    struct nfs_rpc_set s;
    uint64_t expected;
    (void)state;
    nfs_rpc_set_init(&s);
    struct nfs_rpc_proc *p = nfs_rpc_set_proc(&s, NFSP_LOOKUP);
    p->calls = 3;
    p->errors = 2;
    nfs_rpc_proc_error(p, NFS_STATUS_CODE(NFS_STATUS_CLASS_V3, 2), 1);
    nfs_rpc_proc_error(p, NFS_STATUS_CODE(NFS_STATUS_CLASS_V3, 13), 1);
    p = nfs_rpc_set_proc(&s, NFSP_READ);
    p->calls = 1;
    p->errors = 1;
    nfs_rpc_proc_error(p, NFS_STATUS_CODE(NFS_STATUS_CLASS_V3, 2), 1);
    p = nfs_rpc_set_proc(&s, NFSP_OPEN);
    p->calls = 1;
    assert_int_equal(nfs_rpc_set_failed(&s, &expected), 2);      /* EACCES lookup, NOENT read */
    assert_int_equal(expected, 1);
    assert_true(nfs_rpc_status_expected(NFSP_LOOKUP, NFS_STATUS_CODE(NFS_STATUS_CLASS_V4, 2)));
    assert_false(nfs_rpc_status_expected(NFSP_OPEN, NFS_STATUS_CODE(NFS_STATUS_CLASS_V4, 2)));
    nfs_rpc_set_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nfs_rpcstat_v3_status),
        cmocka_unit_test(test_nfs_rpcstat_v4_significant_op),
        cmocka_unit_test(test_nfs_rpcstat_rpc_errors),
        cmocka_unit_test(test_nfs_rpcstat_short_and_hostile),
        cmocka_unit_test(test_nfs_rpc_names),
        cmocka_unit_test(test_nfs_rpc_set_merge_exact),
        cmocka_unit_test(test_nfs_op_split),
        cmocka_unit_test(test_nfs_rpc_lookup_noent_not_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
