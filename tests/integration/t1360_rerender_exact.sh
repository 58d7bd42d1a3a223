#!/usr/bin/env bash
# Re-rendering is lossless (issue 13): for real runs of several shapes
# (randrw on 2 agents, a metadata job, a lost agent, a stalled agent,
# several phases with a rate-limited one at --unit-base 1000, an
# interrupted run), `nfstorm report RESULT.json` and `nfstorm report
# RESULT.json.journal` with the same flags write text, CSV (with agents),
# time series, HTML and the JSON itself byte for byte equal to what the
# run wrote, and exit with the run's status.  The text may differ only in
# a "(full result ...)" pointer line naming files only the run wrote (none
# today).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
OUT="--csv-agents"

# rerender NAME UNITFLAGS: re-render $T/NAME.json and its journal, compare
rerender() {
  local n=$1 src out rc; shift
  [ -s "$T/$n.ts" ] && [ -s "$T/$n.html" ] && [ -s "$T/$n.csv" ] || fail "$n: the run wrote no reports"
  for src in "$n.json" "$n.json.journal"; do
    out=$T/x.$src
    timeout 30 "$NFSTORM" report "$T/$src" "$@" --csv "$out.csv" $OUT --timeseries "$out.ts" \
      --html "$out.html" --json "$out.json" >"$out.txt" 2>"$out.err"; rc=$?
    [ $rc -eq "$(cat "$T/$n.rc")" ] || fail "$n: report $src exits $rc, the run $(cat "$T/$n.rc"): $(head -c 300 "$out.err")"
    # the JSON written again is the run's, byte for byte, too
    for f in csv ts html json; do
      cmp -s "$T/$n.$f" "$out.$f" || fail "$n: $f from $src differs: $(diff "$T/$n.$f" "$out.$f" | head -3 | cut -c1-160)"
    done
    # the run's own text is all of the report's (a "(full result ...)" pointer
    # line, naming files only the run wrote, would be the one exception)
    grep -q "^phase verdict: " "$T/$n.txt" || fail "$n: the run printed no text report"
    diff <(grep -v '^(full result' "$T/$n.txt") <(grep -v '^(full result' "$out.txt") >"$T/diff" \
      || fail "$n: text from $src differs: $(head -4 "$T/diff" | cut -c1-160)"
  done
}

# run NAME RUNARGS...: a run writing every report, its text on stdout
run() {
  local n=$1; shift
  timeout 60 "$NFSTORM" run --json "$T/$n.json" --csv "$T/$n.csv" $OUT --timeseries "$T/$n.ts" \
    --html "$T/$n.html" "$@" >"$T/$n.txt" 2>"$T/$n.err"; echo $? >"$T/$n.rc"
}

# 1. randrw on 2 agents
run rw --local 2 --name=x --rw=randrw --bs=4k --size=8m "--filename=$D/rw.\${agent}" --runtime=3 --time_based
[ "$(cat "$T/rw.rc")" = 0 ] || fail "rw run: $(tail -n2 "$T/rw.err")"
rerender rw
# the JSON keeps every interval's histogram: interval percentiles are the run's
py "$T/rw.json" "$T/rw.ts" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); ph = r["phases"][0]
ts = [json.loads(l) for l in open(sys.argv[2]) if '"agent":"all"' in l]
assert len(ts) == len(ph["intervals"]) >= 3, (len(ts), len(ph["intervals"]))
both = 0
for i, t in zip(ph["intervals"], ts):
    both += "read" in i["ops"] and "write" in i["ops"]
    for op in i["ops"]:
        h = i["ops"][op]["lat_ns"]["hist"]
        assert h["count"] == i["ops"][op]["ops"] > 0, (op, h["count"])
        n, pos, runs = 0, 0, h["runs"]          # [skip, len, counts...]
        while pos < len(runs):
            n += sum(runs[pos + 2:pos + 2 + runs[pos + 1]]); pos += 2 + runs[pos + 1]
        assert n == h["count"], (n, h["count"])
        assert t["ops"][op]["lat_ns"]["p99"] == i["ops"][op]["lat_ns"]["p99"]
assert both >= 3, both
PY

# 2. a metadata job
cat >"$T/md.fio" <<EOF2
[md]
rw=metadata
md_ops=create,stat,open,unlink
nrfiles=300
filesize=4k
files_per_dir=100
numjobs=2
directory=$D
EOF2
run md --local 2 "$T/md.fio"
[ "$(cat "$T/md.rc")" = 0 ] || fail "md run: $(tail -n2 "$T/md.err")"
grep -q "stat" "$T/md.txt" || fail "md: no stat row in the text report"
rerender md

# 3. several phases, one rate-limited (service time), --unit-base 1000
cat >"$T/ph.fio" <<EOF2
[global]
size=4m
runtime=1
time_based
directory=$D
[w]
rw=randwrite
bs=4k
[r]
stonewall
rw=read
bs=64k
[rl]
stonewall
rw=randread
bs=4k
rate_iops=300
EOF2
run ph --local 2 --unit-base 1000 "$T/ph.fio"
[ "$(cat "$T/ph.rc")" = 0 ] || fail "ph run: $(tail -n2 "$T/ph.err")"
grep -Eq "[0-9](kB|MB)/s" "$T/ph.txt" || fail "ph: --unit-base 1000 printed no SI rate (kB/s, MB/s)"
rerender ph --unit-base 1000
py "$T/ph.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["phases"]) == 3
s = r["phases"][2]["ops"]["read"]["svc_ns"]["hist"]
assert s["count"] == r["phases"][2]["ops"]["read"]["ops"] > 0, s["count"]
PY

# 4. a lost agent (kill -9 mid-run) and 5. a stalled one (SIGSTOP ~2 intervals)
addrs=(); pids=()
for i in 0 1; do start_agent "$D"; addrs+=("$AGENT_ADDR"); pids+=("$AGENT_PID"); done
run lost --agents "${addrs[0]},${addrs[1]}" --agent-timeout 3s --name=k --rw=randwrite --bs=4k --size=8m \
  "--filename=$D/lost.\${agent}" --runtime=5 --time_based &
wait_intervals "$T/lost.json.journal" 4 || fail "lost run: no 2 intervals of its 2 agents"
kill -9 "${pids[1]}"; wait $!
[ "$(cat "$T/lost.rc")" = 3 ] || fail "lost run: exit $(cat "$T/lost.rc"), want 3: $(tail -n2 "$T/lost.err")"
grep -q "agent 1 (.*) lost at" "$T/lost.txt" || fail "lost: the text does not say agent 1 was lost"
rerender lost
py "$T/lost.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); ph = r["phases"][0]
assert r["agents"][1]["lost"] and r["agents"][1]["lost_at_s"] > 0
from iv_agents import agents_n
A = lambda i: agents_n(i, len(ph["agents"]))
gone = [i for i in ph["intervals"] if A(i)[1]["reported"] is False]
assert gone and all(i["nreported"] == 1 for i in gone), [i["nreported"] for i in ph["intervals"]]
PY

start_agent "$D"; addrs[1]=$AGENT_ADDR; pids[1]=$AGENT_PID
run stall --agents "${addrs[0]},${addrs[1]}" --agent-timeout 20s --name=s --rw=randwrite --bs=4k --size=8m \
  "--filename=$D/stall.\${agent}" --runtime=5 --time_based &
wait_intervals "$T/stall.json.journal" 4 || fail "stall run: no 2 intervals of its 2 agents"
kill -STOP "${pids[1]}"; sleep 2.5; kill -CONT "${pids[1]}"; wait $!   # the stall itself: ~2 intervals
[ "$(cat "$T/stall.rc")" = 0 ] || fail "stall run: exit $(cat "$T/stall.rc"): $(tail -n2 "$T/stall.err")"
rerender stall
# the stop shows: an interval agent 1 reported with next to no op done (the
# few there are came as it woke and closed the overdue interval) while agent 0 worked
py "$T/stall.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
from iv_agents import agents_n
A = lambda i: agents_n(i, len(ph["agents"]))
w = lambda a: a["ops"].get("write", {}).get("ops", 0)
assert any(A(i)[1]["reported"] and 100 * w(A(i)[1]) < w(A(i)[0])
           for i in ph["intervals"]), [[w(a) for a in A(i)] for i in ph["intervals"]]
PY
# 6. an interrupted run (SIGINT mid-phase): how it ended is in both (not
# under timeout(1), which would pass the SIGINT on to the agents as well)
"$NFSTORM" run --json "$T/int.json" --csv "$T/int.csv" $OUT --timeseries "$T/int.ts" --html "$T/int.html" \
  --local 2 --name=i --rw=randread --bs=4k --size=8m "--filename=$D/int.\${agent}" --runtime=8 --time_based \
  >"$T/int.txt" 2>"$T/int.err" &
c=$!
for _ in $(seq 200); do grep -q "started on" "$T/int.err" && break; sleep 0.05; done
wait_intervals "$T/int.json.journal" 4 || fail "int run: no 2 intervals of its 2 agents"
kill -INT $c; wait $c; echo $? >"$T/int.rc"
[ "$(cat "$T/int.rc")" = 130 ] || fail "int run: exit $(cat "$T/int.rc"), want 130: $(tail -n2 "$T/int.err")"
grep -q "interrupted" "$T/int.txt" || fail "int: the text does not say the run was interrupted"
rerender int
echo "re-rendered text, CSV, time series, HTML and JSON equal the runs' (rw, md, phases+unit-base, lost, stall, interrupted)"
