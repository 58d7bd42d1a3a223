#!/usr/bin/env bash
# Ctrl-C mid-phase: exit 130, the running phase's verdict is "interrupted"
# (never "finished": true) with the signal and the time as its reason, the
# phase after it "not run"; the text report ends with the verdict; and
# `nfstorm report` gives the same verdicts from the JSON and from the journal.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
# not under timeout(1): it passes SIGINT on to its process group as well,
# which would be a second Ctrl-C (exit at once, by design)
"$NFSTORM" run --agents "$AGENT_ADDR" --json "$T/i.json" --name=w --rw=randwrite --bs=4k \
  --size=8m --filename="$D/f" --runtime=20 --time_based --name=r --stonewall --rw=read --size=8m \
  --filename="$D/f" >"$T/out" 2>"$T/err" &
c=$!
for _ in $(seq 200); do grep -q "started on" "$T/err" && break; sleep 0.05; done
wait_intervals "$T/i.json.journal" 2 || fail "no 2 intervals of phase 1: $(tail -n2 "$T/err")"
kill -INT $c; wait $c; rc=$?
[ $rc -eq 130 ] || fail "SIGINT: exit $rc, want 130: $(tail -n1 "$T/err")"
grep -q "^verdict: interrupted: phase w: interrupted by SIGINT at [0-9.]* s (exit status 130)$" "$T/out" ||
  fail "text report does not end with the verdict: $(tail -n1 "$T/out")"
check() {
py "$1" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
w, rd = r["phases"]
assert r["verdict"] == "interrupted" and r["exit_status"] == 130, (r["verdict"], r["exit_status"])
assert w["verdict"] == "interrupted", w["verdict"]
assert w["finished"] is False, "an interrupted phase is marked finished"
assert re.fullmatch(r"interrupted by SIGINT at [0-9.]+ s", w["reasons"][0]), w["reasons"]
at = float(w["reasons"][0].split()[4])
assert 1.0 < at < 15.0, at
assert w["ops"]["write"]["ops"] > 0          # what was measured is kept
assert rd["verdict"] == "interrupted" and rd["finished"] is False, rd["verdict"]
assert rd["reasons"] == ["not run: interrupted by SIGINT at %s s, before this phase started" % w["reasons"][0].split()[4]], rd["reasons"]
PY
}
check "$T/i.json"
timeout 20 "$NFSTORM" report "$T/i.json" --json "$T/re.json" >"$T/ro" 2>&1
check "$T/re.json"
grep -q "^verdict: interrupted" "$T/ro" || fail "report from JSON: $(tail -n1 "$T/ro")"
timeout 20 "$NFSTORM" report "$T/i.json.journal" --json "$T/rj.json" >"$T/rjo" 2>&1
check "$T/rj.json"
grep -q "^verdict: interrupted" "$T/rjo" || fail "report from the journal: $(tail -n1 "$T/rjo")"
echo "ok: SIGINT gives verdict interrupted (exit 130), from the run, its JSON and its journal"
