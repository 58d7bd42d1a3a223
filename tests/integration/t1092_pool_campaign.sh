#!/usr/bin/env bash
# What a campaign needs, through a pool, in one command: --html, --csv and
# --timeseries are rendered by the submitter from the result the pool
# returns (byte for byte what `nfstorm report` renders from that result),
# and --repeat N submits N runs and writes the set (summary, set file,
# per-repetition journals and files) as a local --repeat does.  Nothing is
# left in the submitter's $TMPDIR, nothing is written on the pool host.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
D=$T/d; O=$T/o; mkdir -p "$D" "$O" "$T/tmp"
job="--name=w --rw=write --bs=4k --size=64k --filename=$D/f.\${agent} --runtime=500ms --time_based"
start_serve
dial_agent a "$D" --label a
dial_agent b "$D" --label b
pool_has 2

sub() { TMPDIR=$T/tmp timeout 60 "$NFSTORM" run --pool 127.0.0.1:$CPORT --secret-file "$SECRET" "$@"; }
# without --json: the result goes through a private temporary directory
sub $job --html "$O/a.html" --csv "$O/a.csv" --timeseries "$O/a.ts" >"$T/a.out" 2>"$T/a.err" ||
  fail "--pool with outputs: exit $?: $(tail -n 3 "$T/a.err")"
for f in a.html a.csv a.ts; do [ -s "$O/$f" ] || fail "$f not written: $(ls "$O")"; done
grep -q "^verdict: ok" "$T/a.out" || fail "the run's report: $(tail -n 3 "$T/a.out")"
[ "$(ls -A "$T/tmp")" = "" ] || fail "left in TMPDIR: $(ls -A "$T/tmp")"

# with --json: each file is what `nfstorm report` makes of the result
pool_has 2
sub $job --json "$O/b.json" --html "$O/b.html" --csv "$O/b.csv" --timeseries "$O/b.ts" \
  --output "$O/b.fio" --output-format json >"$T/b.out" 2>"$T/b.err" ||
  fail "--pool with --json and outputs: exit $?: $(tail -n 3 "$T/b.err")"
[ ! -s "$T/b.out" ] || fail "with --output, stdout is not empty (as with fio): $(head -n 3 "$T/b.out")"
"$NFSTORM" report "$O/b.json" --html "$O/r.html" --csv "$O/r.csv" --timeseries "$O/r.ts" \
  --output "$O/r.fio" --output-format json >/dev/null 2>"$T/r.err" || fail "report: $(cat "$T/r.err")"
for k in html csv ts fio; do cmp -s "$O/b.$k" "$O/r.$k" || fail "--pool's $k differs from report's"; done
[ "$(wc -l <"$O/b.ts")" -gt 1 ] || fail "the time series is empty"

# --repeat 2: two submissions, one set
pool_has 2
sub $job --repeat 2 --json "$O/s.json" --html "$O/s.html" --csv "$O/s.csv" >"$T/s.out" 2>"$T/s.err" ||
  fail "--pool --repeat 2: exit $?: $(tail -n 3 "$T/s.err")"
grep -q "^repetition 2/2$" "$T/s.out" && grep -q "^repeat set (unlabelled): 2 of 2 repetitions" "$T/s.out" ||
  fail "no set summary: $(tail -n 5 "$T/s.out")"
for f in s.json s.html s.json.rep1.journal s.json.rep2.journal s.rep1.csv s.rep2.csv; do
  [ -s "$O/$f" ] || fail "$f not written: $(ls "$O")"
done
ls "$O" | grep -q '^s\.json\.rep[12]$' && fail "a repetition's result was left beside the set: $(ls "$O")"
py "$O/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["nfstorm_repeat_set"] == 1 and s["repeat"] == 2 and s["completed"] == 2, s.keys()
assert len(s["repetitions"]) == 2
assert all(r["phases"][0]["ops"]["write"]["ops"] > 0 for r in s["repetitions"])
PY
"$NFSTORM" report "$O/s.json" >"$T/rs.out" 2>&1 || fail "report of the set: $(tail -n 3 "$T/rs.out")"
# the pool host: its run directories are gone, nothing else in its TMPDIR
[ "$(ls "$T" | grep -c '^nfstorm-serve\.')" = 0 ] || fail "serve left a run directory"
exit 0
