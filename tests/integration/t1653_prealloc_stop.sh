#!/usr/bin/env bash
# A preallocation that takes long (faultfs slow: every fallocate 400 ms
# longer, as a file system that preallocates by writing on a slow disk) is
# stopped between its 64 MiB steps: Ctrl-C of the coordinator while a 1 GiB
# file is being preallocated (16 steps, 6.4 s) ends the run at once, the
# agent takes at most the step it may begin before the stop reaches it
# (the coordinator exits on Ctrl-C as soon as it has sent the stop),
# removes the file it was making and serves the next coordinator within
# about a step (before: one call for the whole
# file; a 4 GiB posix_fallocate held the agent 21 s past Ctrl-C).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
# (the backing directory holds the space check's 1 GiB and a few steps)
[ "$(df -k --output=avail "$T" | tail -n1)" -gt $((1536 * 1024)) ] || skip "less than 1.5 GiB free under $T"
faultfs_mount "slow,file=big*,ms=400"
start_agent "$FFS_M"
steps() { local n; n=$(grep -c "^kind=slow file=big" "$FFS_LOG" 2>/dev/null); echo "${n:-0}"; }

timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --name=big --directory="$FFS_M" --rw=write --bs=1m \
  --size=1g >"$T/big" 2>&1 &
c=$!
for _ in $(seq 400); do [ "$(steps)" -ge 2 ] && break; sleep 0.05; done
[ "$(steps)" -ge 2 ] || fail "the preallocation did not begin: $(tail -n 3 "$T/big")"
[ "$(steps)" -lt 16 ] || fail "the preallocation was over before the stop: the test proves nothing"
SECONDS=0
kill -INT $c
wait $c; rc=$?
[ $rc -eq 130 ] || fail "exit status $rc after SIGINT, want 130: $(tail -n 3 "$T/big")"
at_stop=$(steps)
# the next coordinator is served once the step in progress is done
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/next.json" --name=next \
  --filename="$FFS_M/next" --rw=write --bs=4k --size=64k >"$T/next" 2>&1 \
  || fail "the next run was not served: $(tail -n 3 "$T/next")"
served=$SECONDS
[ "$served" -le 3 ] || fail "the next run was served ${served}s after the stop (a step is 0.4 s)"
sleep 1
[ "$(steps)" -le $((at_stop + 1)) ] || fail "the agent went on preallocating: $at_stop steps at the stop, $(steps) after"
[ ! -e "$FFS_B/big.0.0.0" ] || fail "the stopped job left its file: $(ls -l "$FFS_B")"
py "$T/next.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 16
PY
echo "preallocation stopped after $at_stop of 16 steps; next run served ${served}s after Ctrl-C; file removed"
