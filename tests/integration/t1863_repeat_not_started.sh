#!/usr/bin/env bash
# A repeat set whose next repetition cannot start (here its time series file
# cannot be opened) keeps the repetitions before it, and says it ended
# short: the command exits 1, and the set's JSON (exit_status, verdict,
# not_started) and its re-render agree with that, instead of an "ok" set
# with exit_status 0 that no one asked for.
source "$(dirname "$0")/lib.sh"
mkdir "$T/ts.rep2.csv"            # repetition 2's time series: a directory
timeout 40 "$NFSTORM" run --local 1 --quiet --name=t --ioengine=null --rw=read --bs=4k --size=1m \
  --runtime=300ms --time_based --repeat 3 --timeseries "$T/ts.csv" --json "$T/s.json" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "exit $rc, want 1: $(cat "$T/err")"
grep -q "ts.rep2.csv: cannot open for writing: Is a directory" "$T/err" || fail "no cause: $(cat "$T/err")"
grep -q "^repeat verdict: exit status 1 (repetition 2 of 3 could not start; 1 kept)$" "$T/out" \
  || fail "summary: $(tail -3 "$T/out")"
py "$T/s.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
got = (j["completed"], j["repeat"], j["not_started"], j["exit_status"], j["verdict"], j["interrupted"])
assert got == (1, 3, 2, 1, "failed", False), got
assert len(j["repetitions"]) == 1 and j["repetitions"][0]["verdict"] == "ok", j["repetitions"][0]["verdict"]
PY
"$NFSTORM" report "$T/s.json" --json "$T/re.json" >"$T/rep.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "report of the set: exit $rc, want 1"
grep -q "repetition 2 of 3 could not start" "$T/rep.out" || fail "report: $(tail -2 "$T/rep.out")"
py "$T/re.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert (j["not_started"], j["exit_status"], j["verdict"]) == (2, 1, "failed"), j
PY
# a set file whose not_started disagrees with what it holds is refused by name
py "$T/s.json" "$T" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["not_started"] = 3
json.dump(j, open(sys.argv[2] + "/bad.json", "w"))
j["not_started"] = "2"
json.dump(j, open(sys.argv[2] + "/bad2.json", "w"))
PY
"$NFSTORM" report "$T/bad.json" >/dev/null 2>"$T/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.json: not_started: 3, but the set holds 1 repetitions (want 2)" "$T/bad.err" \
  || fail "inconsistent not_started: exit $rc: $(cat "$T/bad.err")"
"$NFSTORM" report "$T/bad2.json" >/dev/null 2>"$T/bad2.err"; rc=$?
[ $rc -eq 2 ] && grep -q "bad2.json: not_started: want an integer in 2..3" "$T/bad2.err" \
  || fail "not_started not an integer: exit $rc: $(cat "$T/bad2.err")"
echo "a repetition that could not start: the set says so (exit 1, not_started 2)"
