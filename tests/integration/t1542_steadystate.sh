#!/usr/bin/env bash
# ss= across a fleet: a constant-rate job (rate_iops) settles, the
# coordinator judges the merged intervals and ends the phase on both
# agents long before its runtime, with fio's "steadystate" attained=1; a
# limit it cannot meet runs the whole runtime with attained=0.
source "$(dirname "$0")/lib.sh"
cat >"$T/s.fio" <<'FIO'
[steady]
ioengine=null
size=1M
rw=read
time_based=1
runtime=30
rate_iops=400
ss=iops:5%
ss_dur=1
ss_ramp=500ms
FIO
timeout 40 "$NFSTORM" run "$T/s.fio" --local 2 --quiet --interval 250ms --json "$T/s.json" >"$T/out" 2>&1 \
  || fail "$(tail -n3 "$T/out")"
py "$T/s.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
ss = p["control"]["steadystate"]
assert ss["attained"] == 1 and ss["ss"] == "iops" and ss["pct"] is True and ss["limit"] == 5, ss
assert ss["duration_s"] == 1 and ss["ramp_s"] == 0.5, ss
# ramp 500 ms + a 1-s window of 250-ms intervals: at 1.5 s at the earliest
assert 1.5 <= ss["at_s"] < 10, ss
# two agents x 400 IOPS, judged on the merge
assert abs(ss["mean"] - 800) < 40 and ss["criterion"] <= 0.05 * ss["mean"], ss
assert p["duration_s"] < ss["at_s"] + 1.5, (p["duration_s"], ss["at_s"])
for a in p["agents"]:
    assert a["duration_s"] < ss["at_s"] + 1.5, a
assert p["verdict"] == "ok", p["reasons"]
assert p["reasons"][0].startswith("ended early: steady state (iops:5%) at "), p["reasons"]
PY
# unthrottled, within 0.0001% of the mean is never met: the phase runs its runtime
sed -e 's/^ss=.*/ss=iops:0.0001%/' -e 's/^runtime=30/runtime=2/' -e '/^rate_iops/d' "$T/s.fio" >"$T/n.fio"
timeout 40 "$NFSTORM" run "$T/n.fio" --local 1 --quiet --interval 250ms --json "$T/n.json" >"$T/out" 2>&1 \
  || fail "$(tail -n3 "$T/out")"
py "$T/n.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
ss = p["control"]["steadystate"]
assert ss["attained"] == 0 and ss["ss"] == "iops" and ss["criterion"] > 0, ss
assert p["control"]["ended_early"] is False and 1.9 < p["duration_s"] < 2.5, p
assert p["verdict"] == "ok" and p["reasons"] == [], p["reasons"]
PY
expect_fail ss-syntax "^nfstorm: --ss: bad value 'iops' \(want CRITERION:LIMIT" \
  "$NFSTORM" run --parse-only --name=x --size=1M --ss=iops
echo "steady state ends a phase across agents"
