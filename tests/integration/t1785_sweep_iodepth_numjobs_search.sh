#!/usr/bin/env bash
# sweep=iodepth and sweep=numjobs searched (sweep_start=/sweep_max=) against
# ioengine=null's model server, whose answer is computable: one agent's
# FIFO server of 1k IOPS (one op starts each 1 ms) with 1 ms of service
# hands an op back when its service starts, so a thread keeping D ops
# queued makes each wait D x 1 ms and take (D + 1) ms in all, at 1k IOPS
# from D = 1 on.  With the SLO p99 <= 6.5 ms the most that hold it are 5
# (the agent's own overhead, well under 0.1 ms, is far from the half step
# either side).  The CV rule is off (cv:100; t1786 tests it): on a loaded
# machine a closed-loop thread descheduled for a while lets its queue drain,
# which moves the throughput between intervals but never the latency.  The
# search doubles 1 2 4 8 (8 misses), bisects 6 (misses) and 5 (meets), and
# ends when its bracket 5..6 is adjacent integers: 6 points.  numjobs at
# iodepth=1 puts the same ops in flight through threads: the same answer.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"; A0=$AGENT_ADDR
M=(--ioengine=null --rw=randread --bs=4k --size=64m --null_capacity_iops=1k --null_latency=1ms
   --sweep_start=1 --sweep_max=16 --sweep_slo='p99<=6500us' --sweep_point_time=1s --sweep_valid=cv:100)

timeout 20 "$NFSTORM" run --dry-run --agents "$A0" --name=q --sweep=iodepth "${M[@]}" >"$T/dry" 2>&1 ||
  fail "dry-run: $(tail -n2 "$T/dry")"
# 1..16 doubles 5 times; the widest bracket 8..16 bisects 3 times to neighbours
grep -q "sweep q: iodepth, doubling points iodepth=1 iodepth=2 iodepth=4 iodepth=8 iodepth=16, then bisection to 5% or adjacent values (at most 8 points); worst case 8 x 1 s = 8 s" "$T/dry" ||
  fail "dry-run: $(grep sweep "$T/dry")"

for dim in iodepth numjobs; do
  timeout 60 "$NFSTORM" run --agents "$A0" --interval 250ms --json "$T/$dim.json" --name=q --sweep=$dim "${M[@]}" \
    >"$T/$dim.out" 2>&1 || fail "sweep=$dim run failed: $(tail -n3 "$T/$dim.out")"
  py "$T/$dim.json" "$dim" <<'PY'
import json, sys
r, dim = json.load(open(sys.argv[1])), sys.argv[2]
s = r["sweeps"][0]
pts, cap = s["points"], s["capacity"]
print("%s: capacity %s in %d points: %s" % (dim, cap["value"], len(pts),
      [(p["requested"], p["lat_ns"]["p99"], p["slo_met"]) for p in pts]))
assert s["dimension"] == dim, s["dimension"]
assert [p["requested"] for p in pts] == [1, 2, 4, 8, 6, 5], [p["requested"] for p in pts]
assert cap["value"] == 5 and cap["bracketed"] is True, cap
assert [p["slo_met"] for p in pts] == [True, True, True, False, False, True], pts
for p in pts:
    ph = r["phases"][p["phase"]]
    assert ph["name"] == "q@%d" % p["requested"], ph["name"]
    # the model: saturated from 1 in flight on (1k IOPS), each op taking (D + 1) ms
    # (a thread descheduled on a busy machine, or a sanitized build, lets its
    # queue drain: that lowers a point's rate, never raises it past the model's)
    # (and a drained queue shortens the next ops' wait: the median may drop,
    # while the tail, what the SLO judges, stays at the full queue's)
    assert 500 <= p["achieved"] <= 1010, p
    assert 0.5 * (p["requested"] + 1) * 1e6 <= p["lat_ns"]["p50"] <= 1.1 * (p["requested"] + 1) * 1e6, p
    assert 0.95 * (p["requested"] + 1) * 1e6 <= p["lat_ns"]["p99"] <= 1.1 * (p["requested"] + 1) * 1e6, p
    assert p["valid"], p
skipped = [ph for ph in r["phases"] if ph.get("ran") is False]
assert len(r["phases"]) == 8 and len(skipped) == 2, (len(r["phases"]), len(skipped))
assert r["exit_status"] == 0, r["verdict"]
PY
  # nfstorm report re-renders the run (phase rows and sweep) from the result and the journal
  for src in "$T/$dim.json" "$T/$dim.json.journal"; do
    timeout 20 "$NFSTORM" report "$src" >"$T/rep" 2>&1 || fail "report $src: $(tail -n2 "$T/rep")"
    diff <(grep -E '^(q@|sweep q|capacity|  q@)' "$T/$dim.out") <(grep -E '^(q@|sweep q|capacity|  q@)' "$T/rep") >"$T/diff" ||
      fail "report $src differs: $(cat "$T/diff")"
  done
  # a numjobs point's phase row counts the threads that ran it
  [ $dim = iodepth ] || grep -Eq "^q@5 +read +rand +4KiB +5x1 " "$T/$dim.out" || fail "q@5 row: $(grep '^q@5' "$T/$dim.out")"
  grep -Eq "^capacity: $dim=5 at p99 [0-9.]+ ms \(SLO p99 <= 6.5 ms\); knee $dim=4; 6 points, 0 invalid$" "$T/$dim.out" ||
    fail "$dim headline: $(grep -A1 '^capacity' "$T/$dim.out")"
done
echo "iodepth and numjobs searches found 5 in flight"
