#!/usr/bin/env bash
# sweep=agents searched (sweep_start=/sweep_max=) on the model server: the
# search is capped by the fleet (4 agents, sweep_max=8, said in one line),
# runs each point on the first K agents (the others sit it out: not
# participating, no ops), and its answer is computable: agent 2 is started
# with --null-capacity-iops 500 against the others' 2k, so once it runs
# (K >= 3) it achieves 500 of a fleet mean of 1.5k or 1.625k, a third of
# its share: invalid by the per-agent rule.  Doubling 1 2 4 (4 invalid),
# bisection 3 (invalid): the capacity is 2 agents in 4 points.  (The rule is
# agent:60, not 75: on a loaded machine two equal agents' loops can differ
# by a fifth; the slow one stays near 33%.)
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"; A0=$AGENT_ADDR
start_agent "$D"; A1=$AGENT_ADDR
start_agent "$D" --null-capacity-iops 500; A2=$AGENT_ADDR
start_agent "$D"; A3=$AGENT_ADDR
M=(--name=s --ioengine=null --rw=randread --bs=4k --size=64m --iodepth=4 --null_capacity_iops=2k --null_latency=1ms
   --sweep=agents --sweep_start=1 --sweep_max=8 --sweep_point_time=1s --sweep_valid=agent:60,cv:50)

timeout 60 "$NFSTORM" run --agents "$A0,$A1,$A2,$A3" --interval 250ms --json "$T/s.json" "${M[@]}" >"$T/out" 2>&1 ||
  fail "sweep run failed: $(tail -n3 "$T/out")"
grep -q "^nfstorm: sweep s: sweep_max=8 agents capped to the fleet's 4 agents$" "$T/out" ||
  fail "no cap message: $(head -n3 "$T/out")"
py "$T/s.json" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
s = r["sweeps"][0]
pts, cap = s["points"], s["capacity"]
print("capacity %s agents in %d points: %s" % (cap["value"], len(pts), [(p["requested"], p["valid"], p["reasons"]) for p in pts]))
assert [p["requested"] for p in pts] == [1, 2, 4, 3], [p["requested"] for p in pts]
assert cap["value"] == 2 and cap["bracketed"] is True, cap
assert [p["valid"] for p in pts] == [True, True, False, False], pts
for p in pts:
    k = p["requested"]
    ph = r["phases"][p["phase"]]
    assert ph["name"] == "s@%d" % k, ph["name"]
    # the first K agents ran it; the others sat it out with no op
    assert [a["participating"] for a in ph["agents"]] == [i < k for i in range(4)], ph["agents"]
    assert [a["id"] for a in p["agents"]] == list(range(k)), p["agents"]
    fast = 2000 * min(k, 2) + 2000 * (k == 4)
    # (a busy test machine slows the fast agents' loops, never speeds them up)
    assert 0.5 * (fast + 500 * (k >= 3)) <= p["achieved"] <= 1.05 * (fast + 500 * (k >= 3)), p
    if k >= 3:
        m = re.fullmatch(r"agent 2 achieved ([0-9]+)% of its share", p["reasons"][0])
        assert len(p["reasons"]) == 1 and m and 20 <= int(m.group(1)) <= 50, p["reasons"]
    if k == 2:
        assert abs(p["per_agent_relative"] - 1) < 0.1, p
skipped = [ph for ph in r["phases"] if ph.get("ran") is False]
# the plan holds sweep_max=8's most points (1 2 4 8, two bisections): the rest are not run
assert len(r["phases"]) == 6 and len(skipped) == 2, (len(r["phases"]), len(skipped))
assert r["exit_status"] == 0, r["verdict"]
PY
grep -Eq "^capacity: agents=2 at p99 [0-9.]+ ms; knee agents=3; 4 points, 2 invalid \(agent 2 achieved [0-9]+% of its share\)$" "$T/out" ||
  fail "headline: $(grep '^capacity' "$T/out")"
# the live line counts the agents each point runs on
for k in 1 2 4 3; do
  grep -Eq "^phase [0-9]/6 s@$k: started on $k agents; sweep s point" "$T/out" || fail "live line of s@$k: $(grep 'started on' "$T/out")"
done
# nfstorm report re-renders it from the result and from its journal (whose
# phase_end lines say which agents took part in each point)
for src in "$T/s.json" "$T/s.json.journal"; do
  timeout 20 "$NFSTORM" report "$src" --json "$T/re.json" >"$T/rep" 2>&1 || fail "report $src: $(tail -n2 "$T/rep")"
  diff <(sed -n '/^sweep s:/,/^capacity/p' "$T/out") <(sed -n '/^sweep s:/,/^capacity/p' "$T/rep") >"$T/diff" ||
    fail "report $src re-renders the sweep differently: $(cat "$T/diff")"
  py "$T/re.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for ph in r["phases"][:4]:
    k = int(ph["name"].split("@")[1])
    assert [a["participating"] for a in ph["agents"]] == [i < k for i in range(4)], (ph["name"], ph["agents"])
PY
done
echo "sweep=agents search found 2 agents, capped at the fleet's 4"
