#!/usr/bin/env bash
# t1713: the agent is stopped (SIGSTOP) about 1 s into a 3 s rate-limited
# phase and resumed 4 s later, after its window ended.  Its jobs end then,
# but the phase's duration is its window (3 s), not the time its threads
# took to be scheduled again: the ops it did (~1/3 of the 600 planned) over
# 3 s.  (A duration stretched to the resume, ~5 s, understated the rate:
# a starved CI machine made two identical configurations look 5x apart.)
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
"$NFSTORM" run --agents "$AGENT_ADDR" --json "$T/r.json" --name=r --ioengine=null --rw=randread \
  --bs=4k --size=4m --runtime=3 --time_based --rate_iops=200 >"$T/out" 2>&1 &
c=$!; PIDS+=("$c")
# one interval (1 s) into the phase, whatever the launch took
wait_intervals "$T/r.json.journal" 1 || fail "no interval before the stall: $(tail -n2 "$T/out")"
kill -STOP "$AGENT_PID"; sleep 4; kill -CONT "$AGENT_PID"     # the stall itself
timeout 30 tail --pid=$c -f /dev/null; wait $c; rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "exit $rc: $(tail -n3 "$T/out")"
py "$T/r.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
o = p["ops"]["read"]
print("stopped past the window: %d ops, duration %.3f s, %.1f IOPS" % (o["ops"], p["duration_s"], o["iops"]))
assert 20 <= o["ops"] < 560, o["ops"]                  # it was stopped inside the window
assert p["duration_s"] <= 3.2, p["duration_s"]         # the window, not the resume
assert abs(o["iops"] - o["ops"] / p["duration_s"]) < 1, o
PY
echo "t1713: PASS"
