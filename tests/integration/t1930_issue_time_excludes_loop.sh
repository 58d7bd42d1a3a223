#!/usr/bin/env bash
# t1930: an op's latency is its issue to its completion, never the loop's
# own work between two ops (docs/architecture.md, "The op loop").  A real
# agent runs with a preloaded clock for its job thread: from the thread's
# first pow() (the offset generator's, random_distribution=pareto) the clock
# stands still except that each pow() takes 100 us and each pread() or
# pwrite() 10 us.  A psync job of 2000 reads, then one of 2000 writes, must
# record 10 us per op at p50 and p99: the generator ran outside every op.
# Before, an op's issue instant was the previous op's completion read, so
# the next offset's generation was inside it and every op measured 110 us
# (writes: also after the batched loop took reads, until it took writes).
source "$(dirname "$0")/lib.sh"
ldd "$AGENT" | grep -q libasan && skip "the clock is preloaded, and an ASan agent refuses a preload before its runtime"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
cat >"$T/vclock.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
static int (*real_clock_gettime)(clockid_t, struct timespec *);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static double (*real_pow)(double, double);
static __thread int armed;          /* the job thread, once it generated an offset */
static __thread uint64_t vnow;      /* its clock, ns */
__attribute__((constructor)) static void init(void)
{
    real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    real_pread = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    real_pwrite = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    real_pow = (double (*)(double, double))dlsym(RTLD_NEXT, "pow");
}
int clock_gettime(clockid_t c, struct timespec *ts)
{
    if (!armed || c != CLOCK_MONOTONIC)
        return real_clock_gettime(c, ts);
    ts->tv_sec = (time_t)(vnow / 1000000000u);
    ts->tv_nsec = (long)(vnow % 1000000000u);
    return 0;
}
ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    vnow += armed ? 10000 : 0;
    return real_pread(fd, buf, n, off);
}
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    vnow += armed ? 10000 : 0;
    return real_pwrite(fd, buf, n, off);
}
double pow(double x, double y)
{
    if (!armed) {
        struct timespec ts;
        real_clock_gettime(CLOCK_MONOTONIC, &ts);
        vnow = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        armed = 1;
    }
    vnow += 100000;
    return real_pow(x, y);
}
C
cc -O2 -shared -fPIC -o "$T/vclock.so" "$T/vclock.c" -ldl || fail "cannot build the clock shim"
mkdir -p "$T/data"
LD_PRELOAD=$T/vclock.so start_agent "$T/data"

timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=lay --ioengine=psync --rw=write --bs=1m \
  --size=8m "--filename=$T/data/f" >"$T/out" 2>&1 || fail "layout: $(tail -n 3 "$T/out")"
for rw in read write; do
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/r.json" --name=ps --ioengine=psync \
    --rw=rand$rw --bs=4k --size=8m --number_ios=2000 --random_distribution=pareto:0.9 \
    "--filename=$T/data/f" >"$T/out" 2>&1 || fail "psync $rw run: $(tail -n 3 "$T/out")"
  py "$T/r.json" "$rw" <<'PY'
import json, sys
rw = sys.argv[2]
o = json.load(open(sys.argv[1]))["phases"][0]["ops"][rw]
assert o["ops"] == 2000 and o["errors"] == 0, "%s: ops %d errors %d, want 2000 and 0" % (rw, o["ops"], o["errors"])
l = o["lat_ns"]
# 10 us is an exact bucket's neighbourhood: within one bucket (0.78%) of it
for k in ("p50", "p99"):
    assert 9900 <= l[k] <= 10100, "%s: %s latency %d ns, want 10000 (the generator's 100 us must not be in it)" % (rw, k, l[k])
print("t1930: %s p50 %d ns p99 %d ns over %d ops" % (rw, l["p50"], l["p99"], o["ops"]))
PY
done
echo "t1930: PASS"
