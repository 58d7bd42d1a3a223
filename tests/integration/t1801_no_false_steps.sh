#!/usr/bin/env bash
# No false alarms: 10 short runs of plain, steady load on this loaded
# machine (2 agents; the null engine and psync on tmpfs in turn, each held
# to a rate well below what the machine does, 100 ms intervals: 18 of them
# a run, a step must hold 0.5 s) report no step-down or
# step-up, in text or JSON, at the defaults (20% over 5 intervals).
source "$(dirname "$0")/lib.sh"
SHM=$(mktemp -d /dev/shm/nfstorm-t1801.XXXXXX) || skip "no /dev/shm"
trap 'cleanup; rm -rf "$SHM"' EXIT
start_agent "$SHM"; A0=$AGENT_ADDR
start_agent "$SHM"; A1=$AGENT_ADDR
for i in $(seq 1 10); do
  if [ $((i % 2)) = 1 ]; then eng=(--ioengine=null --bs=4k --rate=2m)
  else eng=(--ioengine=psync "--directory=$SHM" --bs=64k --rate=8m); fi
  timeout 30 "$NFSTORM" run --agents "$A0,$A1" --interval 100ms --json "$T/r$i.json" --name=steady \
    --rw=read --size=8m "${eng[@]}" --time_based --runtime=1800ms >"$T/out$i" 2>&1 ||
    fail "run $i failed: $(tail -n3 "$T/out$i")"
  if grep -E 'stepped (down|up)' "$T/out$i"; then
    fail "run $i (${eng[*]}) reported a change in plain load"
  fi
done
py "$T" <<'PY'
import json, sys
for i in range(1, 11):
    r = json.load(open("%s/r%d.json" % (sys.argv[1], i)))
    ph = r["phases"][0]
    assert len(ph["intervals"]) >= 16, (i, len(ph["intervals"]))
    assert ph["changes"] == [] and "time_to_throttle_s" not in ph, (i, ph["changes"])
print("10 runs, no changes")
PY
# bad thresholds: one line naming what was wrong, exit 2
"$NFSTORM" report "$T/r1.json" --change-min-intervals 1 >"$T/bad" 2>&1; [ $? = 2 ] || fail "--change-min-intervals 1: not exit 2"
grep -qx "nfstorm: --change-min-intervals: bad value '1' (want 2..86400)" "$T/bad" || fail "error: $(cat "$T/bad")"
"$NFSTORM" report "$T/r1.json" --change-min-pct=-5 >"$T/bad" 2>&1; [ $? = 2 ] || fail "--change-min-pct -5: not exit 2"
grep -q "^nfstorm: --change-min-pct: bad value '-5'" "$T/bad" || fail "error: $(cat "$T/bad")"
echo "no false alarms over 10 runs"
