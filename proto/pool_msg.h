/* pool_msg: the four messages between `nfstorm run --pool` (the submitter)
 * and `nfstorm serve` (the pool), after their handshake (docs/protocol.md,
 * "The pool").  A pure codec like msg.c: frames in, structs out.
 *
 * They carry variable-length bytes (a plan's text, a chunk of a report),
 * which msg.c's fixed-size field tables do not, hence a module of their
 * own.  Every length is capped here before anything is copied; unknown keys
 * are ignored, missing ones rejected; errors are one line "<type>: why". */
#ifndef NFSTORM_POOL_MSG_H
#define NFSTORM_POOL_MSG_H

#include <stddef.h>
#include <stdint.h>
#include "proto/frame.h"
#include "proto/msg.h"

#define POOL_ARGV_MAX    256          /* run options of one submission */
#define POOL_ARG_MAX     4096         /* bytes of one option */
#define POOL_PLAN_MAX    (1u << 20)   /* a plan's text */
#define POOL_CHUNK_MAX   (256u << 10) /* one output message's data */
#define POOL_FRAME_MAX   (2u << 20)   /* what a submitter or a pool may send in one frame */
#define POOL_ADDR_MAX    64

/* submitter -> serve: one run. */
struct pool_submit {
    char **argv;                  /* run options, the plan path replaced by POOL_PLAN_ARG */
    uint32_t argc;
    char *plan;                   /* the plan's text (expanded), or NULL: options only */
    size_t plan_len;
    int want_json;                /* send the JSON result and its journal back */
    int wait;                     /* 0: --no-wait (busy is final) */
    uint32_t expect, min_agents;  /* 0: all the pool's agents, at least one */
    uint32_t expect_timeout_ms;   /* how long to wait for expect agents to be in the pool */
    int clean;                    /* "command": "clean": remove the plan's files, run nothing */
};
#define POOL_PLAN_ARG "@plan"     /* stands for the plan file in pool_submit.argv */

/* serve -> submitter: another run holds the pool (then, unless no-wait,
 * the submission waits its turn). */
struct pool_busy {
    char from[POOL_ADDR_MAX];     /* the running submitter's address */
    char since[16];               /* "HH:MM:SS", serve's local time */
};

enum pool_stream { POOL_STDOUT = 1, POOL_STDERR, POOL_JSON, POOL_JOURNAL };

/* serve -> submitter: bytes of the run's stdout, stderr or a result file,
 * in order. data points into the frame's payload (valid while it is). */
struct pool_output {
    enum pool_stream stream;
    const char *data;
    size_t len;
};

void pool_submit_encode(struct buf *out, const struct pool_submit *m);
/* 0, or -EBADMSG with err set; m's argv and plan are xmalloc'd: pool_submit_free. */
int pool_submit_decode(const struct msg_frame *f, struct pool_submit *m, char *err, size_t errlen);
void pool_submit_free(struct pool_submit *m);

void pool_busy_encode(struct buf *out, const struct pool_busy *m);
int pool_busy_decode(const struct msg_frame *f, struct pool_busy *m, char *err, size_t errlen);

/* len <= POOL_CHUNK_MAX (the caller splits). */
void pool_output_encode(struct buf *out, enum pool_stream s, const void *data, size_t len);
int pool_output_decode(const struct msg_frame *f, struct pool_output *m, char *err, size_t errlen);

void pool_exit_encode(struct buf *out, uint32_t status);
int pool_exit_decode(const struct msg_frame *f, uint32_t *status, char *err, size_t errlen);

#endif
