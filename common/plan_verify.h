/* plan_verify: which verify= settings a job may have (fio's verify keys,
 * docs/verify.md), checked where every other job key is (job_spec_validate),
 * so the parser, the coordinator and an agent receiving a plan agree. */
#ifndef NFSTORM_PLAN_VERIFY_H
#define NFSTORM_PLAN_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include "common/plan.h"

/* 0, or -EINVAL with why naming the key ("verify_interval=100 ..."). */
int plan_verify_check(const struct job_spec *j, char *why, size_t whylen);
/* Bytes per verify unit of an op of len bytes: verify_interval, or len. */
uint64_t plan_verify_unit(const struct job_spec *j, uint64_t len);
/* 1 when a job's writes are read back in the same phase (fio's do_verify):
 * verify set, the job writes, do_verify on, not verify_only. */
int plan_verify_readback(const struct job_spec *j);
/* 1 when the job checks blocks (its reads, a read-back or verify_only),
 * not only stamps its writes (do_verify=0): a phase of such jobs that
 * verified nothing has not passed. */
int plan_verify_checks(const struct job_spec *j);

#endif
