#!/usr/bin/env bash
# Issue 23 item 12 (liveness): an agent is judged by what it still sends,
# not by whether a whole frame made it.  The fake agent's 3 KiB phase-done
# crawls in over about 5 s (64 bytes every 0.1 s, as a large frame through
# a link its own load fills) and it answers no ping meanwhile; with
# --agent-timeout 2s the run must still complete with the agent not lost
# (before, its silence was counted from the last complete frame: "silent for
# 2.x s", exit 1; nor may the running rule call it lost for an interval it
# does not owe: "answers but sent no interval 2").  And a bad --control-tos is refused in one line.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fake_agent.sh"
fake_agent trickle
timeout 40 "$NFSTORM" run --agents "$FAKE_ADDR" --quiet --agent-timeout 2s --name=x --rw=read --bs=4k \
  --size=64k --filename=f --json "$T/r.json" >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "exit status $rc, want 0: $(tail -n3 "$T/out")"
grep -q "lost\|silent" "$T/out" && fail "the agent was called lost or silent: $(grep "lost\|silent" "$T/out" | head -n2)"
py "$T/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["agents"][0].get("lost", False), d["agents"][0]
ph = d["phases"][0]
assert ph["finished"], "phase not finished"
assert ph["ops"]["read"]["ops"] == 20, ph["ops"]["read"]
PY
# --control-tos: a bad value is one line, exit 2, on both programs
expect_fail "coordinator tos" "^nfstorm: --control-tos: bad value '0x11'" "$NFSTORM" run --local 1 --control-tos 0x11 \
  --name=x --rw=read --bs=4k --size=64k
"$AGENT" --listen 127.0.0.1:0 --insecure --allow "$T" --control-tos dscp:64 >"$T/aout" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "agent --control-tos dscp:64: exit status $rc, want 2"
grep -q "^nfstorm-agent: --control-tos dscp:64: want none, lowdelay" "$T/aout" || fail "agent: $(cat "$T/aout")"
echo "an agent whose frame is still arriving is alive: not lost with --agent-timeout 2s"
