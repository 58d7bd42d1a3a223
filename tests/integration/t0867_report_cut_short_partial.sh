#!/usr/bin/env bash
# `nfstorm report` of a journal cut short by kill -9 prints what arrived,
# marked partial, in the text, the HTML and the JSON alike: never "no
# results" for a phase whose intervals are in the journal, and never a
# latency of 0 for ops the journal's merged intervals timed.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
"$NFSTORM" run --agents "$AGENT_ADDR" --name=w --rw=randread --bs=4k --size=1m --directory="$D" --runtime=300ms \
  --time_based --name=t --rw=read --bs=4k --size=1m --directory="$D" --stonewall \
  --runtime=30 --time_based --rate_iops=100 --quiet --json "$T/k.json" >"$T/o" 2>&1 &
c=$!; PIDS+=("$c")
for _ in $(seq 300); do
  n=$(grep -c '"type":"interval","phase":1' "$T/k.json.journal" 2>/dev/null); [ "${n:-0}" -ge 2 ] && break; sleep 0.1
done
[ "$(grep -c '"type":"interval","phase":1' "$T/k.json.journal")" -ge 2 ] || fail "no intervals of t: $(cat "$T/o")"
kill -9 $c; wait $c 2>/dev/null
grep -q '"type":"end"' "$T/k.json.journal" && fail "journal of a killed coordinator has an end record"
# the ops the journal holds (per-agent interval lines: counters)
want=$(py "$T/k.json.journal" <<'PY'
import json, sys
n = 0
for l in open(sys.argv[1]):
    try: o = json.loads(l)
    except ValueError: break
    if o.get("type") == "interval" and o["phase"] == 1:
        n += o["o"]["read"][0] if "o" in o and "read" in o["o"] else o.get("ops", {}).get("read", {}).get("ops", 0)
print(n)
PY
) || fail "cannot count the journal's ops"

timeout 20 "$NFSTORM" report "$T/k.json.journal" --json "$T/r.json" --html "$T/r.html" >"$T/ro" 2>"$T/re"; rc=$?
[ $rc -eq 3 ] || fail "exit $rc, want 3 (partial): $(cat "$T/re")"
grep -q "no results" "$T/ro" && fail "text says no results: $(cat "$T/ro")"
grep -q "no results" "$T/r.html" && fail "HTML says no results"
grep -q "^phase t: partial results: the phase did not run to completion" "$T/ro" || fail "text not marked partial: $(cat "$T/ro")"
grep -q "partial results: the phase did not run to completion" "$T/r.html" || fail "HTML not marked partial"
row=$(grep -E '^t +read +seq' "$T/ro") || fail "no phase row: $(cat "$T/ro")"
# columns: name rw mode bs jobs op IOPS BW mean p50 ...
set -- $row
[ "$9" != "0ns" ] && [ "$9" != "-" ] || fail "mean latency of a single lost agent's replayed phase is '$9': $row"
py "$T/r.json" "$want" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][1]
want = int(sys.argv[2])
assert ph["finished"] is False and ph["partial"] is True, (ph["finished"], ph["partial"])
assert ph["ops"]["read"]["ops"] == want and want >= 100, (ph["ops"]["read"]["ops"], want)
assert len(ph["intervals"]) >= 2, len(ph["intervals"])
assert ph["ops"]["read"]["lat_ns"]["p50"] > 0, ph["ops"]["read"]["lat_ns"]
PY
[ $? -eq 0 ] || fail "JSON of the cut-short phase"
# the summary matrix marks the partial phase's cell (t: seq read), not the whole one (w: rand read)
sed -n '/^summary (IOPS/,/^$/p' "$T/ro" >"$T/m"
grep -Eq '^seq read +[0-9.kM]+\* ' "$T/m" || fail "partial cell not marked in the matrix: $(cat "$T/m")"
grep -Eq '^rand read +[0-9.kM]+ ' "$T/m" || fail "whole cell marked or missing: $(cat "$T/m")"
grep -q '^\* partial: the phase did not run to completion' "$T/m" || fail "no footnote: $(cat "$T/m")"
# its JSON renders as the journal did
"$NFSTORM" report "$T/r.json" >"$T/rr" 2>/dev/null
diff "$T/ro" "$T/rr" >"$T/diff" || fail "re-render of the JSON differs: $(head -20 "$T/diff")"
# two agents, both without their totals: the phase's latency is the merged
# intervals' (never 0), each agent's own is unknown: "-", not 0ns
A1=$AGENT_ADDR; start_agent "$D"; A2=$AGENT_ADDR
"$NFSTORM" run --agents "$A1,$A2" --name=t --rw=read --bs=4k --size=1m --directory="$D" --filename='f.${agent}' \
  --runtime=30 --time_based --rate_iops=100 --quiet --json "$T/k2.json" >"$T/o2" 2>&1 &
c=$!; PIDS+=("$c")
wait_intervals "$T/k2.json.journal" 4 30 || fail "no intervals (2 agents): $(cat "$T/o2")"
kill -9 $c; wait $c 2>/dev/null
timeout 20 "$NFSTORM" report "$T/k2.json.journal" --html "$T/r2.html" >"$T/ro2" 2>/dev/null
row=$(grep -E '^t +read +seq' "$T/ro2") || fail "no phase row (2 agents): $(cat "$T/ro2")"
set -- $row
[ "$9" != "0ns" ] && [ "$9" != "-" ] || fail "phase mean latency of two lost agents is '$9': $row"
[ "$(grep -cE '^  [01] +[a-z0-9.-]+ +read +[0-9.kM]+ +[0-9.]+[KMG]?i?B/s +- +- +- +- +- ' "$T/ro2")" -eq 2 ] \
  || fail "per-agent latency of salvaged agents is not '-': $(cat "$T/ro2")"
grep -q '<td>0ns</td>' "$T/r2.html" && fail "HTML shows 0ns for unknown latency"
echo "kill -9 journal: $want ops shown partial in text, HTML and JSON; two lost agents: phase latency kept, theirs '-'"
