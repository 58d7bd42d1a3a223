#!/usr/bin/env bash
# The CV rule of sweep_valid= (docs/plans.md, "Sweeps"): a point whose
# per-interval throughput varies is invalid with the CV reason, and the same
# point against a steady server holds valid.  The variation is real: an
# agent started with --null-capacity-swing 2s serves its model's 2k IOPS for
# 2 s, 1k for the next, ... so 1 s intervals of a saturated closed-loop
# point alternate 2000 and 1000 ops: a CV of 33% (sd 500 over a mean of
# 1500).  (1 s intervals: on a loaded machine a steady point's CV over
# 500 ms ones reached 20%.)
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D" --null-capacity-swing 2s; SWING=$AGENT_ADDR
start_agent "$D"; STEADY=$AGENT_ADDR
M=(--name=c --ioengine=null --rw=randread --bs=4k --size=64m --null_capacity_iops=2k --null_latency=1ms
   --sweep=iodepth --sweep_values=4 --sweep_point_time=4s --sweep_valid=cv:20)

for which in swing steady; do
  addr=$SWING; [ $which = steady ] && addr=$STEADY
  timeout 40 "$NFSTORM" run --agents "$addr" --interval 1s --json "$T/$which.json" "${M[@]}" >"$T/$which.out" 2>&1 ||
    fail "$which run failed: $(tail -n3 "$T/$which.out")"
done
py "$T/swing.json" "$T/steady.json" <<'PY'
import json, sys
sw = json.load(open(sys.argv[1]))["sweeps"][0]["points"][0]
st = json.load(open(sys.argv[2]))["sweeps"][0]["points"][0]
print("swing: cv %.1f%% %s; steady: cv %.1f%% %s" % (sw["cv_pct"], sw["reasons"], st["cv_pct"], st["reasons"]))
assert 25 <= sw["cv_pct"] <= 42, sw
assert sw["valid"] is False and sw["reasons"] == ["throughput CV %.1f%% over its intervals" % sw["cv_pct"]], sw
# half the time at half the capacity: 1.5k IOPS, against 2k steady (a busy
# machine can only lower either)
assert 900 <= sw["achieved"] <= 1600 and 1200 <= st["achieved"] <= 2020, (sw["achieved"], st["achieved"])
assert 0 <= st["cv_pct"] <= 20 and st["valid"] is True and st["reasons"] == [], st
PY
grep -Eq "^capacity: none \(no point passed\); no knee; 1 point, 1 invalid \(throughput CV [0-9.]+% over its intervals\)$" "$T/swing.out" &&
  grep -Eq "^capacity: >= iodepth=4 at p99 [0-9.]+ ms; no knee; 1 point, 0 invalid$" "$T/steady.out" ||
  fail "headlines: $(grep -h '^capacity' "$T/swing.out" "$T/steady.out")"
echo "the CV rule judged the swinging server's point invalid, the steady one's valid"
