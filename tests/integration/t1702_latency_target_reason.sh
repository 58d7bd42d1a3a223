#!/usr/bin/env bash
# A latency_target phase ends when its depth search does, long before its
# runtime: the verdict says so and says when the figures are those of a
# depth that missed the target (depth 0: even depth 1 missed).  It said
# nothing ("phase verdict: ok", no reason), so a 1-s phase of a 20-s plan,
# over its target, read as a clean full run.  Re-rendered from the result
# and its journal: the same line.
source "$(dirname "$0")/lib.sh"
timeout 40 "$NFSTORM" run --local 1 --quiet --interval 100ms --json "$T/u.json" --name=u --rw=randread \
  --size=1m --ioengine=null --runtime=20 --time_based --latency_target=1us --latency_window=200ms \
  >"$T/out" 2>&1 || fail "unmet: $(tail -n3 "$T/out")"
want="latency target 1 us (p100) missed at depth 1 on 1 agent (first: agent 0): their figures are at depth 1, over the target"
grep -qxF "  - $want" "$T/out" || fail "unmet: no reason: $(grep -A2 'phase verdict' "$T/out")"
py "$T/u.json" "$want" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
assert p["control"]["latency_target"]["depth"] == [0], p["control"]
assert p["verdict"] == "ok" and p["reasons"] == [sys.argv[2]], (p["verdict"], p["reasons"])
assert p["duration_s"] < 2, p["duration_s"]
PY
for src in u.json u.json.journal; do
  timeout 30 "$NFSTORM" report "$T/$src" >"$T/re" 2>&1 || fail "report $src: $(tail -n2 "$T/re")"
  grep -qxF "  - $want" "$T/re" || fail "re-rendered from $src: $(grep -A2 'phase verdict' "$T/re")"
done
# met on both agents (null engine, iodepth 8, a generous target): the depth and the fleet's sum
timeout 40 "$NFSTORM" run --local 2 --quiet --interval 100ms --json "$T/m.json" --name=m --rw=randread \
  --size=1m --ioengine=null --iodepth=8 --runtime=20 --time_based --latency_target=10s \
  --latency_window=200ms >"$T/out" 2>&1 || fail "met: $(tail -n3 "$T/out")"
py "$T/m.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
assert p["control"]["latency_target"]["depth"] == [8, 8], p["control"]
want = "latency target 10000000 us (p100): depth found on 2 agents (fleet depth 16), the search ended the phase"
assert p["verdict"] == "ok" and p["reasons"] == [want], p["reasons"]
assert p["duration_s"] < 3, p["duration_s"]
PY
echo "a latency_target phase's verdict names the depth found, or that depth 1 missed"
