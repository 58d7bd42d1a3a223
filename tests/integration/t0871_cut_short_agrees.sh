#!/usr/bin/env bash
# A journal cut short (coordinator killed with -9 between phases) gets one
# verdict everywhere (reviewer's finding, issue 9 defects 13 and 15): the
# report of the journal used to exit 3 while its text and its --json said
# "interrupted (exit status 130)", `nfstorm report` of that JSON exited 130,
# the reason read "cut short: cut short: ...", and phase a, whose end the
# journal holds, was called cut short too.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
cat >"$T/two.fio" <<FIO
[global]
directory=$D
bs=4k
size=1m
[a]
rw=write
[b]
stonewall
rw=read
startdelay=60
runtime=1
FIO
"$NFSTORM" run "$T/two.fio" --agents "$AGENT_ADDR" --quiet --json "$T/k.json" >"$T/o" 2>&1 &
c=$!; PIDS+=("$c")
# phase a ended and b started (it waits out its startdelay): kill between them
wait_grep "$T/k.json.journal" '"type":"phase_start","phase":1' || fail "phase b did not start: $(tail -n2 "$T/o")"
kill -9 $c; wait $c 2>/dev/null

timeout 20 "$NFSTORM" report "$T/k.json.journal" --json "$T/r.json" --html "$T/r.html" >"$T/ro" 2>"$T/re"; rc=$?
[ $rc -eq 3 ] || fail "report of the journal: exit $rc, want 3: $(cat "$T/re")"
grep -q '^verdict: partial: .*(exit status 3)$' "$T/ro" || fail "text verdict disagrees with exit 3: $(tail -n1 "$T/ro")"
grep -q 'cut short: cut short' "$T/ro" && fail "doubled 'cut short' in the reasons: $(grep -m1 'cut short' "$T/ro")"
grep -q 'exit status 3' "$T/r.html" || fail "HTML report disagrees with exit 3"
py "$T/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "partial" and d["exit_status"] == 3, (d["verdict"], d["exit_status"])
a, b = d["phases"]
assert a["verdict"] == "ok" and a["reasons"] == [] and a["ops"]["write"]["ops"] == 256, (a["verdict"], a["reasons"])
assert b["verdict"] == "partial", b["verdict"]
assert b["reasons"][0].startswith("not run: the run was cut short before this phase started"), b["reasons"]
PY
timeout 20 "$NFSTORM" report "$T/r.json" >"$T/ro2" 2>&1; rc=$?
[ $rc -eq 3 ] || fail "report of the JSON made from the journal: exit $rc, want 3"
echo "cut-short journal: partial, exit 3 in text, JSON, HTML and a second report; the whole phase stays ok"
