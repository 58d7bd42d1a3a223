#!/usr/bin/env bash
# runtime bounds a think time longer than the window (reviewer's finding,
# issue 9 defect 3): runtime=2 with thinktime=5s or 100000 s used to run
# for the whole pause (5 s, or 1.16 days) after the window had closed.
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
D=$T/d; mkdir -p "$D"
start_agent "$D"

for tt in 5s 100000000000; do
  SECONDS=0
  timeout 20 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/r.json" --name=tt --rw=write --bs=4k \
    --size=1m --filename="$D/f" --runtime=2 --time_based --thinktime=$tt >"$T/out" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "thinktime=$tt: exit $rc (goal 0, runtime ends the pause): $(tail -n2 "$T/out")"
  [ $SECONDS -le "$(bound_s 4 1)" ] || fail "thinktime=$tt runtime=2: took ${SECONDS}s (goal <= 4 s + 1 baseline of ${BASE_MS} ms)"
  py "$T/r.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
w = p["ops"]["write"]
# one op, then the pause that the window's end cuts short
assert w["ops"] == 1 and w["errors"] == 0, w
assert p["duration_s"] < 3.0, p["duration_s"]
assert p["verdict"] == "ok", p["verdict"]
PY
done
echo "thinktime longer than runtime ends at the window's end (2 s, 1 op)"
