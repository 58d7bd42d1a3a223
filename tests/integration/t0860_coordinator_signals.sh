#!/usr/bin/env bash
# No signal kills the coordinator silently.
# 1. Paused (SIGSTOP) past the agent's lease, then resumed: the agent has
#    hung up, our next write gets EPIPE, which used to kill us with SIGPIPE
#    (exit 141, nothing printed, no JSON).  Now: the agent is lost (with
#    one agent: the run failed, exit 1; docs/running.md) and the JSON holds
#    what arrived.
# 2. SIGHUP mid-run is SIGTERM's twin: agents stopped, JSON written, 130.
# 3. SIGTERM around the end of a run (as the run's own handlers go away,
#    while the report and JSON are written): never killed by it, the JSON
#    always written, exit 0 or 130.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
AGENT_AUTH="--insecure --lease 2s" start_agent "$D"
job=(--quiet --name=p --rw=randwrite --bs=4k --size=8m --filename="$D/p" --runtime=10 --time_based)

"$NFSTORM" run --agents "$AGENT_ADDR" --json "$T/p.json" "${job[@]}" >"$T/o1" 2>&1 &
c=$!; PIDS+=("$c")
wait_intervals "$T/p.json.journal" 3 || fail "no 3 intervals before the pause: $(tail -n2 "$T/o1")"
kill -STOP $c; sleep 5; kill -CONT $c     # the pause itself, past the agent's 2 s lease
timeout 30 tail --pid=$c -f /dev/null; wait $c; rc=$?
[ $rc -lt 128 ] || fail "paused coordinator died of signal $((rc - 128)) (exit $rc): $(tail -n2 "$T/o1")"
[ $rc -eq 1 ] || [ $rc -eq 3 ] || fail "paused coordinator: exit $rc, want 1 or 3 (agent lost): $(tail -n2 "$T/o1")"
grep -q "agent 0 ($AGENT_ADDR).*connection" "$T/o1" || fail "the lost agent is not named: $(tail -n2 "$T/o1")"
[ -s "$T/p.json" ] || fail "no JSON result after the pause"
py "$T/p.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["agents"][0]["lost"] is True, r["agents"][0]
w = r["phases"][0]["ops"]["write"]
assert w["ops"] > 0, w          # ~3 s of writes arrived before the pause
PY

sleep 1
"$NFSTORM" run --agents "$AGENT_ADDR" --json "$T/h.json" "${job[@]}" >"$T/o2" 2>&1 &
c=$!; PIDS+=("$c")
wait_intervals "$T/h.json.journal" 3 || fail "SIGHUP: no 3 intervals: $(tail -n2 "$T/o2")"
kill -HUP $c
timeout 30 tail --pid=$c -f /dev/null; wait $c; rc=$?
[ $rc -eq 130 ] || fail "SIGHUP: exit $rc, want 130: $(tail -n2 "$T/o2")"
grep -q "interrupted by SIGTERM" "$T/o2" || fail "SIGHUP: no interruption message: $(cat "$T/o2")"
py "$T/h.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert w["ops"] > 0, w
PY
ls "$T"/*.json.* 2>/dev/null | grep -v '\.journal$' && fail "temp files left: $(ls "$T")"

late=0
for off in 1.0 1.1 1.15 1.2 1.22 1.24 1.26 1.28 1.3 1.35; do
  rm -f "$T"/e.json*
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/e.json" --name=e --ioengine=null --rw=randread \
    --bs=4k --size=1m --runtime=1 --time_based >"$T/o3" 2>&1 &
  c=$!; PIDS+=("$c")
  sleep $off; kill -TERM $c 2>/dev/null
  timeout 20 tail --pid=$c -f /dev/null; wait $c; rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 130 ] || fail "SIGTERM at ${off}s of a 1s run: exit $rc: $(tail -n2 "$T/o3")"
  [ -s "$T/e.json" ] || fail "SIGTERM at ${off}s of a 1s run: no JSON (exit $rc)"
  ls "$T"/e.json.* 2>/dev/null | grep -v '\.journal$' && fail "SIGTERM at ${off}s: temp file left"
  grep -q "after the run ended" "$T/o3" && late=$((late + 1))
done
echo "paused past the lease: agent lost, JSON written; SIGHUP: exit 130 with JSON; SIGTERM at the end of a run x10 ($late after it ended): never killed, JSON written"
