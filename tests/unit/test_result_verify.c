/* test_result_verify: verification results in a run_result (who is asked,
 * the fleet merge in agent order, the verdict's reasons and text) and
 * their JSON form (round trip, refusals). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/plan.h"
#include "common/vstats.h"
#include "coordinator/result/result.h"
#include "coordinator/result/result_verify.h"
#include "coordinator/run/verdict.h"
#include "coordinator/report/verify_json.h"

static void plan_two(struct plan *p)
{
    struct job_spec j;
    plan_init(p);
    job_spec_default(&j);
    snprintf(j.name, sizeof j.name, "w");
    j.size = 1 << 20;
    j.rw = RW_WRITE;
    j.verify = VB_CSUM_CRC32C;          /* reads back: checks */
    plan_add_job(p, &j);
    j.stonewall = 1;
    j.no_do_verify = 1;                 /* only stamps: nothing to check */
    snprintf(j.name, sizeof j.name, "s");
    plan_add_job(p, &j);
    j.rw = RW_READ;
    j.no_do_verify = 0;
    snprintf(j.agents, sizeof j.agents, "1");
    snprintf(j.name, sizeof j.name, "r");
    plan_add_job(p, &j);
}

static void bad(struct vstats *v, enum vblock_kind k, uint64_t off, uint32_t reader)
{
    struct vstats_bad b = { .offset = off, .reader = reader, .expected_writer = reader, .expected_gen = 9,
                            .found_writer = 1, .found_job = 2, .found_gen = 8, .found_offset = off };
    snprintf(b.file, sizeof b.file, "/d/f.%u", reader);
    vstats_add(v, k, &b);
}

static void test_result_verify_asked_merged_and_verdict(void **state)
{
    struct plan p;
    struct run_result r;
    struct vstats a0, a1;
    struct verdict *vd = test_malloc(sizeof *vd);
    char why[640];
    (void)state;

    plan_two(&p);
    result_init(&r, &p, 2, 1000);
    assert_non_null(r.phases[0].verify);
    assert_null(r.phases[1].verify);            /* do_verify=0 writes check nothing */
    assert_true(result_agent_verify_asked(&r, 0, 0) && result_agent_verify_asked(&r, 0, 1));
    assert_false(result_agent_verify_asked(&r, 2, 0));   /* agents=1 */
    assert_true(result_agent_verify_asked(&r, 2, 1));
    assert_int_equal(result_set_agent_verify(&r, 1, 0, &a0), -EINVAL);

    /* nothing arrived yet: asked, verified nothing */
    assert_int_equal(result_verify_reason(&r, 0, 0, why, sizeof why), 1);
    assert_string_equal(why, "verify: asked, but verified nothing");

    vstats_init(&a0);
    vstats_init(&a1);
    for (int i = 0; i < 5; i++)
        vstats_add(&a0, VB_OK, NULL);
    vstats_add(&a1, VB_OK, NULL);
    bad(&a1, VB_TORN, 4096, 1);
    bad(&a1, VB_STALE, 8192, 1);
    bad(&a0, VB_ZEROES, 0, 0);
    /* agent 1 first: the fleet's offenders are still in agent order */
    assert_int_equal(result_set_agent_verify(&r, 0, 1, &a1), 0);
    assert_int_equal(result_set_agent_verify(&r, 0, 0, &a0), 0);
    const struct vstats *f = result_phase_verify(&r, 0);
    assert_int_equal(f->checked, 9);
    assert_int_equal(f->count[VB_OK], 6);
    assert_int_equal(f->nfirst, 3);
    assert_int_equal(f->first[0].reader, 0);
    assert_int_equal(f->first[1].kind, VB_TORN);
    assert_int_equal(result_verify_reason(&r, 0, 1, why, sizeof why), 1);
    assert_string_equal(why, "verify: 2 of 3 blocks bad (1 stale_generation, 1 torn); first: /d/f.1 offset 4096: "
                             "torn: expected writer 1 generation 9, found writer 1 job 2 generation 8");
    result_verify_counts(f, why, sizeof why);
    assert_string_equal(why, "9 checked, 6 ok, 1 stale_generation, 1 torn, 1 zeroes");

    /* the verdict carries it, agent by agent */
    r.phases[0].ran = 1;
    for (uint32_t a = 0; a < 2; a++) {
        struct agent_phase ap = { .done = 1 };
        struct op_set *s = test_malloc(sizeof *s);
        op_set_init(s);
        s->op[OP_WRITE].ops = 10;
        s->op[OP_WRITE].bytes = 40960;
        result_set_agent_phase(&r, 0, a, &ap, s);
        test_free(s);
    }
    verdict_phase(&r, 0, vd);
    assert_int_equal(vd->v, VERDICT_FAILED);
    assert_int_equal(vd->nreasons, 2);
    assert_non_null(strstr(vd->reason[0], "agent 0 (?): verify: 1 of 6 blocks bad (1 zeroes)"));
    assert_non_null(strstr(vd->reason[1], "agent 1 (?): verify: 2 of 3 blocks bad"));
    test_free(vd);
    result_free(&r);
    plan_free(&p);
}

static void test_result_verify_json_round_trip_and_refusals(void **state)
{
    struct vstats v, back;
    char err[256];
    json_t *o;
    (void)state;

    vstats_init(&v);
    vstats_add(&v, VB_OK, NULL);
    bad(&v, VB_WRONG_FILE, 12288, 3);
    v.first[0].expected_writer = VBLOCK_ANY_WRITER;
    v.first[0].expected_gen = VBLOCK_ANY_GEN;
    o = verify_json(&v);
    assert_true(json_is_null(json_object_get(json_array_get(json_object_get(o, "first"), 0),
                                             "expected_writer")));
    assert_int_equal(verify_from_json(o, &back, err, sizeof err), 0);
    assert_int_equal(back.on, 1);
    back.on = 0;
    assert_memory_equal(&back, &v, sizeof v);

    json_object_set_new(o, "ok", json_integer(5));           /* no longer adds up */
    assert_int_equal(verify_from_json(o, &back, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "checked=2"));
    json_object_set_new(o, "ok", json_integer(1));
    json_object_set_new(json_array_get(json_object_get(o, "first"), 0), "kind", json_string("ok"));
    assert_int_equal(verify_from_json(o, &back, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "verify.first[0]"));
    json_object_del(o, "torn");
    assert_int_equal(verify_from_json(o, &back, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "\"torn\" is missing"));
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_verify_asked_merged_and_verdict),
        cmocka_unit_test(test_result_verify_json_round_trip_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
