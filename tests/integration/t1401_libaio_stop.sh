#!/usr/bin/env bash
# Stopping a libaio phase mid-run (SIGINT to the coordinator, iodepth 64
# of 64 KiB direct writes in flight): the coordinator exits 130 within a
# few seconds with partial results that add up, the agent releases its AIO
# context (no "[aio]" mapping left) and serves the next run at once, whose
# counts are exact.
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
D=$T/d; mkdir -p "$D"
start_agent "$D"
"$NFSTORM" run --agents "$AGENT_ADDR" --json "$T/i.json" --name=s --rw=randwrite --bs=64k \
  --size=32m --numjobs=2 --ioengine=libaio --iodepth=64 --direct=1 --runtime=30 --time_based \
  >"$T/o" 2>&1 &
c=$!
PIDS+=("$c")
wait_grep "$T/o" "phase 1/1 s: started on|libaio refused by the kernel" || fail "the phase did not start: $(tail -n2 "$T/o")"
grep -q 'libaio refused by the kernel' "$T/o" || wait_intervals "$T/i.json.journal" 2 || fail "no 2 intervals: $(tail -n2 "$T/o")"
grep -q 'libaio refused by the kernel' "$T/o" && skip "$(grep -m1 'refused' "$T/o")"
grep -q '\[aio\]' "/proc/$AGENT_PID/maps" || fail "the agent has no AIO context while the phase runs"
SECONDS=0
kill -INT $c
timeout 20 tail --pid=$c -f /dev/null; wait $c; rc=$?
[ $rc -eq 130 ] || fail "exit status $rc after SIGINT, want 130: $(tail -n2 "$T/o")"
stop_s=$SECONDS
[ $stop_s -le "$(bound_s 5)" ] || fail "the coordinator took ${stop_s}s to stop (goal 5 s + 2 baselines of ${BASE_MS} ms)"
py "$T/i.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]; w = p["ops"]["write"]
assert w["ops"] > 0 and w["ops"] == sum(a["ops"]["write"]["ops"] for a in p["agents"]), w
assert w["bytes"] == w["ops"] * 65536, w
assert 1.5 < p["duration_s"] < 10, p["duration_s"]
PY
kill -0 "$AGENT_PID" || fail "the agent died"
for _ in $(seq 50); do grep -q '\[aio\]' "/proc/$AGENT_PID/maps" || break; sleep 0.1; done
grep -q '\[aio\]' "/proc/$AGENT_PID/maps" && fail "the agent still holds an AIO context after the stop"
SECONDS=0
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/n.json" --name=n --rw=write --bs=4k \
  --size=1m --ioengine=libaio --iodepth=8 --filename="$D/n" >"$T/n" 2>&1 || fail "next run: $(tail -n2 "$T/n")"
[ $SECONDS -le "$(bound_s 5)" ] || fail "next run served after ${SECONDS}s (goal 5 s + 2 baselines of ${BASE_MS} ms)"
py "$T/n.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert w["ops"] == 256 and w["bytes"] == 1 << 20 and w["errors"] == 0, w
PY
[ "$(stat -c %s "$D/n")" -eq $((1 << 20)) ] || fail "$D/n: $(stat -c %s "$D/n") bytes"
echo "libaio stopped mid-run: exit 130 in ${stop_s}s, agent idle, next run exact"
