#!/usr/bin/env bash
# Outputs that scale (issue 10): a 20-agent run (null engine, rate-limited,
# 100 ms intervals) writes a JSON result of at most 120 bytes and a journal
# of at most 200 bytes per agent-interval; the JSON's per-agent interval
# counters are columns (arrays indexed by agent) that add up to the merged
# interval; the journal's per-agent interval lines carry counters only and
# each complete interval's merged latency is one interval_lat line; and the
# report re-rendered from either is byte for byte the run's (text, JSON,
# CSV with agents, time series, HTML).
source "$(dirname "$0")/lib.sh"
N=20
timeout 60 "$NFSTORM" run --local $N --interval 100ms --json "$T/r.json" --csv "$T/r.csv" --csv-agents \
  --timeseries "$T/r.ts" --html "$T/r.html" --name=s --ioengine=null --rw=randread --bs=4k --size=1m \
  --rate_iops=10 --runtime=4 --time_based >"$T/r.txt" 2>"$T/r.err"
rc=$?
[ $rc -eq 0 ] || fail "the run exits $rc: $(tail -n2 "$T/r.err")"

py "$T/r.json" "$T/r.json.journal" $N <<'PY'
import json, os, sys
from iv_agents import agents_n
path, jpath, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(path)); ph = r["phases"][0]
ai = sum(a["nintervals"] for a in ph["agents"])
assert len(ph["agents"]) == n and ai >= n * 30, (len(ph["agents"]), ai)
js, jn = os.path.getsize(path), os.path.getsize(jpath)
# 100 before issue 14 added each agent's CPU and NIC bytes per interval
# (three columns, ~18 bytes per agent-interval here)
assert js <= 120 * ai, "JSON %d bytes, %.0f per agent-interval (want <= 120)" % (js, js / ai)
assert jn <= 200 * ai, "journal %d bytes, %.0f per agent-interval (want <= 200)" % (jn, jn / ai)
# the columns: nagents long, adding up to the merged interval, and to the phase
tot = 0
for k, iv in enumerate(ph["intervals"]):
    cols = iv["agents"]
    assert isinstance(cols, dict) and set(cols) <= {"ops", "reported", "inflight", "oldest_ns"}, cols
    rd = cols["ops"].get("read")
    if rd is None:
        assert "read" not in iv["ops"], k
        continue
    assert len(rd["ops"]) == n and len(rd["bytes"]) == n, (k, rd)
    a = agents_n(iv, n)
    assert sum(x["ops"].get("read", {}).get("ops", 0) for x in a) == iv["ops"]["read"]["ops"], k
    assert sum(rd["bytes"]) == iv["ops"]["read"]["bytes"] == 4096 * sum(rd["ops"]), k
    tot += sum(rd["ops"])
assert tot == ph["ops"]["read"]["ops"] > 0, (tot, ph["ops"]["read"]["ops"])
# the journal: counters per agent-interval, latency once per interval
lines = [json.loads(l) for l in open(jpath)]
ivl = [l for l in lines if l["type"] == "interval"]
lat = [l for l in lines if l["type"] == "interval_lat"]
assert len(ivl) == ai, (len(ivl), ai)
# counters only, compactly: {"read": [ops, bytes]} (late data alone has "ops" with histograms)
assert all("ops" not in l and all(isinstance(o, list) and 2 <= len(o) <= 4 for o in l["o"].values())
           for l in ivl), "a histogram per agent"
withops = [k for k, iv in enumerate(ph["intervals"]) if "read" in iv["ops"]]
assert sorted(l["k"] for l in lat) == withops, ([l["k"] for l in lat], withops)
for l in lat:
    h = l["ops"]["read"]["lat"]
    assert h["count"] == ph["intervals"][l["k"]]["ops"]["read"]["ops"], l["k"]
    assert h == ph["intervals"][l["k"]]["ops"]["read"]["lat_ns"]["hist"], l["k"]
print("JSON %.0f, journal %.0f bytes per agent-interval (%d agent-intervals)" % (js / ai, jn / ai, ai))
PY

for src in r.json r.json.journal; do
  out=$T/x.$src
  timeout 30 "$NFSTORM" report "$T/$src" --csv "$out.csv" --csv-agents --timeseries "$out.ts" \
    --html "$out.html" --json "$out.json" >"$out.txt" 2>"$out.err"; rc=$?
  [ $rc -eq 0 ] || fail "report $src exits $rc: $(head -c 300 "$out.err")"
  for f in csv ts html json; do
    cmp -s "$T/r.$f" "$out.$f" || fail "$f from $src differs: $(diff "$T/r.$f" "$out.$f" | head -3 | cut -c1-160)"
  done
  diff <(grep -v '^(full result' "$T/r.txt") <(grep -v '^(full result' "$out.txt") >"$T/diff" \
    || fail "text from $src differs: $(head -4 "$T/diff" | cut -c1-160)"
done
# a columns array of the wrong length is refused with the key named
python3 - "$T/r.json" "$T/bad.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
iv = next(i for i in r["phases"][0]["intervals"] if "read" in i["agents"]["ops"])
iv["agents"]["ops"]["read"]["bytes"].pop()
json.dump(r, open(sys.argv[2], "w"))
PY
timeout 30 "$NFSTORM" report "$T/bad.json" >"$T/bad.out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "a short column: exit $rc, want 2"
grep -q "agents.ops.read.bytes: has 19 elements, want 20" "$T/bad.out" || fail "a short column: $(head -2 "$T/bad.out")"
echo "20 agents: JSON <= 120 and journal <= 200 bytes per agent-interval, columns add up, re-render exact"
