/* test_run_record: the run record (coordinator/run/run_record.c and
 * run_record_show.c): the same record, machines and storage after a trip
 * through the JSON result and through the journal, the text header, strict
 * reading, and what run_record_diff says differs between runs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define STR_(x) #x
#define STR(x) STR_(x)

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/plan.h"
#include "common/version.h"
#include "coordinator/run/journal.h"
#include "coordinator/result/result.h"
#include "coordinator/result/result_load.h"
#include "coordinator/run/run_record.h"
#include "proto/msg.h"
#include "tests/unit/stats_util.h"

static void make_plan(struct plan *p)
{
    struct job_spec j;
    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "rr");
    j.rw = RW_RANDREAD;
    plan_add_job(p, &j);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "sw");
    j.rw = RW_WRITE;
    j.stonewall = 1;
    plan_add_job(p, &j);
}

static struct storage_info nfs_mount(const char *vers, uint64_t rsize)
{
    struct storage_info s;
    memset(&s, 0, sizeof s);
    s.kind = STORAGE_MOUNT;
    snprintf(s.job, sizeof s.job, "rr");
    snprintf(s.where, sizeof s.where, "/mnt/efs");
    snprintf(s.source, sizeof s.source, "fs-1.efs.example:/");
    snprintf(s.fstype, sizeof s.fstype, "nfs4");
    snprintf(s.options, sizeof s.options, "rw,relatime,vers=%s,rsize=%llu,hard", vers,
             (unsigned long long)rsize);
    snprintf(s.nfsvers, sizeof s.nfsvers, "%s", vers);
    snprintf(s.mode, sizeof s.mode, "hard");
    s.rsize = s.wsize = rsize;
    s.nconnect = 16;
    s.timeo = 600;
    return s;
}

/* A finished 2-agent, 2-phase run with a full record. */
static void make_run(struct run_result *r, const char *target, const char *vers, uint64_t rsize,
                     const char *plan_text)
{
    struct plan p;
    char *argv[] = { "nfstorm", "run", "p.fio", "--target", (char *)target, "--secret-file", "/etc/s" };
    struct op_set *tot = malloc(sizeof *tot);
    make_plan(&p);
    result_init(r, &p, 2, 1000);
    plan_free(&p);
    snprintf(r->label, sizeof r->label, "L");
    r->started_unix = 1764600000;
    run_record_begin(&r->record, target, 7, argv, plan_text);
    r->record.start_ms = 1764600000123;
    run_record_finish(&r->record, 0);
    r->record.end_ms = 1764600009876;
    for (uint32_t a = 0; a < 2; a++) {
        struct agent_system sys = { .mem_bytes = 8131552ull * 1024 };
        snprintf(r->agents[a].host, sizeof r->agents[a].host, "client-%u", a);
        r->agents[a].ncpus = 2;
        snprintf(sys.kernel, sizeof sys.kernel, "6.8.0-45-generic");
        snprintf(sys.cpu_model, sizeof sys.cpu_model, "Example CPU @ 2.2GHz");
        assert_int_equal(run_record_set_system(r, a, &sys), 0);
    }
    for (uint32_t ph = 0; ph < 2; ph++) {
        r->phases[ph].ran = 1;
        for (uint32_t a = 0; a < 2; a++) {
            struct agent_phase ap;
            struct storage_info s = nfs_mount(vers, rsize);
            memset(&ap, 0, sizeof ap);
            ap.duration_ns = 1000000000ull;
            op_set_init(tot);
            op_stats_record(&tot->op[OP_READ], 4096, 1000 + a, 1);
            assert_int_equal(run_record_add_storage(r, ph, a, &s), 0);
            assert_int_equal(result_set_agent_phase(r, ph, a, &ap, tot), 0);
        }
        result_phase_finish(r, ph);
    }
    free(tot);
}

static char *text_of(const struct run_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    run_record_text(f, r);
    fclose(f);
    return buf;
}

static void assert_same_record(const struct run_result *a, const struct run_result *b)
{
    char *ta = text_of(a), *tb = text_of(b);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    assert_int_equal(b->record.present, 1);
    assert_string_equal(b->record.target, a->record.target);
    assert_string_equal(b->record.plan_text, a->record.plan_text);
    assert_int_equal(b->record.argc, a->record.argc);
    for (uint32_t i = 0; i < a->record.argc; i++)
        assert_string_equal(b->record.argv[i], a->record.argv[i]);
    assert_string_equal(b->record.version, NFSTORM_VERSION);
    assert_int_equal(b->record.proto_version, PROTO_VERSION);
    assert_int_equal(b->record.start_ms, a->record.start_ms);
    assert_int_equal(b->record.end_ms, a->record.end_ms);
    assert_int_equal(b->record.interrupted, a->record.interrupted);
    for (uint32_t i = 0; i < a->nagents; i++) {
        assert_int_equal(b->agents[i].sys.known, 1);
        assert_string_equal(b->agents[i].sys.kernel, a->agents[i].sys.kernel);
        assert_string_equal(b->agents[i].sys.cpu_model, a->agents[i].sys.cpu_model);
        assert_int_equal(b->agents[i].sys.mem_bytes, a->agents[i].sys.mem_bytes);
    }
    for (uint32_t p = 0; p < a->nphases; p++)
        for (uint32_t i = 0; i < a->nagents; i++) {
            const struct agent_phase *x = &a->phases[p].agents[i], *y = &b->phases[p].agents[i];
            assert_int_equal(y->nstorage, x->nstorage);
            for (uint32_t k = 0; k < x->nstorage; k++)
                assert_memory_equal(&y->storage[k], &x->storage[k], sizeof x->storage[k]);
        }
}

static void test_run_record_json_round_trip(void **state)
{
    static struct run_result r, back;
    char path[] = "/tmp/nfstorm-test-record.XXXXXX", err[256] = "";
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    make_run(&r, "efs-gp-bursting", "4.1", 1048576, "[rr]\nrw=randread\n");
    assert_int_equal(report_json_write(path, &r), 0);
    assert_int_equal(result_load(path, &back, err, sizeof err), 0);
    assert_same_record(&r, &back);
    unlink(path);
    result_free(&back);
    result_free(&r);
}

static void test_run_record_journal_round_trip(void **state)
{
    static struct run_result r, back;
    char path[] = "/tmp/nfstorm-test-record-j.XXXXXX", err[256] = "";
    int fd = mkstemp(path);
    struct journal *j;
    struct run_observer o;
    int64_t end_ms;
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    make_run(&r, "efs-gp-bursting", "4.1", 1048576, "[rr]\nrw=randread\n");
    assert_non_null(j = journal_open(path, "L"));
    journal_set_record(j, &r.record);
    o = journal_observer(j);
    end_ms = r.record.end_ms;     /* as in a run: the end is known only at the end */
    r.record.end_ms = 0;
    for (uint32_t p = 0; p < r.nphases; p++) {
        o.phase_start(o.arg, &r, p);
        for (uint32_t a = 0; a < r.nagents; a++)
            o.agent_phase_done(o.arg, &r, p, a, &r.phases[p].agents[a]);
        o.phase_done(o.arg, &r, p);
    }
    r.record.end_ms = end_ms;
    assert_int_equal(journal_record_end(j, &r.record), 0);
    assert_int_equal(journal_end(j, "ok"), 0);
    assert_int_equal(journal_close(j), 0);
    assert_int_equal(journal_load(path, &back, err, sizeof err), 0);
    assert_same_record(&r, &back);
    result_free(&back);

    /* without its record_end (the coordinator killed): interrupted, end unknown */
    {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "grep -v '\"record_end\"' %s > %s.cut", path, path);
        assert_int_equal(system(cmd), 0);
        snprintf(cmd, sizeof cmd, "%s.cut", path);
        assert_int_equal(journal_load(cmd, &back, err, sizeof err), 0);
        assert_int_equal(back.record.interrupted, 1);
        assert_int_equal(back.record.end_ms, 0);
        assert_string_equal(back.record.target, "efs-gp-bursting");
        unlink(cmd);
        result_free(&back);
    }
    unlink(path);
    result_free(&r);
}

static void test_run_record_text_header(void **state)
{
    static struct run_result r;
    char *t;
    (void)state;
    make_run(&r, "efs-gp-bursting", "4.1", 1048576, "[rr]\n");
    t = text_of(&r);
    assert_string_equal(t,
        "target efs-gp-bursting, nfstorm " NFSTORM_VERSION " (protocol " STR(PROTO_VERSION) "), 2025-12-01T14:40:00.123Z "
        "to 2025-12-01T14:40:09.876Z (9.8 s)\n"
        "agents 0-1 (client-0, client-1): kernel 6.8.0-45-generic, 2 CPUs (Example CPU @ 2.2GHz), "
        "7.75GiB memory\n"
        "storage: fs-1.efs.example:/ on /mnt/efs (nfs4, vers 4.1, rsize 1MiB, wsize 1MiB, hard, timeo 600, "
        "nconnect 16); agents 0-1, every phase\n");
    free(t);
    result_free(&r);
}

static void test_run_record_strict_reading(void **state)
{
    struct run_record rec;
    char err[256];
    json_t *o;
    (void)state;
    run_record_init(&rec);
    o = json_loads("{\"target\":\"x\",\"plan\":null,\"argv\":[\"a\"],\"nfstorm_version\":\"0.1\","
                   "\"protocol_version\":1,\"start\":\"s\",\"start_unix\":100.5,\"end\":null,"
                   "\"end_unix\":null,\"interrupted\":true}", 0, NULL);
    assert_int_equal(run_record_from_json(o, "record", &rec, err, sizeof err), 0);
    assert_null(rec.plan_text);
    assert_int_equal(rec.start_ms, 100500);
    assert_int_equal(rec.end_ms, 0);
    assert_int_equal(rec.interrupted, 1);
    json_object_set_new(o, "argv", json_pack("[i]", 3));
    assert_int_equal(run_record_from_json(o, "record", &rec, err, sizeof err), -EINVAL);
    assert_string_equal(err, "record.argv: element 0: want a string of at most 4096 bytes");
    json_object_set_new(o, "argv", json_array());
    json_object_del(o, "target");
    assert_int_equal(run_record_from_json(o, "record", &rec, err, sizeof err), -EINVAL);
    assert_string_equal(err, "record.target: missing");
    json_object_set_new(o, "target", json_string("x"));
    json_object_set_new(o, "end_unix", json_real(50.0));
    assert_int_equal(run_record_from_json(o, "record", &rec, err, sizeof err), -EINVAL);
    assert_string_equal(err, "record.end_unix: before start_unix");
    json_decref(o);
    run_record_free(&rec);
}

static void test_run_record_diff_says_what_differs(void **state)
{
    static struct run_result a, b, c;
    const struct run_result *runs[3] = { &a, &b, &c };
    struct record_diff d;
    (void)state;
    make_run(&a, "efs-gp", "4.1", 1048576, "[rr]\nrw=randread\n");
    make_run(&b, "efs-maxio", "4.1", 1048576, "[rr]\nrw=randread\n");
    make_run(&c, "nfs3-box", "3", 65536, "[rr]\nrw=randwrite\n");
    assert_int_equal(run_record_diff(runs, 3, &d), 0);
    assert_int_equal(d.nruns, 3);
    /* target, options, nfsvers, rsize, wsize, plan and the plan line that
     * differs; not hosts, kernel, fstype, ... */
    assert_int_equal(d.nrows, 7);
    assert_string_equal(d.rows[0].key, "target");
    assert_string_equal(d.rows[0].values[0], "efs-gp");
    assert_string_equal(d.rows[0].values[2], "nfs3-box");
    assert_string_equal(d.rows[1].key, "options");
    assert_string_equal(d.rows[2].key, "nfsvers");
    assert_string_equal(d.rows[2].values[1], "4.1");
    assert_string_equal(d.rows[2].values[2], "3");
    assert_string_equal(d.rows[3].key, "rsize");
    assert_string_equal(d.rows[3].values[2], "65536");
    assert_string_equal(d.rows[4].key, "wsize");
    assert_string_equal(d.rows[5].key, "plan");
    assert_string_equal(d.rows[5].values[0], "plan A");
    assert_string_equal(d.rows[5].values[1], "plan A");
    assert_string_equal(d.rows[5].values[2], "plan B");
    assert_string_equal(d.rows[6].key, "plan line 2");
    assert_string_equal(d.rows[6].values[0], "rw=randread");
    assert_string_equal(d.rows[6].values[2], "rw=randwrite");
    {
        static const char *const labels[] = { "gp", "maxio", "n3" };
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        run_record_diff_text(f, &d, labels);
        fclose(f);
        assert_string_equal(buf,
            "what differs between the runs:\n"
            "               gp                                       maxio                                    n3\n"
            "  target       efs-gp                                   efs-maxio                                nfs3-box\n"
            "  options      rw,relatime,vers=4.1,rsize=1048576,hard  rw,relatime,vers=4.1,rsize=1048576,hard  "
            "rw,relatime,vers=3,rsize=65536,hard\n"
            "  nfsvers      4.1                                      4.1                                      3\n"
            "  rsize        1048576                                  1048576                                  65536\n"
            "  wsize        1048576                                  1048576                                  65536\n"
            "  plan         plan A                                   plan A                                   plan B\n"
            "  plan line 2  rw=randread                              rw=randread                              rw=randwrite\n");
        free(buf);
    }
    run_record_diff_free(&d);

    /* the same run twice: nothing differs */
    runs[1] = &a;
    assert_int_equal(run_record_diff(runs, 2, &d), 0);
    assert_int_equal(d.nrows, 0);
    {
        static const char *const labels[] = { "a", "a2" };
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        run_record_diff_text(f, &d, labels);
        fclose(f);
        assert_string_equal(buf, "the runs' records agree (target, machines, mounts, plan)\n");
        free(buf);
    }
    run_record_diff_free(&d);
    assert_int_equal(run_record_diff(runs, 0, &d), -EINVAL);

    /* a kernel that differs on one agent */
    snprintf(b.agents[1].sys.kernel, sizeof b.agents[1].sys.kernel, "5.15.0");
    snprintf(b.record.target, sizeof b.record.target, "efs-gp");
    runs[1] = &b;
    assert_int_equal(run_record_diff(runs, 2, &d), 0);
    assert_int_equal(d.nrows, 1);
    assert_string_equal(d.rows[0].key, "kernel");
    assert_string_equal(d.rows[0].values[0], "6.8.0-45-generic");
    assert_string_equal(d.rows[0].values[1], "6.8.0-45-generic; 5.15.0");
    run_record_diff_free(&d);
    /* a long value is cut in the text, whole in the row */
    memset(b.record.target, 'x', 60);
    b.record.target[60] = '\0';
    assert_int_equal(run_record_diff(runs, 2, &d), 0);
    assert_string_equal(d.rows[0].key, "target");
    assert_int_equal(strlen(d.rows[0].values[1]), 60);
    {
        static const char *const labels[] = { "A", "B" };
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        run_record_diff_text(f, &d, labels);
        fclose(f);
        /* 37 x and "...": 40 bytes */
        assert_non_null(strstr(buf, "\n  target  efs-gp            xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\n"));
        free(buf);
    }
    run_record_diff_free(&d);
    result_free(&a);
    result_free(&b);
    result_free(&c);
}

/* Strings from an agent are cleaned before they are kept; the cap holds. */
static void test_run_record_storage_cleaned_and_capped(void **state)
{
    static struct run_result r;
    struct storage_info s = nfs_mount("4.1", 4096);
    (void)state;
    make_run(&r, "t", "4.1", 4096, NULL);
    snprintf(s.where, sizeof s.where, "/mnt/\x1b[31mred");
    while (r.phases[0].agents[0].nstorage < STORAGE_PER_PHASE_MAX)
        assert_int_equal(run_record_add_storage(&r, 0, 0, &s), 0);
    assert_string_equal(r.phases[0].agents[0].storage[STORAGE_PER_PHASE_MAX - 1].where, "/mnt/?[31mred");
    assert_int_equal(run_record_add_storage(&r, 0, 0, &s), -ENOSPC);
    assert_int_equal(run_record_add_storage(&r, 2, 0, &s), -EINVAL);
    s.kind = 7;
    assert_int_equal(run_record_add_storage(&r, 0, 1, &s), -EINVAL);
    result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_record_json_round_trip),
        cmocka_unit_test(test_run_record_journal_round_trip),
        cmocka_unit_test(test_run_record_text_header),
        cmocka_unit_test(test_run_record_strict_reading),
        cmocka_unit_test(test_run_record_diff_says_what_differs),
        cmocka_unit_test(test_run_record_storage_cleaned_and_capped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
