#!/usr/bin/env bash
# t1714: `nfstorm serve` itself is stopped (SIGSTOP) for 4 s, twice its
# --agent-timeout: the idle agents' pings wait unread in the sockets, so on
# SIGCONT that is the pool's stall, not the agents' silence.  No agent
# leaves, and the next submitted run gets both.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
D=$T/d; mkdir -p "$D"
SERVE_ARGS="--agent-timeout 2s" start_serve
dial_agent a "$D" --label za
dial_agent b "$D" --label zb
pool_has 2
kill -STOP "$SPID"; sleep 4; kill -CONT "$SPID"; sleep 1.5
! grep -q "agent left" "$T/serve.log" || fail "an agent was dropped for the pool's own stop: $(grep -m1 'agent left' "$T/serve.log")"
pool_has 2
prun "$T/out" "$T/err" --json "$T/r.json" --name=w --rw=write --bs=4k --size=64k --filename="$D/f.\${agent}" ||
  fail "run after the stall: $(tail -n3 "$T/err")"
py "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["agents"]) == 2, r["agents"]
assert r["phases"][0]["ops"]["write"]["ops"] == 32, r["phases"][0]["ops"]["write"]
PY
echo "t1714: serve stopped 4 s with --agent-timeout 2s: both agents stayed, the next run took both"
