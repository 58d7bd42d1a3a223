#!/usr/bin/env bash
# `nfstorm clean` and the agent's session (reviewer's findings, issue 9):
# a clean sent right after a run, while that run's session still winds
# down, was refused with "clean refused: a run is in progress"; and a clean
# whose coordinator was interrupted went on removing files after the
# session ended, while the next coordinator was already served (its new
# files could be removed under it).  Now the clean waits its turn like a
# plan, stops when its coordinator goes away, and the next coordinator
# waits for it.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
P=(--name=m --rw=read --bs=4k --filesize=4k --nrfiles=1000 --numjobs=12 --runtime=1)
count() { find "$D" -type f | wc -l; }

# a run, then at once a clean of the same plan: the clean is served
timeout 120 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet "${P[@]}" >"$T/r1" 2>&1 || fail "run: $(tail -n2 "$T/r1")"
[ "$(count)" -eq 12000 ] || fail "layout made $(count) files, want 12000"
timeout 60 "$NFSTORM" clean --agents "$AGENT_ADDR" "${P[@]}" >"$T/c1" 2>&1 || fail "clean right after a run: exit $?: $(cat "$T/c1")"
grep -q "removed 12000 files" "$T/c1" || fail "clean right after a run: $(cat "$T/c1")"
[ "$(count)" -eq 0 ] || fail "$(count) files left after clean"

# a clean interrupted: the agent stops removing within a second.  Its
# unlinks take 2 ms each (a shim; 24 s for the 12000 files), so the
# removal is surely under way, not done, when the SIGINT arrives
FAST=$AGENT_ADDR
start_slow_agent "$D"
timeout 120 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet "${P[@]}" >"$T/r2" 2>&1 || fail "run: $(tail -n2 "$T/r2")"
"$NFSTORM" clean --agents "$AGENT_ADDR" "${P[@]}" >"$T/c2" 2>&1 &
c=$!; PIDS+=("$c")
# (the agent logs "clean from" when it queues the removal)
for _ in $(seq 1000); do [ "$(cat "$T"/agent.*.log | grep -c "clean from")" -ge 2 ] && break; sleep 0.005; done
sleep 0.3
kill -INT $c; wait $c; rc=$?
[ $rc -ne 0 ] || fail "interrupted clean exited 0: $(cat "$T/c2")"
grep -q "interrupted before it answered" "$T/c2" || fail "interrupted clean: $(cat "$T/c2")"
sleep 1; n1=$(count); sleep 2; n2=$(count)
[ "$n1" -eq "$n2" ] || fail "the agent went on removing after its coordinator left ($n1 -> $n2 files)"
[ "$n2" -gt 0 ] || fail "the interrupted clean removed every file (it did not stop)"
# the next coordinator is served, and its files stay
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/n.json" "${P[@]}" >"$T/r3" 2>&1 \
  || fail "next run: $(tail -n2 "$T/r3")"
sleep 1
[ "$(count)" -eq 12000 ] || fail "$(count) files after the next run, want 12000"
AGENT_ADDR=$FAST
# run --cleanup: a coordinator that connects while the cleanup runs does
# not take the agent over (that stopped the cleanup half way)
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --cleanup "${P[@]}" >"$T/r4" 2>&1 &
c=$!; PIDS+=("$c")
for _ in $(seq 3000); do [ "$(count)" -lt 11990 ] && break; sleep 0.01; done
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=x --rw=write --bs=4k --size=64k \
  --filename="$D/x" >"$T/x" 2>&1
wait $c; rc=$?
[ $rc -eq 0 ] || fail "run --cleanup with a second coordinator knocking: exit $rc: $(tail -n3 "$T/r4")"
grep -q "removed 12000 files" "$T/r4" || fail "cleanup did not remove every file: $(tail -n3 "$T/r4")"
echo "clean right after a run served (12000 removed); interrupted clean stopped at $n2 files left"
