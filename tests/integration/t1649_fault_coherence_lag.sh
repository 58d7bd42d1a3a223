#!/usr/bin/env bash
# rw=coherence measures faultfs's injected visibility delay: agent 0 writes
# 6 generations of c.dat on faultfs (60 ms apart), faultfs serves each new
# block's previous content (zeroes) for D = 150 ms after its write, agents
# 1 and 2 poll with open/read/close.  The lag must be D within the bound
# the coherence check states (at least D minus the clock error bound, at
# most D plus the poll interval and a loaded machine's 40 ms: t1622's
# bound), faultfs logged exactly the 6 delayed blocks, and with the rule
# cleared the same run's lag falls far below D.
# nfstorm-test: serial (timing: the lag's upper limit assumes the polls get the CPU within 40 ms)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
DELAY_MS=150
faultfs_mount "stale,file=c.dat,ms=$DELAY_MS"
cat >"$T/c.fio" <<F
[global]
rw=coherence
bs=4k
size=24k
filename=c.dat
directory=$FFS_M
coherence_writers=0
coherence_period=60ms
coherence_poll_interval=500us
coherence_deadline=2s
[w]
agents=0
[r]
agents=1-2
F
timeout 60 "$NFSTORM" run --local 3 --quiet --json "$T/a.json" "$T/c.fio" >"$T/a.txt" 2>&1 \
  || fail "delayed run: $(tail -n2 "$T/a.txt")"
py "$T/a.json" "$DELAY_MS" "$FFS_LOG" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["phases"][0]["coherence"]
d = int(sys.argv[2]) * 1000000
log = [dict(kv.split("=", 1) for kv in l.split()) for l in open(sys.argv[3])]
armed = sorted(int(f["off"]) for f in log if f["kind"] == "stale" and f["file"] == "c.dat")
assert armed == [g * 4096 for g in range(6)], armed
assert [(p["writer"], p["reader"]) for p in c["pairs"]] == [(0, 1), (0, 2)], c["pairs"]
for p in c["pairs"]:
    lag, b = p["lag"], p["error_bound_ns"]
    assert p["seen"] == 6 and p["never_visible"] == 0, p
    assert lag["min"] >= d - b, "pair %d->%d: lag min %d ns < D %d - bound %d" % (p["writer"], p["reader"], lag["min"], d, b)
    assert lag["max"] <= d + 40000000 + b, "pair %d->%d: lag max %d ns > D + 40 ms" % (p["writer"], p["reader"], lag["max"])
m = c["merged"]["lag"]
assert d <= m["p50"] <= d + 20000000, m
print("faultfs delay %d ms measured: min %.1f ms, p50 %.1f ms, max %.1f ms, bound +-%.3f ms" % (
    d // 1000000, m["min"] / 1e6, m["p50"] / 1e6, m["max"] / 1e6, c["error_bound_ns"] / 1e6))
PY
faultfs_ctl clear
timeout 60 "$NFSTORM" run --local 3 --quiet --json "$T/b.json" "$T/c.fio" >"$T/b.txt" 2>&1 \
  || fail "undelayed run: $(tail -n2 "$T/b.txt")"
py "$T/b.json" "$DELAY_MS" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["phases"][0]["coherence"]
m = c["merged"]
assert m["seen"] == 12 and m["never_visible"] == 0, m
assert m["lag"]["p50"] < int(sys.argv[2]) * 1000000 // 3, m["lag"]
PY
echo "coherence over faultfs: a ${DELAY_MS} ms delay measured within the bound; without it the lag is far below"
