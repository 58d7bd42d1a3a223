#!/usr/bin/env bash
# Every sleep of a job thread ends on stop: startdelay, thinktime and a
# rate-limited schedule; Ctrl-C ends the run within seconds and a lost
# coordinator frees the agent at once (issue 9, defect 3).
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
D=$T/d; mkdir -p "$D"
start_agent "$D"

# stop_within NAME LIMIT_S SIGNAL ARGS...: start a run, signal it 2 intervals in,
# fail unless it exits within LIMIT_S
stop_within() {
  local name=$1 limit=$2 sig=$3; shift 3
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$name.json" "$@" >"$T/$name" 2>&1 &
  local c=$!; disown $c
  wait_intervals "$T/$name.json.journal" 2 || fail "$name: no 2 intervals: $(tail -n2 "$T/$name")"
  kill -$sig $c
  SECONDS=0
  while kill -0 $c 2>/dev/null && [ $SECONDS -lt 30 ]; do sleep 0.1; done
  kill -0 $c 2>/dev/null && { kill -9 $c; fail "$name: still running 30 s after SIG$sig"; }
  [ $SECONDS -le "$(bound_s "$limit")" ] || fail "$name: took ${SECONDS}s to stop after SIG$sig (goal <= $limit s + 2 baselines of ${BASE_MS} ms)"

}
stop_within startdelay 5 INT --name=sd --rw=write --bs=4k --size=1m --filename="$D/s" --startdelay=30 --runtime=2
stop_within thinktime 5 INT --name=tt --rw=write --bs=4k --size=1m --filename="$D/t" --thinktime=20s \
  --runtime=60 --time_based
stop_within ratelimit 5 INT --name=rl --rw=write --bs=4k --size=1m --filename="$D/r" --rate_iops=1 \
  --runtime=60 --time_based
# a coordinator killed in a startdelay: the agent is free for the next one at once
stop_within killed 5 KILL --name=k --rw=write --bs=4k --size=1m --filename="$D/k" --startdelay=30 --runtime=2
SECONDS=0
timeout 20 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/n.json" --name=n --rw=write --bs=4k \
  --size=1m --filename="$D/n" >"$T/n" 2>&1 || fail "next run not served: $(tail -n1 "$T/n")"
[ $SECONDS -le "$(bound_s 5)" ] || fail "next run took ${SECONDS}s after a killed coordinator (goal 5 s + 2 baselines of ${BASE_MS} ms)"
py "$T/n.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 256
PY
echo "startdelay, thinktime and rate waits end on stop; agent free after a killed coordinator"
