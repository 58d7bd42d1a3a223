#!/usr/bin/env bash
# Issue 15 item 7: dialling something that is not an nfstorm agent (an HTTP
# or SSH server, a peer declaring a 2 GiB frame, one sending a frame that is
# not msgpack) says "not an nfstorm agent", at once, exit 1; never "frame
# larger than the limit", never a hang.
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
for kind in http ssh huge text; do
  python3 "$(dirname "$0")/py/stranger_server.py" "$T/port.$kind" $kind >"$T/s.$kind.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do [ -s "$T/port.$kind" ] && break; sleep 0.05; done
  addr=127.0.0.1:$(cat "$T/port.$kind")
  start=$(date +%s%N)
  timeout 20 "$NFSTORM" run --agents "$addr" --quiet --name=x --rw=read --bs=4k --size=64k \
    --filename=f >"$T/out" 2>&1; rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [ $rc -ne 124 ] || fail "$kind: the coordinator hung"
  [ $rc -eq 1 ] || fail "$kind: exit status $rc, want 1: $(tail -n1 "$T/out")"
  grep -q "agent 0 ($addr): not an nfstorm agent" "$T/out" || fail "$kind: $(tail -n1 "$T/out")"
  ! grep -q "frame larger than the limit" "$T/out" || fail "$kind: still says frame larger than the limit"
  [ $ms -lt "$(bound_ms 5000)" ] || fail "$kind: took $ms ms (goal 5 s + 2 baselines of ${BASE_MS} ms)"
  echo "$kind: $(grep -o 'not an nfstorm agent.*' "$T/out" | head -1) ($ms ms)"
done
