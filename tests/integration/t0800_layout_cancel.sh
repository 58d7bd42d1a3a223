#!/usr/bin/env bash
# Layout is cancellable: Ctrl-C of the coordinator, or the coordinator
# killed outright, stops a long layout within seconds, removes the partial
# file it created, and the agent serves the next coordinator at once
# (issue 9, defect 2).
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
D=/var/tmp/nfstorm-t0800.$$; mkdir -p "$D"; trap 'rm -rf "$D"; cleanup' EXIT
start_agent "$D"

# size of the file, 0 if missing
fsize() { stat -c %s "$1" 2>/dev/null || echo 0; }

for how in INT KILL; do
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=lay --rw=read --bs=1m --size=30g \
    --filename="$D/big" --runtime=5 >"$T/o.$how" 2>&1 &
  c=$!; disown $c
  for _ in $(seq 100); do [ "$(fsize "$D/big")" -gt 0 ] && break; sleep 0.05; done
  [ "$(fsize "$D/big")" -gt 0 ] || fail "$how: layout did not start"
  sleep 1.5
  kill -$how $c
  SECONDS=0
  while kill -0 $c 2>/dev/null && [ $SECONDS -lt 15 ]; do sleep 0.1; done
  kill -0 $c 2>/dev/null && fail "$how: coordinator still running 15 s after SIGINT during layout"
  t=$SECONDS
  [ "$how" = KILL ] || [ $t -le "$(bound_s 5)" ] || fail "$how: coordinator took ${t}s to stop (goal <= 5 s + 2 baselines of ${BASE_MS} ms)"
  # the agent stops writing within 2 s and removes the file it created
  sleep 2
  s1=$(fsize "$D/big"); sleep 2; s2=$(fsize "$D/big")
  [ "$s1" = "$s2" ] || fail "$how: layout goes on after the coordinator left: $s1 -> $s2 bytes in 2 s"
  [ "$s2" = 0 ] || fail "$how: the partial layout ($s2 bytes) was left behind"
  # the next coordinator is served at once, never "busy"
  SECONDS=0
  timeout 20 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/n.json" --name=next --rw=write \
    --bs=4k --size=1m --filename="$D/n.$how" >"$T/n.$how" 2>&1 \
    || fail "$how: agent does not serve the next run: $(tail -n1 "$T/n.$how")"
  [ $SECONDS -le "$(bound_s 5)" ] || fail "$how: the next run took ${SECONDS}s (goal 5 s + 2 baselines of ${BASE_MS} ms)"
  py "$T/n.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 256
PY
done
echo "layout stopped by SIGINT and by a killed coordinator; next runs served"
