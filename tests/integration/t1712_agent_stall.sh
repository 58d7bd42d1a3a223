#!/usr/bin/env bash
# t1712: the agent itself is stopped (SIGSTOP) for longer than its --lease
# but within the coordinator's --agent-timeout.  The coordinator's pings
# wait unread in the socket: on SIGCONT that is the agent's own stall, not
# the coordinator's silence, so the agent keeps its session (no "lease
# expired"), the run ends normally and the agent's intervals all arrive.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
AGENT_AUTH="--insecure --lease 2s" start_agent "$D"
alog=$(ls -t "$T"/agent.*.log | grep -v '\.out$' | head -n1)
"$NFSTORM" run --agents "$AGENT_ADDR" --agent-timeout 10s --json "$T/r.json" --name=r --ioengine=null \
  --rw=randread --bs=4k --size=64m --runtime=6 --time_based --interval=500ms >"$T/out" 2>&1 &
c=$!; PIDS+=("$c")
wait_intervals "$T/r.json.journal" 2 || fail "no 2 intervals before the stall: $(tail -n2 "$T/out")"
kill -STOP "$AGENT_PID"; sleep 3; kill -CONT "$AGENT_PID"    # the stall itself, past the lease
timeout 30 tail --pid=$c -f /dev/null; wait $c; rc=$?
! grep -q "lease expired" "$alog" || fail "the agent blamed the coordinator for its own stop: $(grep -m1 'lease expired' "$alog")"
[ $rc -eq 0 ] || fail "agent stopped 3 s with --lease 2s: exit $rc, want 0: $(tail -n3 "$T/out")"
read -r ops niv _ < <(python3 "$(dirname "$0")/py/check_kept.py" "$T/r.json" read) || fail "the run's result: see above"
echo "agent stopped 3 s past its 2 s lease: session kept, $ops ops in $niv intervals"
kill -0 "$AGENT_PID" || fail "the agent died"
echo "t1712: PASS"
