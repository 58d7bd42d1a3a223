#!/usr/bin/env bash
# nfstorm-test: serial (20 agent processes at 10 ms intervals: 2,000 agent-intervals a second)
# Issue 25 item 5 (a long run's coordinator stays bounded), simulated as
# bench/scale.sh --sim does: 20 real dial-in agents at 10 ms intervals send
# the coordinator 100 x 20 agent-intervals a second, so 11 s hold ~1,100
# intervals (18 minutes at 1 s).  Asserts:
#  - memory: the coordinator's RSS grows by < 120 bytes per agent-interval
#    between two points of the same run (sampled from /proc as the journal
#    passes 4,000 and 14,000 agent-interval lines); dense per-agent
#    counters alone took ~290 bytes; before this change the whole grew ~580
#    (measured: this test fails on that build);
#  - the JSON holds every interval and agent-interval (full data), and
#    `nfstorm report` re-renders it and the journal into the same JSON
#    byte for byte;
#  - the HTML's lines are downsampled: every polyline of the > 1,000
#    interval phase has at most 1,000 points, where the JSON has every
#    interval.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
N=20
D=$T/d; mkdir -p "$D"
"$NFSTORM" run --listen 127.0.0.1:$CPORT --secret-file "$SECRET" --expect $N --expect-timeout 60s \
  --interval 10ms --json "$T/r.json" --html "$T/r.html" --name=s --ioengine=null --rw=randread --bs=4k \
  --size=1m --rate_iops=1000 --runtime=11 --time_based >"$T/out" 2>"$T/err" &
cpid=$!
PIDS+=("$cpid")
for i in $(seq $N); do
  "$AGENT" --coordinator 127.0.0.1:$CPORT --secret-file "$SECRET" --allow "$D" >/dev/null 2>&1 &
  PIDS+=($!)
done
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$cpid/status" 2>/dev/null; }
nlines() { local n; n=$(grep -c '"type":"interval"' "$T/r.json.journal" 2>/dev/null); echo "${n:-0}"; }
# sample at two points of the run: RSS and the agent-intervals in so far
A1=4000 A2=14000 r1= r2= n1= n2=
for _ in $(seq 600); do
  kill -0 "$cpid" 2>/dev/null || break
  n=$(nlines)
  if [ -z "$r1" ] && [ "$n" -ge $A1 ]; then r1=$(rss_kib); n1=$n; fi
  if [ -n "$r1" ] && [ "$n" -ge $A2 ]; then r2=$(rss_kib); n2=$n; break; fi
  sleep 0.05
done
wait "$cpid"; rc=$?
[ $rc -eq 0 ] || fail "the run exits $rc: $(grep -v 'agent joined' "$T/err" | tail -n 3)"
[ -n "$r2" ] && [ -n "$r1" ] || fail "the journal never reached $A2 agent-interval lines (at $(nlines))"
per=$(( (r2 - r1) * 1024 / (n2 - n1) ))
echo "RSS $r1 KiB at $n1 agent-intervals, $r2 KiB at $n2: $per bytes per agent-interval"
# under ASan freed memory waits in its quarantine: RSS says nothing there
ldd "$NFSTORM" | grep -q libasan || [ "$per" -lt 120 ] || fail "RSS grew $per bytes per agent-interval ($r1 -> $r2 KiB over $((n2 - n1))), want < 120"

py "$T/r.json" "$T/r.html" $N <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1])); n = int(sys.argv[3]); ph = r["phases"][0]
ivs = ph["intervals"]
assert len(ivs) > 1000, len(ivs)
# full data: every agent's every interval, adding up to the phase
ai = sum(a["nintervals"] for a in ph["agents"])
assert ai >= 14000, ai
tot = 0
for iv in ivs:
    col = iv["agents"]["ops"].get("read")
    if col:
        assert len(col["ops"]) == n, len(col["ops"])
        assert sum(col["ops"]) == iv["ops"]["read"]["ops"]
        tot += sum(col["ops"])
assert tot == ph["ops"]["read"]["ops"] > 0, (tot, ph["ops"]["read"]["ops"])
html = open(sys.argv[2]).read()
lines = re.findall(r'<polyline[^>]*points="([^"]*)"', html)
assert lines, "no lines in the HTML"
most = max(len(p.split()) for p in lines)
assert most <= 1000, most
print("%d intervals, %d agent-intervals in the JSON; %d polylines in the HTML, the longest %d points"
      % (len(ivs), ai, len(lines), most))
PY
[ $? -eq 0 ] || fail "the JSON or HTML check failed"

for src in r.json r.json.journal; do
  timeout 60 "$NFSTORM" report "$T/$src" --json "$T/x.json" >"$T/x.out" 2>"$T/x.err" ||
    fail "report $src exits $?: $(head -c 300 "$T/x.err")"
  cmp -s "$T/r.json" "$T/x.json" || fail "the JSON re-rendered from $src differs"
done
echo "ok: bounded memory, full JSON, re-rendered identically, downsampled HTML"
