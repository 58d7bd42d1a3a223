#!/usr/bin/env bash
# A run that fails before its first phase (R1 review of issue 13's lossless
# re-render): an agent that refuses the connection, and an agent that
# refuses the plan (outside --allow).  The run writes its JSON and journal
# (exit 1); the journal starts with its header and record, so
# `nfstorm report RESULT.json.journal` reads it (it said "not valid JSON"
# and exited 2: the header was written only at the first phase's start)
# and gives exactly what `nfstorm report RESULT.json` gives: the same text,
# CSV, time series, HTML and JSON, the same exit status, the failure named.
source "$(dirname "$0")/lib.sh"
A=$T/allow; O=$T/other; mkdir -p "$A" "$O"
head -c 32 /dev/urandom | base64 >"$T/secret"; chmod 600 "$T/secret"
start_agent "$A"
job=(--name=r --rw=randread --bs=4k --size=4m --runtime=1s)

check() {  # NAME WHY: the run's files re-render alike from the JSON and the journal
  local n=$1 why=$2 rc src
  [ "$(cat "$T/$n.rc")" = 1 ] || fail "$n: run exit $(cat "$T/$n.rc"), want 1: $(cat "$T/$n.err")"
  grep -q "$why" "$T/$n.err" || fail "$n: run did not say '$why': $(cat "$T/$n.err")"
  head -n1 "$T/$n.json.journal" | grep -q '^{"type":"header"' \
    || fail "$n: journal does not start with its header: $(head -c 200 "$T/$n.json.journal")"
  for src in json json.journal; do
    timeout 30 "$NFSTORM" report "$T/$n.$src" --csv "$T/x.$src.csv" --timeseries "$T/x.$src.ts" \
      --html "$T/x.$src.html" --json "$T/x.$src.json" >"$T/x.$src.txt" 2>"$T/x.$src.err"; rc=$?
    [ $rc -eq 1 ] || fail "$n: report $src exits $rc, want 1: $(head -c 300 "$T/x.$src.err")"
    grep -q "verdict: failed: phase r: not run: the run failed before this phase started: .*$why" \
      "$T/x.$src.txt" || fail "$n: report $src does not name the failure: $(tail -n3 "$T/x.$src.txt")"
  done
  for f in txt csv ts html json; do
    [ -e "$T/x.json.$f" ] || fail "$n: report of the JSON wrote no $f"   # ts: empty, no intervals
    cmp -s "$T/x.json.$f" "$T/x.json.journal.$f" \
      || fail "$n: $f from the journal differs: $(diff "$T/x.json.$f" "$T/x.json.journal.$f" | head -3 | cut -c1-160)"
  done
  # what the run itself wrote is what the report of its journal writes
  for f in csv ts html; do
    cmp -s "$T/$n.$f" "$T/x.json.journal.$f" || fail "$n: the run's $f differs from the journal's re-render"
  done
  cmp -s "$T/$n.json" "$T/x.json.journal.json" || fail "$n: the run's JSON differs from the journal's re-render"
}
run() {  # NAME ARGS...
  local n=$1; shift
  timeout 30 "$NFSTORM" run --json "$T/$n.json" --csv "$T/$n.csv" --timeseries "$T/$n.ts" --html "$T/$n.html" \
    "$@" >"$T/$n.txt" 2>"$T/$n.err"; echo $? >"$T/$n.rc"
}

run conn --agents 127.0.0.1:1 --secret-file "$T/secret" --directory="$O" "${job[@]}"
check conn "cannot connect to agent 0 (127.0.0.1:1): connection refused"

run refused --agents "$AGENT_ADDR" --directory="$O" "${job[@]}"
check refused "plan refused: $O/r.0.0.0 is outside the allowed directories"
grep -q '"type":"error"' "$T/refused.json.journal" || fail "refused: journal lost the agent's error line"
echo "journal of a run failed before its first phase ok"
