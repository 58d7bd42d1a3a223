/* test_client_result: the agents' own measurements on the coordinator
 * (coordinator/result/client_result.c, client_json.c, client_report.c) and the
 * agent's /proc/net/dev parser (agent/nicstat.c): the CPU rule (cores it
 * may use, or one core per job thread) and the NIC rule with their warning
 * lines, storage of intervals and phases, the JSON form's round trip and
 * its refusal of hostile values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/nicstat.h"
#include "common/xmalloc.h"
#include "coordinator/report/client_json.h"
#include "coordinator/report/client_report.h"
#include "coordinator/result/client_result.h"

static void one_job_plan(struct plan *p)
{
    struct job_spec j;
    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "j");
    j.rw = RW_RANDREAD;
    j.bs = 4096;
    j.size = 1 << 20;
    plan_add_job(p, &j);
}

static void sample(struct client_sample *s, double cpu, uint32_t cores, uint32_t threads,
                   uint64_t rx, uint32_t speed)
{
    memset(s, 0, sizeof *s);
    s->host.present = 1;
    s->host.cpu_user_s = cpu * 0.75;
    s->host.cpu_sys_s = cpu * 0.25;
    s->host.cores = cores;
    s->host.threads = threads;
    snprintf(s->host.nic, sizeof s->host.nic, "eth0");
    s->host.rx_bytes = rx;
    s->host.tx_bytes = rx / 10;
    s->host.speed_mbps = speed;
}

static char *text_of(const struct run_result *r, uint32_t a, const char *host)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    client_report_bound_lines(out, r, 0, a, host);
    client_report_text(out, r, 0);
    fclose(out);
    return buf;
}

static void test_client_bound_rules_and_lines(void **state)
{
    struct plan p;
    struct run_result r;
    struct client_sample *s = xmalloc(sizeof *s);
    char *t;
    (void)state;

    one_job_plan(&p);
    result_init(&r, &p, 3, 1000);
    for (uint32_t a = 0; a < 3; a++) {
        r.agents[a].id = a;
        r.phases[0].agents[a].done = 1;
        r.phases[0].agents[a].duration_ns = 2000000000ull;
        r.phases[0].agents[a].cores = 8;
    }
    /* agent 0: 1.9 CPU-s of 2 s, 1 core allowed, 4 threads: the cores rule */
    sample(s, 1.9, 1, 4, 1000, 0);
    assert_int_equal(client_result_set_phase(&r, 0, 0, s), 0);
    /* agent 1: 3.7 of 2 s on 8 cores with 2 threads: the threads rule */
    sample(s, 3.7, 8, 2, 1000, 0);
    assert_int_equal(client_result_set_phase(&r, 0, 1, s), 0);
    /* agent 2: light CPU, 2.4 GB/s of rx on a 20 Gbit/s link: 96% */
    sample(s, 0.2, 8, 2, 4800000000ull, 20000);
    assert_int_equal(client_result_set_phase(&r, 0, 2, s), 0);

    assert_true(client_report_cpu_bound(&r, 0, 0));
    assert_true(client_report_cpu_bound(&r, 0, 1));
    assert_false(client_report_cpu_bound(&r, 0, 2));
    assert_false(client_report_nic_bound(&r, 0, 0));
    assert_true(client_report_nic_bound(&r, 0, 2));

    t = text_of(&r, 0, "a0");
    assert_non_null(strstr(t, "warning: agent 0 (a0) client-bound: CPU 0.95 of 1 cores busy "
                              "(95%; rule: the cores it may use)\n"));
    free(t);
    t = text_of(&r, 1, "a1");
    assert_non_null(strstr(t, "warning: agent 1 (a1) client-bound: CPU 1.85 cores busy, 92% of 2 "
                              "(rule: one core per job thread)\n"));
    free(t);
    t = text_of(&r, 2, "a2");
    assert_non_null(strstr(t, "warning: agent 2 (a2) NIC-bound: 96% of eth0's 20000 Mbit/s link\n"));
    assert_null(strstr(t, "client-bound"));
    free(t);

    /* 89%: no claim; unknown speed: no claim however many bytes */
    sample(s, 1.78, 1, 4, 1ull << 40, 0);
    client_result_set_phase(&r, 0, 0, s);
    assert_false(client_report_cpu_bound(&r, 0, 0));
    assert_false(client_report_nic_bound(&r, 0, 0));
    /* no host sample: the phase-done's CPU on its cores (the old rule) */
    result_free(&r);
    result_init(&r, &p, 1, 1000);
    r.phases[0].agents[0].duration_ns = 1000000000ull;
    r.phases[0].agents[0].cores = 2;
    r.phases[0].agents[0].cpu_user_s = 1.85;
    assert_true(client_report_cpu_bound(&r, 0, 0));
    r.phases[0].agents[0].cores = 4;
    assert_false(client_report_cpu_bound(&r, 0, 0));
    /* a 158 us phase whose CPU span held the files' opening: 5 ms of CPU
     * reads as 31.6 cores of 2; and a 0.5 s phase at 1.9 of 2 cores: the
     * span is not the phase's time there, so no claim either way */
    r.phases[0].agents[0].cores = 2;
    r.phases[0].agents[0].duration_ns = 158000;
    r.phases[0].agents[0].cpu_user_s = 0.005;
    assert_false(client_report_cpu_bound(&r, 0, 0));
    r.phases[0].agents[0].duration_ns = 500000000ull;
    r.phases[0].agents[0].cpu_user_s = 0.95;
    assert_false(client_report_cpu_bound(&r, 0, 0));
    /* 2.5 cores of 2 over a whole second: more than the cores could give */
    r.phases[0].agents[0].duration_ns = 1000000000ull;
    r.phases[0].agents[0].cpu_user_s = 2.5;
    assert_false(client_report_cpu_bound(&r, 0, 0));
    r.phases[0].agents[0].cpu_user_s = 2.1;   /* within the sampling's slack: judged */
    assert_true(client_report_cpu_bound(&r, 0, 0));
    result_free(&r);
    plan_free(&p);
    free(s);
}

static void ms_sample(struct client_sample *s, uint64_t reads)
{
    memset(s, 0, sizeof *s);
    s->ms.present = 1;
    snprintf(s->ms.mount, sizeof s->ms.mount, "/mnt/efs");
    s->ms.xprt = (struct ms_xprt){ 1, 400, 399, 1, 1300, 4 };
    s->ms.nops = 2;
    s->ms.op[0] = (struct ms_op){ "READ", reads, reads + 2, 2, 34000, 1024000, 8, 2000, 2035, 1 };
    s->ms.op[1] = (struct ms_op){ "WRITE", 130, 130, 0, 549000, 17680, 12, 1300, 1340, 0 };
}

static void test_client_store_json_roundtrip(void **state)
{
    struct plan p;
    struct run_result r;
    struct client_sample *s = xmalloc(sizeof *s), *back = xmalloc(sizeof *back);
    const struct client_iv *iv;
    json_t *o;
    char why[200], *t;
    (void)state;

    one_job_plan(&p);
    result_init(&r, &p, 1, 1000);
    r.phases[0].agents[0].duration_ns = 2000000000ull;
    ms_sample(s, 250);
    s->host = (struct host_sample){ .present = 1, .cpu_user_s = 0.5, .cpu_sys_s = 0.25, .cores = 2,
                                    .threads = 1, .nic = "lo", .rx_bytes = 7, .tx_bytes = 9 };
    assert_int_equal(client_result_add_interval(&r, 0, 0, 5, s), 0);
    assert_int_equal(client_result_add_interval(&r, 1, 0, 0, s), -EINVAL);
    assert_int_equal(client_result_add_interval(&r, 0, 1, 0, s), -EINVAL);
    assert_int_equal(client_result_add_interval(&r, 0, 0, RESULT_MAX_INTERVALS, s), -EINVAL);
    assert_null(client_result_iv(&r, 0, 0, 4));      /* a gap */
    iv = client_result_iv(&r, 0, 0, 5);
    assert_non_null(iv);
    assert_int_equal(iv->ms->nops, 2);
    assert_int_equal(iv->ms->op[0].ops, 250);
    assert_string_equal(client_result_agent(&r, 0, 0)->mount, "/mnt/efs");

    /* the JSON form and back: every field */
    o = json_object();
    client_json_put_iv(o, iv, "/mnt/efs", 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "host"), "cpu_us")), 750000);
    {
        int has_static = 0;
        assert_int_equal(client_json_parse_iv(o, back, &has_static, why, sizeof why), 0);
        assert_true(has_static);
    }
    assert_true(back->host.present && back->ms.present);
    assert_true(back->host.cpu_user_s == 0.75 && back->host.cpu_sys_s == 0);
    assert_int_equal(back->host.cores, 2);
    assert_string_equal(back->host.nic, "lo");
    assert_int_equal(back->host.tx_bytes, 9);
    assert_string_equal(back->ms.mount, "/mnt/efs");
    assert_memory_equal(&back->ms.xprt, &s->ms.xprt, sizeof s->ms.xprt);
    assert_int_equal(back->ms.nops, 2);
    assert_memory_equal(&back->ms.op[0], &s->ms.op[0], sizeof s->ms.op[0]);
    assert_memory_equal(&back->ms.op[1], &s->ms.op[1], sizeof s->ms.op[1]);
    json_decref(o);

    /* the phase's text section: xprt and per-op averages */
    client_result_set_phase(&r, 0, 0, s);
    t = text_of(&r, 0, "h");
    assert_non_null(strstr(t, "mountstats: agent 0 /mnt/efs: xprt sends 400 recvs 399 bad_xids 1 "
                              "connects 1 backlog 0.01\n"));
    assert_non_null(strstr(t, "rtt 8.000 exe 8.140 queue 0.032 ms/op retrans 2 timeouts 2 errors 1\n"));
    assert_non_null(strstr(t, "  WRITE              130 ops     65.0/s"));
    free(t);
    /* a note alone */
    memset(s, 0, sizeof *s);
    snprintf(s->ms.note, sizeof s->ms.note, "/d: not an NFS mount (ext4); no mountstats");
    client_result_set_phase(&r, 0, 0, s);
    assert_null(client_result_agent(&r, 0, 0)->ms);
    t = text_of(&r, 0, "h");
    assert_non_null(strstr(t, "note: agent 0: /d: not an NFS mount (ext4); no mountstats\n"));
    free(t);
    result_free(&r);
    plan_free(&p);
    free(s);
    free(back);
}

/* The result's interval columns: out and back exactly; hostile columns
 * refused. */
static void test_client_interval_columns(void **state)
{
    struct plan p;
    struct run_result r, back;
    struct client_sample *s = xmalloc(sizeof *s);
    json_t *col, *bad;
    char why[200];
    (void)state;

    one_job_plan(&p);
    result_init(&r, &p, 3, 1000);
    result_init(&back, &p, 3, 1000);
    assert_null(client_json_interval(&r, 0, 0));
    sample(s, 0.5, 2, 1, 1000, 100);
    client_result_add_interval(&r, 0, 0, 0, s);
    ms_sample(s, 7);
    s->host.present = 1;
    s->host.cpu_user_s = 0.125;
    snprintf(s->host.nic, sizeof s->host.nic, "eth1");
    client_result_add_interval(&r, 0, 2, 0, s);      /* agent 1 sent nothing */
    col = client_json_interval(&r, 0, 0);
    assert_non_null(col);
    assert_int_equal(json_array_size(json_object_get(col, "nic")), 3);
    assert_string_equal(json_string_value(json_array_get(json_object_get(col, "nic"), 2)), "eth1");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(col, "sent"), 1)), 0);
    assert_true(json_is_null(json_array_get(json_object_get(col, "mountstats"), 0)));
    assert_int_equal(client_json_load_interval(col, &back, 0, 0, why, sizeof why), 0);
    assert_null(client_result_iv(&back, 0, 1, 0));
    for (uint32_t a = 0; a < 3; a += 2) {
        const struct host_sample *x = &client_result_iv(&back, 0, a, 0)->host;
        const struct host_sample *y = &client_result_iv(&r, 0, a, 0)->host;
        assert_true(x->cpu_user_s + x->cpu_sys_s == y->cpu_user_s + y->cpu_sys_s);
        assert_int_equal(x->cores, y->cores);
        assert_int_equal(x->threads, y->threads);
        assert_string_equal(x->nic, y->nic);
        assert_int_equal(x->rx_bytes, y->rx_bytes);
        assert_int_equal(x->tx_bytes, y->tx_bytes);
        assert_int_equal(x->speed_mbps, y->speed_mbps);
    }
    /* the next interval: the statics unchanged, left out, inherited */
    sample(s, 0.25, 2, 1, 500, 100);
    client_result_add_interval(&r, 0, 0, 1, s);
    {
        json_t *c1 = client_json_interval(&r, 0, 1);
        assert_null(json_object_get(c1, "nic"));
        assert_int_equal(json_integer_value(json_array_get(json_object_get(c1, "cpu_us"), 0)), 250000);
        assert_int_equal(client_json_load_interval(c1, &back, 0, 1, why, sizeof why), 0);
        assert_string_equal(client_result_iv(&back, 0, 0, 1)->host.nic, "eth0");
        assert_int_equal(client_result_iv(&back, 0, 0, 1)->host.speed_mbps, 100);
        assert_false(client_result_iv(&back, 0, 0, 1)->static_new);
        json_decref(c1);
    }
    assert_int_equal(client_result_iv(&back, 0, 2, 0)->ms->nops, 2);
    assert_int_equal(client_result_iv(&back, 0, 2, 0)->ms->op[0].ops, 7);
    assert_string_equal(client_result_agent(&back, 0, 2)->mount, "/mnt/efs");
    /* a short column, a bad sent value, a bad cell */
    bad = json_deep_copy(col);
    json_array_remove(json_object_get(bad, "rx_bytes"), 0);
    assert_int_equal(client_json_load_interval(bad, &back, 0, 0, why, sizeof why), -EINVAL);
    assert_non_null(strstr(why, "rx_bytes"));
    json_decref(bad);
    bad = json_deep_copy(col);
    json_array_set_new(json_object_get(bad, "sent"), 0, json_integer(2));
    assert_int_equal(client_json_load_interval(bad, &back, 0, 0, why, sizeof why), -EINVAL);
    json_decref(bad);
    bad = json_deep_copy(col);
    json_array_set_new(json_object_get(bad, "cpu_us"), 0, json_string("x"));
    assert_int_equal(client_json_load_interval(bad, &back, 0, 0, why, sizeof why), -EINVAL);
    json_decref(bad);
    json_decref(col);
    result_free(&r);
    result_free(&back);
    plan_free(&p);
    free(s);
}

static int parse_text(const char *json, char *why, size_t len)
{
    struct client_sample *s = xmalloc(sizeof *s);
    json_t *o = json_loads(json, 0, NULL);
    int rc;
    assert_non_null(o);
    rc = client_json_parse(o, s, why, len);
    json_decref(o);
    free(s);
    return rc;
}

static void test_client_json_hostile(void **state)
{
    char why[200], big[8192];
    size_t n;
    (void)state;

    assert_int_equal(parse_text("{}", why, sizeof why), 0);
    assert_int_equal(parse_text("{\"host\": 3}", why, sizeof why), -EINVAL);
    assert_int_equal(parse_text("{\"host\": {\"cpu_user_s\": -1, \"cpu_sys_s\": 0, \"cores\": 1, "
                                "\"threads\": 1, \"nic\": {\"name\": \"lo\", \"rx_bytes\": 0, "
                                "\"tx_bytes\": 0, \"speed_mbps\": 0}}}", why, sizeof why), -EINVAL);
    assert_non_null(strstr(why, "cpu_user_s"));
    assert_int_equal(parse_text("{\"host\": {\"cpu_user_s\": 1, \"cpu_sys_s\": 0, \"cores\": 1, "
                                "\"threads\": 1, \"nic\": {\"name\": \"l o\", \"rx_bytes\": 0, "
                                "\"tx_bytes\": 0, \"speed_mbps\": 0}}}", why, sizeof why), -EINVAL);
    assert_int_equal(parse_text("{\"host\": {\"cpu_user_s\": 1, \"cpu_sys_s\": 0, \"cores\": 5000000000, "
                                "\"threads\": 1, \"nic\": {\"name\": \"lo\", \"rx_bytes\": 0, "
                                "\"tx_bytes\": 0, \"speed_mbps\": 0}}}", why, sizeof why), -EINVAL);
    assert_int_equal(parse_text("{\"mountstats\": {\"mount\": \"/m\\u0001\"}}", why, sizeof why), -EINVAL);
    assert_int_equal(parse_text("{\"mountstats\": {\"mount\": \"/m\", \"xprt\": {}}}", why, sizeof why), -EINVAL);
    assert_int_equal(parse_text("{\"mountstats\": {\"mount\": \"/m\", \"xprt\": {\"connects\": 0, "
                                "\"sends\": 0, \"recvs\": 0, \"bad_xids\": 0, \"req_u\": 0, \"backlog_u\": 0}, "
                                "\"per_op\": {\"BAD NAME\": {}}}}", why, sizeof why), -EINVAL);
    assert_int_equal(parse_text("{\"mountstats\": {\"mount\": \"/m\", \"xprt\": {\"connects\": 0, "
                                "\"sends\": 0, \"recvs\": 0, \"bad_xids\": 0, \"req_u\": 0, \"backlog_u\": 0}, "
                                "\"per_op\": {\"READ\": {\"ops\": 1}}}}", why, sizeof why), -EINVAL);
    /* more operations than MS_OPS_MAX */
    n = (size_t)snprintf(big, sizeof big, "{\"mountstats\": {\"mount\": \"/m\", \"xprt\": {\"connects\": 0, "
                         "\"sends\": 0, \"recvs\": 0, \"bad_xids\": 0, \"req_u\": 0, \"backlog_u\": 0}, "
                         "\"per_op\": {");
    for (int i = 0; i < MS_OPS_MAX + 1; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%s\"O%d\": {}", i ? "," : "", i);
    snprintf(big + n, sizeof big - n, "}}}");
    assert_int_equal(parse_text(big, why, sizeof why), -EINVAL);
    /* an overlong mount point */
    n = (size_t)snprintf(big, sizeof big, "{\"mountstats\": {\"mount\": \"");
    memset(big + n, 'x', 300);
    snprintf(big + n + 300, sizeof big - n - 300, "\"}}");
    assert_int_equal(parse_text(big, why, sizeof why), -EINVAL);
}

/* Intervals kept in blocks, packed once the agent moved past them: 300
 * intervals (with gaps, a nic change, mountstats and a late one into a
 * packed block) read back as stored; CPU as the outputs print it (us). */
static void test_client_blocks_packed(void **state)
{
    struct plan p;
    struct run_result r;
    struct client_sample s;
    enum { K = 300 };

    (void)state;
    one_job_plan(&p);
    result_init(&r, &p, 2, 1000);
    for (uint32_t k = 0; k < K; k++) {
        if (k % 17 == 5)
            continue;                               /* a gap: nothing sent */
        if (k % 50 == 7)
            ms_sample(&s, 100 + k);                 /* mountstats (and a host) */
        else
            sample(&s, 0.000123 * k, 4, 2, 1000ull * k, 1000);
        if (k >= 200)                               /* the route changes */
            snprintf(s.host.nic, sizeof s.host.nic, "bond%u", k % 3 ? 1 : 0);
        assert_int_equal(client_result_add_interval(&r, 0, 1, k, &s), 0);
    }
    /* late: interval 5 (a gap so far) into block 0, long packed */
    sample(&s, 1.5, 8, 3, 555, 25000);
    assert_int_equal(client_result_add_interval(&r, 0, 1, 5, &s), 0);
    assert_null(r.phases[0].client->agent[1].blk[0].dense);       /* packed again */
    assert_true(r.phases[0].client->agent[1].blk[0].len > 0);
    for (uint32_t k = 0; k < K + 10; k++) {
        const struct client_iv *iv = client_result_iv(&r, 0, 1, k);
        struct client_sample want;

        assert_null(client_result_iv(&r, 0, 0, k));              /* agent 0 sent nothing */
        if (k >= K || (k % 17 == 5 && k != 5)) {
            assert_null(iv);
            continue;
        }
        assert_non_null(iv);
        if (k == 5)
            sample(&want, 1.5, 8, 3, 555, 25000);
        else if (k % 50 == 7)
            ms_sample(&want, 100 + k);
        else
            sample(&want, 0.000123 * k, 4, 2, 1000ull * k, 1000);
        if (k >= 200)
            snprintf(want.host.nic, sizeof want.host.nic, "bond%u", k % 3 ? 1 : 0);
        assert_int_equal(iv->host.present, want.host.present);
        if (want.host.present) {
            double cpu = want.host.cpu_user_s + want.host.cpu_sys_s;
            assert_int_equal(llround((iv->host.cpu_user_s + iv->host.cpu_sys_s) * 1e6), llround(cpu * 1e6));
            assert_int_equal(iv->host.rx_bytes, want.host.rx_bytes);
            assert_int_equal(iv->host.tx_bytes, want.host.tx_bytes);
            assert_int_equal(iv->host.cores, want.host.cores);
            assert_int_equal(iv->host.threads, want.host.threads);
            assert_int_equal(iv->host.speed_mbps, want.host.speed_mbps);
            assert_string_equal(iv->host.nic, want.host.nic);
        }
        assert_int_equal(iv->ms != NULL, want.ms.present);
        if (want.ms.present)
            assert_int_equal(iv->ms->op[0].ops, want.ms.op[0].ops);
    }
    result_free(&r);
    plan_free(&p);
}

static void test_nicstat_parse_proc_net_dev(void **state)
{
    static const char dev[] =
        "Inter-|   Receive                                                |  Transmit\n"
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
        "    lo: 1234567    4000    0    0    0     0          0         0  1234567    4000    0    0    0     0       0          0\n"
        "  eth0: 18446744073709551615 90 0 0 0 0 0 0 77 50 0 0 0 0 0 0\n"
        "eth1.100: 5 1 0 0 0 0 0 0 6 1 0 0 0 0 0 0\n"
        "  bad0: 12 x 0 0 0 0 0 0 6 1 0 0 0 0 0 0\n"
        "  short: 1 2 3\n";
    uint64_t rx = 0, tx = 0;
    (void)state;

    assert_int_equal(nicstat_parse(dev, "lo", &rx, &tx), 0);
    assert_int_equal(rx, 1234567);
    assert_int_equal(tx, 1234567);
    assert_int_equal(nicstat_parse(dev, "eth0", &rx, &tx), 0);
    assert_true(rx == UINT64_MAX);
    assert_int_equal(tx, 77);
    assert_int_equal(nicstat_parse(dev, "eth1.100", &rx, &tx), 0);
    assert_int_equal(tx, 6);
    assert_int_equal(nicstat_parse(dev, "eth", &rx, &tx), -ENOENT);
    assert_int_equal(nicstat_parse(dev, "bad0", &rx, &tx), -EBADMSG);
    assert_int_equal(nicstat_parse(dev, "short", &rx, &tx), -EBADMSG);
    assert_int_equal(nicstat_parse("", "lo", &rx, &tx), -ENOENT);
    /* this machine: loopback carries 127.0.0.1 */
    {
        char name[16];
        assert_int_equal(nicstat_route_to("127.0.0.1", name, sizeof name), 0);
        assert_string_equal(name, "lo");
        assert_int_equal(nicstat_route_to("server.example", name, sizeof name), -EINVAL);
        assert_int_equal(nicstat_read("lo", &rx, &tx), 0);
        assert_int_equal(nicstat_speed_mbps("lo"), 0);
        assert_int_equal(nicstat_speed_mbps("../x"), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_bound_rules_and_lines),
        cmocka_unit_test(test_client_store_json_roundtrip),
        cmocka_unit_test(test_client_json_hostile),
        cmocka_unit_test(test_client_interval_columns),
        cmocka_unit_test(test_client_blocks_packed),
        cmocka_unit_test(test_nicstat_parse_proc_net_dev),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
