#!/usr/bin/env bash
# t1831: the op loop reads the clock about once per op (docs/architecture.md,
# "The op loop"), and still measures every op.  A real agent runs with a
# preloaded clock_gettime() that counts each thread's calls and writes the
# count when the thread ends; a null-engine job of 200000 ops at iodepth=1
# (then a psync one of 4000 on a local file) must show, on its job thread
# (the thread with the most calls), between 0.9 and 1.5 reads per op (five
# per null op and four per psync op before), with every op counted once and
# latencies recorded (p50 > 0).
source "$(dirname "$0")/lib.sh"
# ASan must be the first library loaded: a preloaded counter cannot come before it
ldd "$AGENT" | grep -q libasan && skip "the clock counter is preloaded, and an ASan agent refuses a preload before its runtime"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
cat >"$T/clockcount.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static __thread unsigned long calls;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int (*real_clock_gettime)(clockid_t, struct timespec *);
static void report(void *unused)
{
    const char *out = getenv("CLOCKCOUNT_OUT");
    FILE *f = out ? fopen(out, "a") : NULL;
    (void)unused;
    if (f) {
        fprintf(f, "%lu\n", calls);
        fclose(f);
    }
}
static void init(void)
{
    pthread_key_create(&key, report);
    real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
}
int clock_gettime(clockid_t c, struct timespec *ts)
{
    pthread_once(&once, init);
    if (calls++ == 0)
        pthread_setspecific(key, &calls);
    return real_clock_gettime(c, ts);
}
C
cc -O2 -shared -fPIC -o "$T/clockcount.so" "$T/clockcount.c" -ldl -lpthread || fail "cannot build the counting shim"
mkdir -p "$T/data"
CLOCKCOUNT_OUT=$T/counts LD_PRELOAD=$T/clockcount.so start_agent "$T/data"

check() {   # NAME OPS: the job thread's reads per op of the run just made
  py "$T/r.json" "$T/counts" "$2" "$1" <<'PY'
import json, sys
ops_want, name = int(sys.argv[3]), sys.argv[4]
o = json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]
assert o["ops"] == ops_want and o["errors"] == 0, "%s: ops %d errors %d, want %d and 0" % (name, o["ops"], o["errors"], ops_want)
assert o["lat_ns"]["p50"] > 0, "%s: no latency recorded" % name
counts = [int(x) for x in open(sys.argv[2]) if x.strip()]
assert counts, "%s: no thread reported its clock reads" % name
per_op = max(counts) / ops_want
assert 0.9 <= per_op <= 1.5, "%s: %.2f clock reads per op on the job thread (%d), want 0.9 to 1.5" % (name, per_op, max(counts))
print("%s: %.3f clock reads per op" % (name, per_op))
PY
}

timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/r.json" --name=nl --ioengine=null \
  --rw=randread --bs=4k --size=1g --number_ios=200000 "--directory=$T/data" >"$T/out" 2>&1 \
  || fail "null run: $(tail -n 3 "$T/out")"
check null 200000
: >"$T/counts"
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/r.json" --name=ps --ioengine=psync \
  --rw=randread --bs=4k --size=16m --number_ios=4000 "--directory=$T/data" >"$T/out" 2>&1 \
  || fail "psync run: $(tail -n 3 "$T/out")"
check psync 4000
echo "t1831: PASS"
