#!/usr/bin/env bash
# Issue 23 item 4, "nothing waits forever" (the agent's side): a remote
# agent whose previous run's preparation is stuck in a storage call
# (faultfs slow: a fallocate sleeps 8 s) outlives that run's coordinator,
# which gave up after --prepare-timeout.  The next coordinator is told at
# once, in one line naming the agent and the coordinator whose run it is
# still finishing, that it waits for that run (before, it sat silent until
# the agent was free); and the phase it then runs records its own
# duration (runtime=1s: about 1 s), not the time spent waiting before it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
head -c 32 /dev/urandom | base64 >"$T/secret"; chmod 600 "$T/secret"
AGENT_AUTH="--secret-file $T/secret"
faultfs_mount "slow,ms=8000"
start_agent "$FFS_M"; a=$AGENT_ADDR
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# the previous run: lost after --prepare-timeout 2s, its fallocate still asleep
timeout 30 "$NFSTORM" run --agents "$a" --secret-file "$T/secret" --quiet --agent-timeout 2s --prepare-timeout 2s \
  --name=w --rw=write --bs=4k --size=64m --fallocate=native --ioengine=psync "--directory=$FFS_M" >"$T/o1" 2>&1
grep -q "not ready for phase 0 after .* (--prepare-timeout)" "$T/o1" || fail "the first run was not lost: $(cat "$T/o1")"
grep -q "^kind=slow file=w" "$FFS_LOG" || fail "the slow fallocate never happened: the test proves nothing"

# the next run: told why it waits, and its phase is 1 s long
t=$(now_ms)
timeout 30 "$NFSTORM" run --agents "$a" --secret-file "$T/secret" --json "$T/r2.json" --name=x --rw=write --bs=4k \
  --size=1m --runtime=1s --time_based --fallocate=none --ioengine=psync "--directory=$FFS_M" >"$T/o2" 2>&1; rc=$?
took=$(( $(now_ms) - t ))
[ $rc -eq 0 ] || fail "the next run: exit status $rc: $(tail -n 3 "$T/o2")"
grep -Eq "^nfstorm: agent 0 \($a\) is still finishing a previous run \(coordinator 127\.0\.0\.1:[0-9]+\): waiting for it to finish that run$" "$T/o2" ||
  fail "the next run was not told why it waits: $(head -n 4 "$T/o2")"
[ "$(grep -c 'still finishing a previous run' "$T/o2")" -eq 1 ] || fail "the waiting line is not said once"
# the line comes before the phase starts
[ "$(grep -n 'still finishing' "$T/o2" | cut -d: -f1)" -lt "$(grep -n 'phase 1/1 x: started' "$T/o2" | cut -d: -f1)" ] ||
  fail "the waiting line came after the phase started"
[ $took -ge 3000 ] || fail "the next run did not wait for the stuck one (${took} ms): the test proves nothing"
py "$T/r2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
d = r["phases"][0]["duration_s"]
assert 0.9 <= d <= 1.6, ("the phase's duration includes the wait before it", d)
PY
echo "next run told it waits (${took} ms in all), its 1 s phase recorded as 1 s"
