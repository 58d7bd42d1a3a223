#!/usr/bin/env bash
# nfstorm compare of two sweep results with repetitions, in every format
# (text, md, json, csv, html): capacity and knee as mean, sd, n, ratio and
# Welch's significance, and the curves overlaid (html; json carries them).
# The answers are the model server's (t1785): ops in flight D take
# (D + 1) ms at 1k IOPS, so sweep=iodepth searched against p50 <= 6.5 ms
# finds 5 and against p50 <= 10.5 ms finds 9, every repetition: sd 0, a
# ratio of 1.8, and (no spread on either side, different means) p = 0.
# (The CV rule is off, and the SLO is the median, not p99: on a busy machine
# short points can see their CV or p99 moved by one stall, which would make
# the answers differ by chance.)
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"; A0=$AGENT_ADDR
M=(--name=q --ioengine=null --rw=randread --bs=4k --size=64m --null_capacity_iops=1k --null_latency=1ms
   --sweep=iodepth --sweep_start=1 --sweep_max=16 --sweep_point_time=300ms --sweep_valid=cv:100)
for x in tight:6500us loose:10500us; do
  timeout 90 "$NFSTORM" run --agents "$A0" --quiet --interval 100ms --repeat 2 --label "${x%%:*}" \
    --json "$T/${x%%:*}.json" "${M[@]}" --sweep_slo="p50<=${x#*:}" >"$T/${x%%:*}.out" 2>&1 ||
    fail "run ${x%%:*}: $(tail -n3 "$T/${x%%:*}.out")"
done
for f in text md json csv html; do
  timeout 20 "$NFSTORM" compare "$T/tight.json" "$T/loose.json" --format $f >"$T/c.$f" 2>"$T/c.err" ||
    fail "compare --format $f: $(cat "$T/c.err")"
done
py "$T/c.json" "$T/c.csv" "$T/c.html" <<'PY'
import csv, json, re, sys
sw = json.load(open(sys.argv[1]))["sweeps"]
assert [(x["job"], x["dimension"]) for x in sw] == [("q", "iodepth")], sw
t, l = sw[0]["inputs"]
print("capacities:", t["capacity"], l["capacity"])
assert t["label"] == "tight" and l["label"] == "loose", (t["label"], l["label"])
assert t["capacity"] == {"n": 2, "mean": 5.0, "sd": 0.0, "ratio": None, "p": None}, t["capacity"]
assert l["capacity"] == {"n": 2, "mean": 9.0, "sd": 0.0, "ratio": 1.8, "p": 0.0}, l["capacity"]
# the curves: tight 1 2 4 8 6 5 and loose 1 2 4 8 16 12 10 9, in requested order
assert [p["requested"] for p in t["curve"]] == [1, 2, 4, 5, 6, 8], t["curve"]
assert [p["requested"] for p in l["curve"]] == [1, 2, 4, 8, 9, 10, 12, 16], l["curve"]
# (a thread descheduled on a busy machine lets its queue drain: latency can only drop)
assert all(0.5 * (p["requested"] + 1) * 1e6 <= p["latency_ns"] <= 1.1 * (p["requested"] + 1) * 1e6 for p in l["curve"]), l["curve"]
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["metric"].startswith("sweep_")]
cap = {(r["label"], r["metric"]): r for r in rows}
assert len(rows) == 4 and cap[("tight", "sweep_capacity")]["value"] == "5" and cap[("loose", "sweep_capacity")]["value"] == "9", rows
lc = cap[("loose", "sweep_capacity")]
assert lc["phase"] == "q" and lc["n"] == "2" and lc["sd"] == "0" and lc["ratio"] == "1.8" and lc["p"] == "0", lc
h = open(sys.argv[3]).read()
svg = re.search(r'<svg[^>]*data-view="compare-sweep-achieved".*?</svg>', h, re.S).group(0)
assert re.findall(r'<text[^>]*>([^<]*)</text>', svg)[-3:] == ["tight", "loose", "y = x"], svg[-400:]
assert svg.count("<polyline") == 3 and 'data-view="compare-sweep-latency"' in h
PY
grep -q "^  q capacity (iodepth): \[1\] tight 5 (sd 0, 2 runs); \[2\] loose 9 (sd 0, 2 runs), x1.80, p=0 significant$" "$T/c.text" ||
  fail "text: $(grep -A2 '^sweeps' "$T/c.text")"
grep -q "^| q (iodepth) | capacity | loose | 9 | 0 | 2 | x1.80 | 0 significant |$" "$T/c.md" ||
  fail "md: $(grep -A6 '### Sweeps' "$T/c.md")"
echo "compare overlays two sweeps and tests their capacities in every format"
