#!/usr/bin/env bash
# The coordinator's memory follows what was measured (issue 9, defect 7):
# 64 short phases on 4 agents.  Each agent's phase totals were a dense
# ~400 KB op_set (64 x 4 x 400 KB = 100 MB here); they are kept sealed now,
# so the coordinator's peak RSS stays under 64 MiB, and the merge is still
# exact (phase = sum of agents = sum of intervals, in the JSON and after a
# reload through `nfstorm report`).
source "$(dirname "$0")/lib.sh"
{
  printf '[global]\nioengine=null\nrw=randread\nbs=4k\nsize=256k\n'
  for i in $(seq 0 63); do printf '[p%d]\nstonewall\n' "$i"; done
} >"$T/p.fio"
"$NFSTORM" run --local 4 --quiet --json "$T/r.json" "$T/p.fio" >"$T/o" 2>&1 &
cpid=$!; hwm=0
while kill -0 $cpid 2>/dev/null; do
  v=$(awk '/^VmHWM:/ { print $2 }' /proc/$cpid/status 2>/dev/null); [ -n "$v" ] && hwm=$v
  sleep 0.1
done
wait $cpid || fail "64-phase run failed: $(tail -n2 "$T/o")"
[ "$hwm" -gt 0 ] || fail "could not read the coordinator's VmHWM"
# the figure is for the release build (ASan's shadow memory multiplies it)
ldd "$NFSTORM" | grep -q libasan || [ "$hwm" -lt 65536 ] || fail "coordinator peak RSS $((hwm / 1024)) MiB for 64 phases x 4 agents (want < 64 MiB)"
py "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["phases"]) == 64
for ph in r["phases"]:
    tot = ph["ops"]["read"]["ops"]
    assert tot == 4 * 64, (ph["name"], tot)
    assert tot == sum(a["ops"]["read"]["ops"] for a in ph["agents"])
    assert tot == sum(i["ops"].get("read", {}).get("ops", 0) for i in ph["intervals"])
    assert all(a["ops"]["read"]["lat_ns"]["max"] >= a["ops"]["read"]["lat_ns"]["min"] for a in ph["agents"])
PY
timeout 60 "$NFSTORM" report "$T/r.json" --json "$T/again.json" >"$T/ro" 2>&1 || fail "report: $(tail -n1 "$T/ro")"
py "$T/r.json" "$T/again.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
# every agent's totals (counters and latency figures) survive the reload
for pa, pb in zip(a["phases"], b["phases"]):
    assert [x["ops"] for x in pa["agents"]] == [y["ops"] for y in pb["agents"]], pa["name"]
PY
echo "coordinator: 64 phases x 4 agents in $((hwm / 1024)) MiB, merge exact"
