#!/usr/bin/env bash
# latency_target across a fleet: each agent searches the highest queue depth
# whose latency_percentile stays under latency_target in each
# latency_window, then ends the phase (fio's latency_run=0); the result
# gives the depth per agent and the fleet's sum.  null engine, iodepth=16:
# every window meets 50us, so 1, 2, 4, 8, 16 and done (5 windows).  psync
# at 1us for every op (p100): missed at depth 1, depth 0.
source "$(dirname "$0")/lib.sh"
cat >"$T/l.fio" <<'FIO'
[lt]
ioengine=null
size=1M
rw=randread
time_based=1
runtime=30
iodepth=16
latency_target=50us
latency_window=300ms
latency_percentile=99
FIO
timeout 40 "$NFSTORM" run "$T/l.fio" --local 2 --quiet --interval 100ms --json "$T/l.json" >"$T/out" 2>&1 \
  || fail "$(tail -n3 "$T/out")"
py "$T/l.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
lt = p["control"]["latency_target"]
assert lt["target_us"] == 50 and lt["window_us"] == 300000 and lt["percentile"] == 99, lt
assert lt["depth"] == [16, 16] and lt["fleet_depth"] == 32, lt
# five 300-ms windows, then the phase ended (not its 30-s runtime)
assert 1.4 < p["duration_s"] < 3, p["duration_s"]
assert p["verdict"] == "ok" and p["ops"]["read"]["errors"] == 0, p["reasons"]
PY
"$NFSTORM" report "$T/l.json" --json "$T/l2.json" >/dev/null 2>&1 || fail "report of the saved result"
py "$T/l.json" "$T/l2.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["phases"][0]["control"] for f in sys.argv[1:3])
assert a == b, (a, b)
PY
mkdir -p "$T/d"
cat >"$T/u.fio" <<FIO
[unmet]
directory=$T/d
size=1M
rw=randread
time_based=1
runtime=30
latency_target=1us
latency_window=200ms
FIO
timeout 40 "$NFSTORM" run "$T/u.fio" --local 1 --quiet --interval 100ms --json "$T/u.json" >"$T/out" 2>&1 \
  || fail "$(tail -n3 "$T/out")"
py "$T/u.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
lt = p["control"]["latency_target"]
assert lt["depth"] == [0] and lt["fleet_depth"] == 0 and lt["percentile"] == 100, lt
assert p["duration_s"] < 2, p["duration_s"]
PY
expect_fail pct "^nfstorm: --latency_percentile: bad value '101'" \
  "$NFSTORM" run --parse-only --name=x --size=1M --latency_target=1ms --latency_percentile=101
echo "latency_target finds a depth per agent"
