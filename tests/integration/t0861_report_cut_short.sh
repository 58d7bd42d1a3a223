#!/usr/bin/env bash
# `nfstorm report JOURNAL` of a run cut short (coordinator killed with -9;
# a journal truncated mid-line as by a full disk) says so: a warning naming
# the journal and what is missing, the unfinished phase not "finished",
# exit 3 (partial).  A journal of a run that ended is reported as before.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
cat >"$T/two.fio" <<FIO
[global]
ioengine=psync
directory=$D
bs=4k
size=4m
time_based=1
runtime=2
[a]
rw=randwrite
[b]
stonewall
rw=randread
runtime=30
FIO

"$NFSTORM" run "$T/two.fio" --agents "$AGENT_ADDR" --quiet --json "$T/k.json" >"$T/o" 2>&1 &
c=$!; PIDS+=("$c")
wait_phase_intervals "$T/k.json.journal" 1 2 || fail "phase b has no 2 intervals: $(tail -n2 "$T/o")"
kill -9 $c; wait $c 2>/dev/null
grep -q '"type":"end"' "$T/k.json.journal" && fail "journal of a killed coordinator has an end record"

timeout 20 "$NFSTORM" report "$T/k.json.journal" --json "$T/r.json" >"$T/ro" 2>"$T/re"; rc=$?
[ $rc -eq 3 ] || fail "report of a cut-short journal: exit $rc, want 3: $(cat "$T/re")"
grep -q "warning: $T/k.json.journal: the run was cut short: no end record" "$T/re" \
  || fail "no cut-short warning naming the journal: $(cat "$T/re")"
grep -q "phase 'b' cut short (0 of 1 agents sent its totals)" "$T/re" || fail "unfinished phase not named: $(cat "$T/re")"
py "$T/r.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
assert ph[0]["finished"] is True, ph[0]["finished"]
assert ph[1]["finished"] is False, "cut-short phase marked finished"
assert ph[1]["ops"]["read"]["ops"] > 0, ph[1]["ops"]      # what arrived still counts
PY

# torn last line (a full disk or a kill mid-write)
head -c -25 "$T/k.json.journal" >"$T/torn.journal"
n=$(wc -l <"$T/torn.journal")
timeout 20 "$NFSTORM" report "$T/torn.journal" >/dev/null 2>"$T/re"; rc=$?
[ $rc -eq 3 ] || fail "report of a torn journal: exit $rc, want 3: $(cat "$T/re")"
grep -q "line $((n + 1)) torn" "$T/re" || fail "torn line not named (want line $((n + 1))): $(cat "$T/re")"

# a run that ended: no warning, exit 0, every phase finished
sed 's/^runtime=.*/runtime=1/' "$T/two.fio" >"$T/short.fio"
timeout 30 "$NFSTORM" run "$T/short.fio" --agents "$AGENT_ADDR" --quiet --json "$T/f.json" >"$T/o" 2>&1 \
  || fail "full run failed: $(tail -n2 "$T/o")"
tail -n1 "$T/f.json.journal" | grep -q '"type":"end","outcome":"ok"' || fail "no end record: $(tail -n1 "$T/f.json.journal")"
timeout 20 "$NFSTORM" report "$T/f.json.journal" --json "$T/rf.json" >/dev/null 2>"$T/re" || fail "report of a whole journal: exit $?: $(cat "$T/re")"
[ -s "$T/re" ] && fail "warning on a whole journal: $(cat "$T/re")"
py "$T/rf.json" <<'PY'
import json, sys
assert all(p["finished"] for p in json.load(open(sys.argv[1]))["phases"])
PY
echo "cut-short journals: exit 3 with the missing parts named; whole journal: exit 0"
