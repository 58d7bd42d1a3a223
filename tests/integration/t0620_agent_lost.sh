#!/usr/bin/env bash
# kill -9 of one of three agents mid-phase: the coordinator finishes within
# the timeout and a few seconds, exits 3 (partial), the other agents'
# results are complete, and the lost agent's intervals up to its death are
# in the report.  Then a silent (SIGSTOPped) agent is detected by timeout.
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
D=$T/d; mkdir -p "$D"
addrs=(); pids=()
for i in 0 1 2; do start_agent "$D"; addrs+=("$AGENT_ADDR"); pids+=("$AGENT_PID"); done
list=$(IFS=,; echo "${addrs[*]}")
start=$(date +%s)
timeout 60 "$NFSTORM" run --agents "$list" --quiet --agent-timeout 3s --json "$T/r.json" --name=k \
  --rw=randwrite --bs=4k --size=8m --runtime=6 --time_based >"$T/o" 2>&1 &
cpid=$!
wait_intervals "$T/r.json.journal" $(( 2 * ${#pids[@]} )) || fail "no 2 intervals of every agent: $(tail -n2 "$T/o")"
kill -9 "${pids[1]}"
wait $cpid; rc=$?
took=$(( $(date +%s) - start ))
[ $rc -eq 3 ] || fail "exit status $rc, want 3 (partial): $(tail -n2 "$T/o")"
[ $took -le "$(bound_s 14)" ] || fail "took ${took}s (goal 14 s + 2 baselines of ${BASE_MS} ms)"
grep -q "partial run: 1 of 3 agents lost: agent 1" "$T/o" || fail "no partial message: $(tail -n2 "$T/o")"
grep -q "agent 1 (.*) lost at" "$T/o" || fail "report does not say agent 1 was lost"
py "$T/r.json" <<'PY'
import json, sys
import iv_agents
r = json.load(open(sys.argv[1])); ph = r["phases"][0]
assert [a.get("lost", False) for a in r["agents"]] == [False, True, False], r["agents"]
w = ph["ops"]["write"]
ag = [a["ops"].get("write", {}).get("ops", 0) for a in ph["agents"]]
assert w["ops"] == sum(ag), (w["ops"], ag)
ints = sum(i["ops"].get("write", {}).get("ops", 0) for i in ph["intervals"])
assert w["ops"] == ints, (w["ops"], ints)
assert ag[1] > 0, "the lost agent's intervals before its death are missing"
assert ag[0] > 2 * ag[1] and ag[2] > 2 * ag[1], ag       # the others ran the full 6 s
n1 = sum(1 for i in ph["intervals"] for a in iv_agents.agents_n(i, len(ph["agents"])) if a["id"] == 1 and a["ops"].get("write", {}).get("ops", 0) > 0)
assert 1 <= n1 <= 4, n1
PY
# the journal rebuilds the same totals
# (exit 3: the report's status is the run's, and the run was partial)
timeout 20 "$NFSTORM" report "$T/r.json.journal" --json "$T/j.json" >"$T/jo" 2>&1
[ $? -eq 3 ] || fail "report from the journal of a partial run: want exit 3: $(tail -n1 "$T/jo")"
py "$T/r.json" "$T/j.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["phases"][0]["ops"]["write"] for p in sys.argv[1:3])
assert a["ops"] == b["ops"] and a["bytes"] == b["bytes"] and a["lat_ns"]["p99"] == b["lat_ns"]["p99"], (a, b)
PY
# a silent agent (stopped, connection open) is lost by timeout
kill -STOP "${pids[2]}"
timeout 60 "$NFSTORM" run --agents "${addrs[0]},${addrs[2]}" --quiet --agent-timeout 2s --name=s \
  --rw=read --bs=4k --size=1m --runtime=4 --time_based >"$T/o" 2>&1; rc=$?
kill -CONT "${pids[2]}"
[ $rc -ne 0 ] || fail "a stopped agent went unnoticed"
grep -Eq "agent 1 \(.*\): (no answer|silent)" "$T/o" || fail "stopped agent not named: $(tail -n2 "$T/o")"
echo "lost agents handled"
