#!/usr/bin/env bash
# Issue 23 item 4, the rest of its class: while a phase runs, an agent's
# sampler sends an interval every interval whatever its jobs do, so pings
# alone do not keep an agent in a running phase either.  A peer that gets
# ready and starts, then only answers pings, is lost --agent-timeout after
# the interval it owes: the run goes on with the real agent (partial, exit
# 3, naming it and why) instead of waiting for its phase-done for ever.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fake_agent.sh"
D=$T/d; mkdir -p "$D"
head -c 32 /dev/urandom | base64 >"$T/secret"; chmod 600 "$T/secret"
AGENT_AUTH="--secret-file $T/secret"
start_agent "$D"; real=$AGENT_ADDR
fake_agent nointervals "$T/secret"
SECONDS=0
timeout 40 "$NFSTORM" run --agents "$real,$FAKE_ADDR" --secret-file "$T/secret" --quiet --agent-timeout 2s \
  --json "$T/r.json" --name=w --rw=write --bs=4k --size=1m --runtime=2 --time_based --rate_iops=50 \
  '--filename='"$D"'/f.${agent}' >"$T/o" 2>&1; rc=$?
took=$SECONDS
[ $rc -ne 124 ] || fail "a running peer that sends no interval held the run for 40 s"
[ $rc -eq 3 ] || fail "exit status $rc, want 3 (partial): $(tail -n 3 "$T/o")"
[ $took -le 10 ] || fail "the run took ${took}s with --agent-timeout 2s"
grep -Eq "partial run: 1 of 2 agents lost: agent 1 \($FAKE_ADDR\) at [0-9.]+ s \(answers but sent no interval 0 of phase 0 for [2-5]\.[0-9] s after it was due \(--agent-timeout\)\)" "$T/o" ||
  fail "no reason naming the agent: $(tail -n 3 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [a.get("lost", False) for a in r["agents"]] == [False, True], r["agents"]
w = r["phases"][0]["agents"][0]["ops"]["write"]["ops"]
assert 80 <= w <= 120, w        # 2 s at 50 IOPS: the real agent's phase is whole
PY
echo "a running peer that sends no interval: lost after --agent-timeout, the real agent's phase whole (${took}s)"
