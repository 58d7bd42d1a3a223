#!/usr/bin/env bash
# An agent serves one coordinator at a time: a second one is told "busy"
# naming who holds it; afterwards the agent is idle and serves again.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --name=long --rw=randread --bs=4k --size=1m \
  --runtime=6 --time_based >"$T/first" 2>&1 &
first=$!
wait_grep "$T/first" "phase 1/1 long: started on" || fail "the first run did not start: $(tail -n2 "$T/first")"
expect_fail "second coordinator" "busy: serving coordinator 127\.0\.0\.1:" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=x --rw=read --bs=4k --size=1m
wait $first || fail "first run failed: $(tail -n2 "$T/first")"
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/r.json" --name=x --rw=read --bs=4k \
  --size=1m >"$T/out" 2>&1 || fail "agent not idle after the run: $(tail -n2 "$T/out")"
py "$T/r.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]["ops"] == 256
PY
echo "busy refused, then served"
