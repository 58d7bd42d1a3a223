#!/usr/bin/env bash
# "start skew" says why it was not measured, truthfully: a phase re-rendered
# from a kill -9 journal has two agents that issued ops but no start times
# (not "0 agents issued ops"), and a run that lost one of its two agents
# mid-phase has one start time of two (not "1 agent issued ops").
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"; A1=$AGENT_ADDR; start_agent "$D"; A2=$AGENT_ADDR; P2=$AGENT_PID
"$NFSTORM" run --agents "$A1,$A2" --name=b --rw=randrw --bs=4k --size=1m --directory="$D" --filename='f.${agent}' \
  --runtime=30 --time_based --rate_iops=200 --quiet --json "$T/k.json" >"$T/o" 2>&1 &
c=$!; PIDS+=("$c")
wait_intervals "$T/k.json.journal" 4 30 || fail "no intervals: $(cat "$T/o")"
kill -9 $c; wait $c 2>/dev/null
timeout 20 "$NFSTORM" report "$T/k.json.journal" --json "$T/r.json" --html "$T/r.html" >"$T/ro" 2>/dev/null
grep -q "agents issued ops" "$T/ro" && fail "journal: false reason: $(grep skew "$T/ro")"
grep -q "; start skew: not measured (the start times of 2 agents that issued ops did not arrive)$" "$T/ro" \
  || fail "journal: no true reason: $(grep -i skew "$T/ro")"
grep -q "start skew: not measured (the start times of 2 agents that issued ops did not arrive)" "$T/r.html" \
  || fail "journal: HTML does not say it: $(grep -o 'start skew[^.]*' "$T/r.html")"
grep -q "start skew 0" "$T/r.html" && fail "journal: HTML shows a skew of 0 that was not measured"
py "$T/r.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
assert ph["start_skew_agents"] == 0 and ph["start_skew_unknown_agents"] == 2, ph
assert sum(a["ops"].get("read", {}).get("ops", 0) > 0 for a in ph["agents"]) == 2
PY

# one of two agents lost mid-phase (kill -9): its totals are salvaged, its start time never came
"$NFSTORM" run --agents "$A1,$A2" --agent-timeout 2s --name=b --rw=randrw --bs=4k --size=1m --directory="$D" \
  --filename='f.${agent}' --runtime=4 --time_based --json "$T/l.json" >"$T/lo" 2>&1 &
c=$!; PIDS+=("$c")
wait_intervals "$T/l.json.journal" 4 30 || fail "no intervals (lost agent): $(cat "$T/lo")"
kill -9 "$P2"
timeout 30 tail --pid=$c -f /dev/null; wait $c; rc=$?
[ $rc -eq 3 ] || fail "lost agent: exit $rc, want 3: $(tail -n3 "$T/lo")"
grep -q "agents\? issued ops" "$T/lo" && fail "lost agent: false reason: $(grep skew "$T/lo")"
grep -q "; start skew: not measured (the start time of 1 of 2 agents that issued ops did not arrive)$" "$T/lo" \
  || fail "lost agent: no true reason: $(grep -i skew "$T/lo")"
echo "start skew: journal says 2 start times missing, a lost agent 1 of 2; HTML and JSON agree"
