#!/usr/bin/env bash
# Ctrl-C at a terminal signals the whole foreground process group.  The
# --local agents are in a group of their own, so only the coordinator gets
# it: it stops them and collects their partial results (exit 130, no agent
# lost).  Before, the agents died of the SIGINT and were reported lost.
source "$(dirname "$0")/lib.sh"
E=$T/e; mkdir -p "$E"
setsid "$NFSTORM" run --local 2 --quiet --json "$T/i.json" --name=w --rw=randwrite --bs=4k --size=8m \
  --directory="$E" --runtime=20 --time_based >"$T/o" 2>&1 &
c=$!; PIDS+=("$c")
wait_intervals "$T/i.json.journal" 4 || fail "the run has no 2 intervals of its 2 agents: $(tail -n2 "$T/o")"
[ "$(ps -o pgid= -p $c | tr -d ' ')" = "$c" ] || fail "test setup: the coordinator does not lead its process group"
kill -INT -- -$c                       # what the terminal does on Ctrl-C
timeout 20 tail --pid=$c -f /dev/null; wait $c; rc=$?
[ $rc -eq 130 ] || fail "Ctrl-C to the process group: exit $rc, want 130: $(tail -n3 "$T/o")"
py "$T/i.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
lost = [a["id"] for a in r["agents"] if a.get("lost")]
assert not lost, "agents lost to the terminal's SIGINT: %r" % lost
for a in r["phases"][0]["agents"]:
    assert a["ops"]["write"]["ops"] > 0, a
PY
echo "Ctrl-C with --local: exit 130, both agents' results collected"
