#!/usr/bin/env bash
# kill -9 while the result JSON is being written leaves no temp file beside
# it: the data goes to an unnamed (O_TMPFILE) file that is named only once
# complete, then renamed into place.  The coordinator is killed at instants
# spread over a long write (`report JOURNAL --json`, the same writer as
# `run --json`); after each kill the directory holds the old result or the
# new one, complete, and nothing else.
source "$(dirname "$0")/lib.sh"
python3 "$(dirname "$0")/py/big_journal.py" "$T/big.journal" 3000
mkdir -p "$T/out"
# how long a whole report takes here, to spread the kills over it: the
# fastest of three, so that on a loaded machine (where one run can take
# twice another) the kills still land before the report is done
total_ms=0
for try in 1 2 3; do
  s=$(date +%s%N)
  "$NFSTORM" report "$T/big.journal" --json "$T/out/r.json" >/dev/null 2>&1
  ms=$(( ($(date +%s%N) - s) / 1000000 ))
  [ -s "$T/out/r.json" ] || fail "no result written by an undisturbed report"
  rm -f "$T/out/r.json"
  { [ $total_ms -eq 0 ] || [ $ms -lt $total_ms ]; } && total_ms=$ms
done
kills=0
for pct in 40 50 60 65 70 75 80 85 90 93 96 99; do
  "$NFSTORM" report "$T/big.journal" --json "$T/out/r.json" >/dev/null 2>&1 &
  c=$!
  sleep "$(awk -v t=$total_ms -v p=$pct 'BEGIN { printf "%.3f", t * p / 100000 }')"
  kill -9 $c 2>/dev/null && kills=$((kills + 1))
  wait $c 2>/dev/null
  left=$(ls "$T/out" | grep -v '^r\.json$' || true)
  [ -z "$left" ] || fail "kill -9 at ${pct}% of a ${total_ms} ms report left: $left"
  if [ -e "$T/out/r.json" ]; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out/r.json" || fail "r.json is not complete"
  fi
done
[ $kills -ge 6 ] || fail "only $kills of 12 kills landed before the report finished (${total_ms} ms)"
echo "kill -9 at 12 instants of a ${total_ms} ms report ($kills landed): no temp file left"
