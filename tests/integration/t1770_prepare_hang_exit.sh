#!/usr/bin/env bash
# Issue 23 item 4, "nothing waits forever": a --local agent whose preparation
# hangs in a storage call (faultfs slow: every fallocate sleeps 15 s, the
# agent's thread cannot be interrupted) no longer holds the coordinator
# until the call returns.  The run is declared failed after
# --prepare-timeout 3s, and the coordinator then stops its agents within
# the documented bound (SIGTERM, SIGKILL after 2 s, 0.5 s more: docs/fleet.md):
# it exits within ~6 s, not at 15 s.  The same when it is signalled during
# the hung preparation (SIGTERM), and a second signal while it stops its
# agents ends it at once.  The cleanup process still removes each run's
# temporary directory once the stuck agent is gone.  Before, each of these
# exited only when the fallocate returned.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "slow,ms=15000"
mkdir -p "$T/tmp1" "$T/tmp2" "$T/tmp3"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# signalled runs are signalled directly (timeout(1) would forward each signal
# twice, which coalesce); gone_within PID MS: it exited within MS, or is killed
gone_within() {
  local n=$(( $2 / 50 ))
  while [ $n -gt 0 ]; do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; n=$((n - 1)); done
  kill -9 "$1" 2>/dev/null; return 1
}
plan() { echo --name=w --rw=write --bs=4k --size=64m --fallocate=native --ioengine=psync "--directory=$FFS_M/$1"; }

# 2. (started first, it runs meanwhile) SIGTERM while the preparation hangs
TMPDIR=$T/tmp2 "$NFSTORM" run --local 2 $(plan s) --agent-timeout 2s --prepare-timeout 60s \
  >"$T/o2" 2>&1 &
run2=$!
# 3. two signals: the second one while the agents are being stopped
TMPDIR=$T/tmp3 "$NFSTORM" run --local 1 $(plan d) --agent-timeout 2s --prepare-timeout 60s \
  >"$T/o3" 2>&1 &
run3=$!

# 1. declared failed by --prepare-timeout: the coordinator exits within the bound
t=$(now_ms)
TMPDIR=$T/tmp1 timeout 40 "$NFSTORM" run --local 1 $(plan p) --agent-timeout 2s --prepare-timeout 3s \
  >"$T/o1" 2>&1; rc=$?
took=$(( $(now_ms) - t )); took1=$took
[ $rc -ne 124 ] || fail "prepare-timeout: the coordinator hung for 40 s"
[ $rc -ne 0 ] || fail "prepare-timeout: exit status 0 for a run whose only agent was lost"
grep -q "not ready for phase 0 after .* (--prepare-timeout)" "$T/o1" || fail "prepare-timeout: no reason: $(cat "$T/o1")"
grep -q "^kind=slow file=p/" "$FFS_LOG" || fail "the slow fallocate never happened: the test proves nothing"
[ $took -le 7000 ] || fail "prepare-timeout: the coordinator exited after ${took} ms (the fallocate hangs 15 s; want ~6 s): $(tail -n 3 "$T/o1")"
grep -q "local agent still running 2 s after SIGTERM (stuck in a storage call?): killing it" "$T/o1" ||
  fail "prepare-timeout: the kill is not said: $(tail -n 3 "$T/o1")"

# 2. SIGTERM during the hung preparation
wait_grep "$FFS_LOG" "^kind=slow file=s/" 10 || fail "SIGTERM: the slow fallocate never happened"
t=$(now_ms)
kill -TERM $run2
gone_within $run2 10000 || fail "SIGTERM: the coordinator was still there 10 s after it: $(tail -n 3 "$T/o2")"
wait $run2; rc=$?
took=$(( $(now_ms) - t )); took2=$took
[ $rc -ne 0 ] || fail "SIGTERM: exit status 0"
grep -q "interrupted by SIGTERM" "$T/o2" || fail "SIGTERM: not said: $(cat "$T/o2")"
[ $took -le 4000 ] || fail "SIGTERM: the coordinator exited ${took} ms after the signal (want < 3 s): $(tail -n 3 "$T/o2")"

# 3. a second signal while the agents are being stopped ends it at once
wait_grep "$FFS_LOG" "^kind=slow file=d/" 10 || fail "second signal: the slow fallocate never happened"
kill -TERM $run3
wait_grep "$T/o3" "interrupted by SIGTERM" 10 || fail "second signal: the first not taken: $(cat "$T/o3")"
t=$(now_ms)
kill -TERM $run3
gone_within $run3 10000 || fail "second signal: the coordinator was still there 10 s after it"
wait $run3; rc=$?
took=$(( $(now_ms) - t ))
[ $rc -eq 130 ] || fail "second signal: exit status $rc, want 130: $(tail -n 3 "$T/o3")"
[ $took -le 1000 ] || fail "second signal: exited ${took} ms after it (want at once)"

# the cleanup processes remove each temporary directory once the stuck agents are gone
for d in tmp1 tmp2 tmp3; do
  for _ in $(seq 300); do [ -z "$(ls -A "$T/$d")" ] && break; sleep 0.1; done
  [ -z "$(ls -A "$T/$d")" ] || fail "$d: the run's temporary directory was left behind: $(ls -A "$T/$d")"
done
echo "prepare-timeout 3s: exit after ${took1} ms; SIGTERM: exit ${took2} ms after; a second signal: ${took} ms; temp dirs removed"
