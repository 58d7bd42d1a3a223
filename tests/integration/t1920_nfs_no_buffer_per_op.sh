#!/usr/bin/env bash
# t1920: with the project's libnfs (scripts/libnfs-batch-io.patch) an nfs
# op allocates no 4 KiB buffer: a reply that lies whole in the 64 KiB block
# read ahead is processed where it lies (upstream libnfs mallocs a buffer
# per reply, copies the reply into it and frees it), and a request's encode
# buffer (4096 bytes) is reused from the requests before.  A real agent
# runs with a preloaded malloc() that counts, per thread, allocations the
# size of a 4 KiB READ's reply (its data plus the RPC and NFS header: more
# than 4096 bytes, less than 4608) and of exactly 4096 bytes, and writes
# the counts when the thread ends.  A 4k randread job of 3000 ops at
# iodepth=16 against ganesha (NFSv3) must show fewer than 0.05 of each per
# op on every thread (1 per op each with main's libnfs), with every op
# done, none failed, and latencies recorded.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
ldd "$AGENT" | grep -q libasan && skip "the malloc counter is preloaded, and an ASan agent refuses a preload before its runtime"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
grep -q LIBNFS_RPC_BATCH_IO "$ROOT/deps/libnfs/include/nfsc/libnfs-raw.h" 2>/dev/null \
  || fail "deps/libnfs lacks scripts/libnfs-batch-io.patch: run scripts/build-libnfs.sh, then make"
cat >"$T/malloccount.c" <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
extern void *__libc_malloc(size_t n);
static __thread unsigned long replies, requests;   /* 4k READ reply's size, 4096 */
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static void report(void *unused)
{
    const char *out = getenv("MALLOCCOUNT_OUT");
    FILE *f = out ? fopen(out, "a") : NULL;
    (void)unused;
    if (f) {
        fprintf(f, "%lu %lu\n", replies, requests);
        fclose(f);
    }
}
static void init(void) { pthread_key_create(&key, report); }
void *malloc(size_t n)
{
    if (n >= 4096 && n < 4608) {
        if (replies + requests == 0) {      /* this thread's first: report at its end */
            pthread_once(&once, init);
            pthread_setspecific(key, &replies);
        }
        if (n == 4096)
            requests++;
        else
            replies++;
    }
    return __libc_malloc(n);
}
C
cc -O2 -shared -fPIC -o "$T/malloccount.so" "$T/malloccount.c" -lpthread || fail "cannot build the counting shim"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export"
nfs_server_start "$T/export" || fail "NFS server did not start"
MALLOCCOUNT_OUT=$T/counts LD_PRELOAD=$T/malloccount.so start_agent "$T" --allow-nfs "$NFS_URL3"

timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=lay --ioengine=nfs "--nfs_url=$NFS_URL3" \
  --filename=f --rw=write --bs=1m --size=16m >"$T/out" 2>&1 || fail "layout: $(tail -n 3 "$T/out")"
: >"$T/counts"
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/r.json" --name=rd --ioengine=nfs \
  "--nfs_url=$NFS_URL3" --filename=f --rw=randread --bs=4k --size=16m --iodepth=16 --number_ios=3000 \
  >"$T/out" 2>&1 || fail "randread: $(tail -n 3 "$T/out")"
# the job thread has ended (and reported) once the run is over
py "$T/r.json" "$T/counts" <<'PY' || fail "buffers per op"
import json, sys
o = json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]
assert o["ops"] == 3000 and o["errors"] == 0, "ops %d errors %d, want 3000 and 0" % (o["ops"], o["errors"])
assert o["lat_ns"]["p50"] > 0, "no latency recorded"
counts = [[int(v) for v in x.split()] for x in open(sys.argv[2]) if x.strip()]
for i, what in enumerate(("reply-sized", "4096-byte (request buffer)")):
    per_op = max([c[i] for c in counts] + [0]) / 3000.0
    assert per_op < 0.05, "%.2f %s allocations per op on one thread (%s), want < 0.05" % (per_op, what, counts)
    print("%s allocations per op: %.3f" % (what, per_op))
PY
echo "t1920: PASS"
