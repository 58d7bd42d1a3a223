#!/usr/bin/env bash
# t1710: the coordinator itself is stopped (SIGSTOP) for longer than its
# --agent-timeout but shorter than the agents' --lease.  The agents kept
# running and their intervals wait unread in the sockets: on SIGCONT that is
# the coordinator's stall, not the agents' silence.  No agent is lost, the
# run passes, every interval arrives (the phase's ops are the intervals'
# sum over the whole runtime).  Then a stop past the lease: the agent ends
# the session, and the report blames the coordinator's stall, not the agent.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
# stopped_run NAME RUNTIME: a run whose coordinator is stopped from 1.5 s
# to 5.5 s; its exit status in rc, its output in $T/NAME.out
stopped_run() {
  "$NFSTORM" run --agents "$AGENT_ADDR" --agent-timeout 2s --json "$T/$1.json" --name="$1" --ioengine=null \
    --rw=randread --bs=4k --size=64m --runtime="$2" --time_based --interval=500ms >"$T/$1.out" 2>&1 &
  local c=$!; PIDS+=("$c")
  wait_intervals "$T/$1.json.journal" 2 || fail "$1: no 2 intervals before the stall"
  kill -STOP $c; sleep 4; kill -CONT $c     # the stall itself, past --agent-timeout
  timeout 30 tail --pid=$c -f /dev/null; wait $c; rc=$?
}
AGENT_AUTH="--insecure --lease 30s" start_agent "$D"
stopped_run s 6
[ $rc -eq 0 ] || fail "stopped 4 s with --agent-timeout 2s: exit $rc, want 0: $(tail -n3 "$T/s.out")"
! grep -Eq "lost at|silent for|agents lost" "$T/s.out" || fail "an agent was blamed for the coordinator's stop: $(grep -Em1 "lost at|silent for|agents lost" "$T/s.out")"
read -r ops niv dur < <(python3 "$(dirname "$0")/py/check_kept.py" "$T/s.json" read) || fail "the stalled run's result: see above"
py "$dur" "$niv" <<'PY'
import sys
dur, niv = float(sys.argv[1]), int(sys.argv[2])
assert 5.5 <= dur <= 7.5, dur
assert niv >= 11, niv
PY
echo "stopped 4 s: $ops ops in $niv intervals over $dur s, no agent lost"

sleep 1
kill "$AGENT_PID" 2>/dev/null; wait "$AGENT_PID" 2>/dev/null
AGENT_AUTH="--insecure --lease 2s" start_agent "$D"
stopped_run l 8
[ $rc -lt 128 ] || fail "stopped past the lease: died of signal $((rc - 128))"
[ $rc -ne 0 ] || fail "stopped past the lease: exit 0, want a lost agent"
grep -q "agent 0 ($AGENT_ADDR).*coordinator itself was not running for at least [0-9.]* s" "$T/l.out" ||
  fail "the stop past the lease is not named as the coordinator's: $(grep -m2 'agent 0' "$T/l.out")"
# the timeouts are held in uint32 milliseconds: past a day is refused by
# name, never wrapped to a short one (50d was ~7 h, 100000h ~40 min)
for v in 50d 100000h; do
  expect_fail "--agent-timeout $v" "--agent-timeout: bad value '$v' \(want 1s to 1d\)" \
    "$NFSTORM" run --local 1 --agent-timeout "$v" --name=x --ioengine=null --rw=read --size=1m
  expect_fail "--connect-timeout $v" "--connect-timeout: bad value '$v' \(want 1ms to 1d\)" \
    "$NFSTORM" run --local 1 --connect-timeout "$v" --name=x --ioengine=null --rw=read --size=1m
done
echo "t1710: PASS"
