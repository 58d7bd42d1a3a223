#!/usr/bin/env bash
# Issue 15 item 6: what one agent may send is bounded.  Intervals may arrive
# no faster than the interval allows (with slack): an agent that sends 500 at
# once is dropped at the first one too early, with the reason in the verdict,
# and the result keeps only what came within the bound.  A flood of 5000
# pings is a flood too.  Neither costs the coordinator memory or time.
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
source "$(dirname "$0")/fake_agent.sh"
fake_agent flood
start=$(date +%s%N)
timeout 30 /usr/bin/time -f '%M' -o "$T/rss" "$NFSTORM" run --agents "$FAKE_ADDR" --quiet --name=x --rw=read \
  --bs=4k --size=64k --filename=f --json "$T/r.json" >"$T/out" 2>&1; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc -eq 1 ] || fail "interval flood: exit status $rc, want 1: $(tail -n2 "$T/out")"
[ $ms -lt "$(bound_ms 10000)" ] || fail "interval flood: the coordinator took $ms ms (goal 10 s + 2 baselines of ${BASE_MS} ms)"
grep -q "agent 0 ($FAKE_ADDR): sent interval 3 of phase 0 .* more than 1000-ms intervals allow; dropped" "$T/out" \
  || fail "interval flood: no reason naming it: $(tail -n2 "$T/out")"
rss=$(tail -n1 "$T/rss")
[ "$rss" -lt 65536 ] || fail "interval flood: coordinator RSS $rss KB"
size=$(stat -c %s "$T/r.json")
[ "$size" -lt 200000 ] || fail "interval flood: JSON of $size bytes"
py "$T/r.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
assert ph["verdict"] == "failed", ph["verdict"]
assert len(ph["intervals"]) <= 3, len(ph["intervals"])
assert ph["ops"]["read"]["ops"] <= 3, ph["ops"]
PY
echo "interval flood: dropped in $ms ms, RSS $rss KB, JSON $size bytes"
fake_agent pingflood
timeout 30 "$NFSTORM" run --agents "$FAKE_ADDR" --quiet --name=x --rw=read --bs=4k --size=64k --filename=f \
  --json "$T/p.json" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "ping flood: exit status $rc, want 1: $(tail -n2 "$T/out")"
grep -q "agent 0 ($FAKE_ADDR): sent more than 390 messages at once, or more than 13 a second: a flood; dropped" "$T/out" \
  || fail "ping flood: no reason naming it: $(tail -n2 "$T/out")"
echo "message floods bounded"
