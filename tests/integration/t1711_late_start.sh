#!/usr/bin/env bash
# t1711: the start message reaches the agent after the phase's start
# instant (held 700 ms by a proxy; the coordinator leaves ~200 ms): the
# agent's jobs begin ~500 ms into a 1 s window.  Its rates are over the
# time it ran: at rate_iops=200 it did ~100 ops in ~0.5 s, so 200 IOPS,
# not 100 over a second it never had (seen on a starved CI machine as a
# 5x "difference" between two identical rate-limited configurations).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
port=${AGENT_ADDR##*:}
timeout 30 python3 "$(dirname "$0")/py/rewrite_plan.py" "$T/pport" "$port" HOLD 700 start 2>"$T/proxy.log" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$T/pport" ] && break; sleep 0.1; done
timeout 30 "$NFSTORM" run --agents "127.0.0.1:$(cat "$T/pport")" --quiet --json "$T/r.json" --name=s \
  --ioengine=null --rw=randread --bs=4k --size=4m --runtime=1 --time_based --rate_iops=200 >"$T/o" 2>&1 ||
  fail "run through the holding proxy: $(tail -n2 "$T/o")"
grep -q "start held 700 ms" "$T/proxy.log" || fail "the proxy did not hold the start: $(cat "$T/proxy.log")"
py "$T/r.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
a = p["agents"][0]
ops, iops, dur = p["ops"]["read"]["ops"], p["ops"]["read"]["iops"], p["duration_s"]
print("late start: lag %.0f ms, %d ops in %.3f s: %.1f IOPS" % (a["start_lag_ns"] / 1e6, ops, dur, iops))
assert a["start_lag_ns"] > 300e6, a["start_lag_ns"]        # it did begin late
assert 30 <= ops <= 170, ops                                # part of the 200 a full second holds
assert dur < 0.85, dur                                      # the window it had, not the planned one
assert 180 <= iops <= 215, iops                             # the rate it kept
PY
echo "t1711: PASS"
