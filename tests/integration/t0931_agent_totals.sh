#!/usr/bin/env bash
# Issue 15 item 6: an agent's phase-done totals are checked against the sum
# of the intervals it sent.  The fake agent sends two intervals of 10 reads
# and totals of 1000: the run fails with the difference named, and every
# figure (phase, agent, JSON) is the intervals' sum, 20.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fake_agent.sh"
fake_agent mismatch
timeout 30 "$NFSTORM" run --agents "$FAKE_ADDR" --quiet --name=x --rw=read --bs=4k --size=64k \
  --filename=f --json "$T/r.json" >"$T/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "exit status $rc, want 1: $(tail -n2 "$T/out")"
grep -q "agent 0 ($FAKE_ADDR): phase-done totals differ from the sum of its intervals (read ops: 1000 in phase-done, 20 in its intervals)" "$T/out" \
  || fail "no reason naming the mismatch: $(tail -n3 "$T/out")"
py "$T/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ph = d["phases"][0]
assert ph["verdict"] == "failed", ph["verdict"]
assert any("phase-done totals differ" in r for r in ph["reasons"]), ph["reasons"]
assert ph["ops"]["read"]["ops"] == 20, ph["ops"]["read"]
assert ph["agents"][0]["ops"]["read"]["ops"] == 20, ph["agents"][0]
assert sum(i["ops"]["read"]["ops"] for i in ph["intervals"]) == 20
PY
echo "phase-done totals checked against the intervals: 1000 claimed, 20 counted"
