#!/usr/bin/env bash
# The agent's loop thread does no file work: with unlink=1 on 6000 files
# and every unlink taking 2 ms (an LD_PRELOAD shim; 12 s in all), the
# heartbeats go on, the coordinator (agent timeout 3 s) never loses the
# agent and exits 0, and a coordinator that connects while the agent still
# deletes files is served when it is done, never told "busy" (issue 9,
# defect 4).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_slow_agent "$D"

SECONDS=0
timeout 120 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --agent-timeout 3s --json "$T/r.json" \
  --name=many --rw=write --bs=4k --filesize=4k --nrfiles=6000 --size=24000k --unlink=1 \
  --directory="$D" >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "unlink of 6000 files: exit $rc: $(tail -n2 "$T/out")"
grep -qi "lost" "$T/out" && fail "agent reported lost while unlinking: $(grep -i lost "$T/out" | head -1)"
py "$T/r.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
assert ph["ops"]["write"]["ops"] == 6000, ph["ops"]["write"]["ops"]
PY
# the agent is still deleting (about 12 s): the next coordinator waits, then is served
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --agent-timeout 3s --json "$T/n.json" --name=next \
  --rw=write --bs=4k --size=1m --filename="$D/n" >"$T/next" 2>&1 \
  || fail "the run after it was not served: $(tail -n2 "$T/next")"
left=$(find "$D" -name 'many.*' | wc -l)
[ "$left" -eq 0 ] || fail "$left of 6000 files not deleted"
[ $SECONDS -ge 10 ] || fail "the shim did not slow unlink down (${SECONDS}s): the test proves nothing"
echo "6000 slow unlinks off the loop thread: exit 0, no agent lost, next run served (${SECONDS}s)"
