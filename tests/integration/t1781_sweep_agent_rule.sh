#!/usr/bin/env bash
# One agent throttled alone (its model server serves 20k IOPS, the other's
# 50k) makes a sweep point invalid by the per-agent rule, naming it, while
# the fleet's own rule is not what fails it; explicit sweep_values= run
# every point in order; bad sweep keys are one-line errors.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"; A0=$AGENT_ADDR
start_agent "$D" --null-capacity-iops 20k; A1=$AGENT_ADDR
timeout 40 "$NFSTORM" run --agents "$A0,$A1" --interval 500ms --json "$T/s.json" --csv "$T/r.csv" \
  --html "$T/r.html" --name=t --ioengine=null \
  --rw=randread --bs=4k --size=64m --null_capacity_iops=50k --sweep=rate_iops --sweep_values=20k,56k \
  --sweep_point_time=1s --sweep_valid=achieved:70,cv:25 >"$T/out" 2>&1 || fail "sweep run failed: $(tail -n3 "$T/out")"
py "$T/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sweeps"][0]
assert s["thresholds"] == {"achieved_pct": 70.0, "agent_pct": 75.0, "cv_pct": 25.0}, s["thresholds"]
assert s["slo"] is None and s["mode"] == "values", s
lo, hi = s["points"]
assert lo["requested"] == 20000 and lo["valid"] is True and lo["reasons"] == [], lo
# 56k over 2 agents: a share of 28k each; agent 1 serves at most 20k (71%)
assert hi["requested"] == 56000 and hi["valid"] is False, hi
a1 = [a for a in hi["agents"] if a["id"] == 1][0]
assert 19000 <= a1["achieved"] <= 20500 and a1["share_pct"] < 75, a1
assert hi["reasons"] == ["agent 1 achieved %.0f%% of its share" % a1["share_pct"]], hi["reasons"]
# without an SLO the capacity is the highest valid point, bracketed by the invalid one
assert s["capacity"]["value"] == 20000 and s["capacity"]["bracketed"] is True, s["capacity"]
print("point 56k invalid: %s" % hi["reasons"][0])
PY
# the points as CSV beside --csv (a fleet row and one per agent each), and
# the HTML's two sweep charts
py "$T/r.sweeps.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [(r["point"], r["agent"]) for r in rows] == [("t@20000", ""), ("t@20000", "0"), ("t@20000", "1"),
                                                   ("t@56000", ""), ("t@56000", "0"), ("t@56000", "1")], rows
assert rows[3]["valid"] == "0" and rows[3]["reasons"].startswith("agent 1 achieved"), rows[3]
PY
[ "$(grep -o 'data-view="sweep-[a-z]*"' "$T/r.html" | sort -u | tr '\n' ' ')" = 'data-view="sweep-achieved" data-view="sweep-latency" ' ] ||
  fail "HTML sweep charts: $(grep -o 'data-view="sweep-[a-z]*"' "$T/r.html")"
grep -Eq "^capacity: 20k IOPS at p99 [0-9.]+ [mu]?s; (no knee|knee [0-9.]+k IOPS); 2 points, 1 invalid \(agent 1 achieved 7[0-9]% of its share\)$" "$T/out" ||
  fail "headline: $(grep '^capacity' "$T/out")"

# nfstorm report re-renders the sweep from the JSON: the same table and headline
timeout 20 "$NFSTORM" report "$T/s.json" >"$T/rep" 2>&1 || fail "report: $(tail -n2 "$T/rep")"
diff <(sed -n '/^sweep t:/,/^capacity/p' "$T/out") <(sed -n '/^sweep t:/,/^capacity/p' "$T/rep") >"$T/diff" ||
  fail "report re-renders the sweep differently: $(cat "$T/diff")"
grep -q '^capacity: 20k IOPS' "$T/rep" || fail "report has no sweep headline"

# nfstorm compare sets sweeps side by side by job: capacity, ratio
timeout 20 "$NFSTORM" compare "$T/s.json" "$T/s.json" --labels one,two >"$T/cmp" 2>&1 || fail "compare: $(tail -n2 "$T/cmp")"
grep -q "^  t capacity (rate_iops): \[1\] one 20k IOPS; \[2\] two 20k IOPS, x1.00, no variance known$" "$T/cmp" ||
  fail "compare's sweeps: $(grep -A2 '^sweeps' "$T/cmp")"

# md: the capacities as a table; html: each input's curve overlaid (one line per input and y = x)
timeout 20 "$NFSTORM" compare "$T/s.json" "$T/s.json" --labels one,two --format md >"$T/cmp.md" 2>&1 || fail "compare md"
grep -q '^| t (rate_iops) | capacity | two | 20k IOPS | - | 1 | x1.00 | - |$' "$T/cmp.md" ||
  fail "compare md sweeps: $(grep -A6 '### Sweeps' "$T/cmp.md")"
timeout 20 "$NFSTORM" compare "$T/s.json" "$T/s.json" --labels one,two --format html >"$T/cmp.html" 2>&1 || fail "compare html"
for v in compare-sweep-achieved compare-sweep-latency; do
  grep -q "data-view=\"$v\"" "$T/cmp.html" || fail "compare html has no $v chart"
done
py "$T/cmp.html" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
svg = re.search(r'<svg[^>]*data-view="compare-sweep-achieved".*?</svg>', h, re.S).group(0)
texts = re.findall(r'<text[^>]*>([^<]*)</text>', svg)
assert texts[-3:] == ["one", "two", "y = x"], texts       # the legend: each input's line, then y = x
assert svg.count("<polyline") == 3, svg.count("<polyline")
PY
timeout 20 "$NFSTORM" compare "$T/s.json" "$T/s.json" --labels one,two --format json >"$T/cmp.json" 2>&1 ||
  fail "compare json: $(tail -n2 "$T/cmp.json")"
py "$T/cmp.json" <<'PY'
import json, sys
sw = json.load(open(sys.argv[1]))["sweeps"]
assert [x["job"] for x in sw] == ["t"], sw
one, two = sw[0]["inputs"]
assert one["capacity"]["mean"] == 20000 and two["capacity"]["ratio"] == 1.0 and two["capacity"]["p"] is None, sw
PY

# sweep=agents: the job on the first K agents, each thread at its own rate_iops;
# per agent, K agents do what one did (the throttled agent 1 is not reached)
timeout 30 "$NFSTORM" run --agents "$A0,$A1" --quiet --json "$T/a.json" --name=a --ioengine=null --rw=randread \
  --bs=4k --size=64m --rate_iops=4000 --sweep=agents --sweep_values=1,2 --sweep_point_time=1s \
  >"$T/aout" 2>&1 || fail "sweep=agents failed: $(tail -n3 "$T/aout")"
py "$T/a.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["sweeps"][0]
one, two = s["points"]
assert s["dimension"] == "agents" and s["unit"] == "agents", s
assert [a["id"] for a in one["agents"]] == [0] and [a["id"] for a in two["agents"]] == [0, 1], (one, two)
assert 3800 <= one["achieved"] <= 4100 and 7600 <= two["achieved"] <= 8200, (one["achieved"], two["achieved"])
assert one["per_agent_relative"] == 1.0 and 0.95 <= two["per_agent_relative"] <= 1.05, two
assert [p["name"] for p in r["phases"]] == ["a@1", "a@2"], [p["name"] for p in r["phases"]]
PY

# a search whose highest point still passes has no bracket: the capacity reads ">= X"
timeout 30 "$NFSTORM" run --agents "$A0,$A1" --interval 500ms --json "$T/u.json" --name=u --ioengine=null \
  --rw=randread --bs=4k --size=64m --null_capacity_iops=50k --sweep=rate_iops --sweep_start=5k \
  --sweep_max=20k --sweep_slo='p99<=50ms' --sweep_valid=cv:25 --sweep_point_time=1s >"$T/uout" 2>&1 ||
  fail "unbracketed sweep failed: $(tail -n3 "$T/uout")"
grep -Eq "^capacity: >= 20k IOPS at p99 [0-9.]+ [mu]?s \(SLO p99 <= 50\.0 ms\); (no knee|knee [0-9.]+k IOPS); 3 points, 0 invalid$" "$T/uout" ||
  fail "unbracketed headline: $(grep '^capacity' "$T/uout")"
py "$T/u.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sweeps"][0]
assert s["capacity"]["value"] == 20000 and s["capacity"]["bracketed"] is False, s["capacity"]
assert [p["requested"] for p in s["points"]] == [5000, 10000, 20000], s["points"]
PY

# each point is a phase of its own named JOB@VALUE; a later job never joins the last point
printf '[global]\nioengine=null\nsize=1m\n[s]\nsweep=iodepth\nsweep_values=1,8\n[after]\n' >"$T/p.fio"
timeout 20 "$NFSTORM" run --dry-run --agents "$A0" "$T/p.fio" >"$T/dry" 2>&1 || fail "dry-run: $(tail -n2 "$T/dry")"
[ "$(grep '^phase ' "$T/dry" | tr '\n' ' ')" = "phase 1/3 's@1' phase 2/3 's@8' phase 3/3 'after' " ] ||
  fail "phases: $(grep '^phase ' "$T/dry")"
grep -q "^sweep s: iodepth, points iodepth=1 iodepth=8; worst case 2 x" "$T/dry" || fail "dry-run plan: $(grep '^sweep' "$T/dry")"

expect_fail "unknown dimension" "job 'x': sweep='depth': want rate_iops, rate, iodepth, numjobs or agents" \
  "$NFSTORM" run --dry-run --agents "$A0" --name=x --ioengine=null --size=1m --sweep=depth --sweep_values=1,2
expect_fail "bad SLO" "sweep_slo: 'q99' is not a percentile" \
  "$NFSTORM" run --dry-run --agents "$A0" --name=x --ioengine=null --size=1m --sweep=rate_iops \
  --sweep_values=1k --sweep_slo='q99<=5ms'
expect_fail "iodepth search with latency_target" "job 'x': a sweep=iodepth search and latency_target= cannot be combined" \
  "$NFSTORM" run --dry-run --agents "$A0" --name=x --ioengine=null --size=1m --sweep=iodepth \
  --sweep_start=1 --sweep_max=64 --latency_target=5ms
expect_fail "search start beyond the fleet" "job 'x': sweep=agents sweep_start=3 exceeds the fleet's 2 agents" \
  "$NFSTORM" run --agents "$A0,$A1" --name=x --ioengine=null --size=1m --sweep=agents --sweep_start=3 --sweep_max=4
expect_fail "agents beyond the fleet" "sweep=agents point 4 exceeds the fleet's 2 agents" \
  "$NFSTORM" run --agents "$A0,$A1" --name=x --ioengine=null --size=1m --sweep=agents --sweep_values=1,4
expect_fail "model key elsewhere" "null_capacity_iops= and null_latency= need ioengine=null" \
  "$NFSTORM" run --dry-run --agents "$A0" --name=x --size=1m --directory="$D" --null_capacity_iops=5k
echo "per-agent rule names the throttled agent"
