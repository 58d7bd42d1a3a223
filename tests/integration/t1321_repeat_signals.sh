#!/usr/bin/env bash
# A repeat set ends at once on a signal and keeps what was measured:
# 1. SIGINT while waiting between repetitions: exit 130 within 2 s, the set
#    file holds the one finished repetition, "interrupted": true.
# 2. SIGTERM during repetition 2: that repetition is stopped and stored as an
#    interrupted run (its phase's verdict "interrupted", left out of the
#    means), exit 130, no repetition 3.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
job=(--directory="$D" --name=r --rw=randread --bs=4k --size=4m --time_based)

# wait_for FILE REGEX: up to 20 s
wait_for() { for _ in $(seq 200); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; fail "never saw /$2/ in $1: $(tail -n3 "$1")"; }

"$NFSTORM" run --local 2 --repeat 3 --repeat-interval 30s --json "$T/a.json" "${job[@]}" --runtime=500ms \
  >"$T/a.out" 2>"$T/a.err" &
c=$!; PIDS+=("$c")
wait_for "$T/a.err" '^nfstorm: repetition 2/3 in 30s$'
sleep 0.3
t0=$(date +%s%N); kill -INT $c
timeout 10 tail --pid=$c -f /dev/null; wait $c; rc=$?; t1=$(date +%s%N)
[ $rc -eq 130 ] || fail "SIGINT between repetitions: exit $rc, want 130: $(tail -n3 "$T/a.err")"
[ $(( (t1 - t0) / 1000000 )) -lt 2000 ] || fail "SIGINT between repetitions: took $(( (t1 - t0) / 1000000 )) ms to exit"
grep -q '^nfstorm: SIGINT: the repeat set ended after 1 of 3 repetitions; they are in ' "$T/a.err" \
  || fail "no message saying what was kept: $(tail -n3 "$T/a.err")"
grep -q '^repeat set (unlabelled): 1 of 3 repetitions, 30s apart (interrupted)$' "$T/a.out" || fail "summary heading: $(tail -n 12 "$T/a.out")"
grep -q '^repeat verdict: exit status 130 (interrupted after 1 of 3 repetitions)$' "$T/a.out" || fail "summary verdict"
[ -s "$T/a.json.rep1.journal" ] && [ ! -e "$T/a.json.rep2.journal" ] || fail "journals: $(ls "$T")"
py "$T/a.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["repeat"] == 3 and s["completed"] == 1 and len(s["repetitions"]) == 1, (s["completed"], len(s["repetitions"]))
assert s["interrupted"] is True and s["exit_status"] == 130 and s["verdict"] == "interrupted", s["exit_status"]
r = s["repetitions"][0]
assert r["verdict"] == "ok" and r["phases"][0]["ops"]["read"]["ops"] > 0
iops = s["summary"]["phases"][0]["ops"]["read"]["iops"]
assert iops["n"] == 1 and iops["sd"] is None and iops["ci95"] is None and iops["mean"] == r["phases"][0]["ops"]["read"]["iops"], iops
PY
timeout 20 "$NFSTORM" report "$T/a.json" >"$T/a.rep" 2>&1; rc=$?
[ $rc -eq 130 ] || fail "report of an interrupted set: exit $rc, want 130"

"$NFSTORM" run --local 2 --repeat 3 --json "$T/b.json" "${job[@]}" --runtime=3s >"$T/b.out" 2>"$T/b.err" &
c=$!; PIDS+=("$c")
wait_for "$T/b.out" '^repetition 2/3$'
wait_for "$T/b.err" '^\[1/1 r\] 1s'
sleep 0.5
kill -TERM $c
timeout 15 tail --pid=$c -f /dev/null; wait $c; rc=$?
[ $rc -eq 130 ] || fail "SIGTERM during repetition 2: exit $rc, want 130: $(tail -n3 "$T/b.err")"
grep -q '^repetition 3/3' "$T/b.out" && fail "repetition 3 ran after SIGTERM"
grep -q '^nfstorm: SIGTERM: the repeat set ended after 2 of 3 repetitions; they are in ' "$T/b.err" \
  || fail "no message saying what was kept: $(tail -n3 "$T/b.err")"
py "$T/b.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["completed"] == 2 and s["interrupted"] is True and s["exit_status"] == 130, (s["completed"], s["interrupted"])
a, b = s["repetitions"]
assert a["verdict"] == "ok" and b["verdict"] == "interrupted" and b["end"]["how"] == "interrupted", (a["verdict"], b["verdict"])
assert b["phases"][0]["ops"]["read"]["ops"] > 0, "the interrupted repetition kept nothing"
p = s["summary"]["phases"][0]
assert p["verdicts"] == ["ok", "interrupted"], p["verdicts"]
assert p["ops"]["read"]["iops"]["n"] == 1 and p["ops"]["read"]["iops"]["repetitions"] == [1], p["ops"]["read"]["iops"]
PY
grep -q 'verdicts: 1/2 ok, 1/2 interrupted$' "$T/b.out" || fail "verdict counts: $(tail -n 10 "$T/b.out")"
echo "repeat signals ok"
