#!/usr/bin/env bash
# A real 2-agent run writes CSV, time series, HTML and fio JSON; each agrees
# with nfstorm's own JSON; `nfstorm report` re-renders the saved JSON.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
timeout 60 "$NFSTORM" run --local 2 --quiet --label L1 --json "$T/a.json" --csv "$T/a.csv" --csv-agents \
  --timeseries "$T/a.ts" --html "$T/a.html" --output "$T/fio.json" --output-format=json+ \
  --name=r --rw=randread --bs=4k --size=8m --directory="$D" --runtime=2 --time_based >"$T/out" 2>&1 \
  || fail "run: $(tail -n3 "$T/out")"
# with --output, as with fio, nothing goes to stdout (the report below has the text)
[ ! -s "$T/out" ] || fail "--output left output on stdout: $(head -c 300 "$T/out")"
py "$T/a.json" "$T/fio.json" "$T/a.csv" "$T/a.ts" "$T/a.html" <<'PY'
import json, sys, csv, re, html.parser
r = json.load(open(sys.argv[1])); f = json.load(open(sys.argv[2]))
ph = r["phases"][0]; o = ph["ops"]["read"]
assert r["label"] == "L1" and r["agents"][0]["lost"] is False, r["agents"][0]
j = f["jobs"][0]; rd = j["read"]
assert j["jobname"] == "r", j["jobname"]
assert rd["iops"] == o["iops"] and rd["bw_bytes"] == int(o["bw_bytes"]), (rd["iops"], o["iops"])  # fio: integer bw_bytes
assert rd["bw"] == int(o["bw_bytes"] / 1024) and rd["total_ios"] == o["ops"], rd["bw"]
p = rd["clat_ns"]["percentile"]
for k, q in (("50.000000", "p50"), ("90.000000", "p90"), ("99.000000", "p99"), ("99.900000", "p999")):
    assert p[k] == o["lat_ns"][q], (k, p[k], o["lat_ns"][q])
assert sum(rd["clat_ns"]["bins"].values()) == o["ops"]
assert len(f["client_stats"]) == 2 and f["client_stats"][1]["read"]["total_ios"] == ph["agents"][1]["ops"]["read"]["ops"]
assert 0 < ph["fairness"]["jain"] <= 1
rows = list(csv.DictReader(open(sys.argv[3])))
assert [x["agent"] for x in rows] == ["all", "0", "1"], rows
assert int(rows[0]["ops"]) == o["ops"] and int(rows[1]["ops"]) + int(rows[2]["ops"]) == o["ops"]
assert abs(float(rows[0]["iops"]) - o["iops"]) < 1e-6 * o["iops"]
lines = [json.loads(l) for l in open(sys.argv[4])]
merged = [l for l in lines if l["agent"] == "all"]
assert len(merged) == len(ph["intervals"]) and len(lines) == 3 * len(merged), (len(lines), len(merged))
assert sum(l["ops"].get("read", {}).get("ops", 0) for l in merged) == o["ops"]
assert all(0 < l["jain"] <= 1 for l in merged if l["ops"])
h = open(sys.argv[5]).read()
class P(html.parser.HTMLParser):
    views = []; stack = []
    def handle_starttag(self, t, a):
        d = dict(a)
        if t == "svg": P.views.append(d.get("data-view"))
        for k, v in a:
            assert not (k in ("src", "href") and v and re.match(r"(https?:)?//", v)), v
        if t not in ("meta", "br", "rect", "line", "circle", "polyline"): P.stack.append(t)
    def handle_endtag(self, t):
        if t in ("rect", "line", "circle", "polyline"): return
        assert P.stack and P.stack[-1] == t, ("unbalanced", t, P.stack[-3:])
        P.stack.pop()
P().feed(h)
assert not P.stack, P.stack
for v in ("throughput", "latency", "fairness", "cdf", "agents"):
    assert v in P.views, (v, P.views)
assert 'data-view="matrix"' in h and "<script" not in h
PY
timeout 20 "$NFSTORM" report "$T/a.json" --html "$T/re.html" --csv "$T/re.csv" --csv-agents >"$T/rep" 2>&1 \
  || fail "report: $(tail -n2 "$T/rep")"
cmp -s "$T/a.csv" "$T/re.csv" || fail "report --csv differs from run --csv: $(diff "$T/a.csv" "$T/re.csv" | head -5)"
grep -q "^fairness: Jain" "$T/rep" || fail "report has no text report"
timeout 20 "$NFSTORM" report "$T/a.json" --output-format=json >"$T/f2.json" 2>&1 || fail "report fio json"
py "$T/f2.json" "$T/fio.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["jobs"][0]["read"]; b = json.load(open(sys.argv[2]))["jobs"][0]["read"]
assert a["iops"] == b["iops"] and a["clat_ns"]["percentile"] == b["clat_ns"]["percentile"], "re-rendered fio JSON differs"
PY
echo '{"schema": 2}' >"$T/bad.json"
expect_fail "bad json" "bad.json: .*missing" "$NFSTORM" report "$T/bad.json"
echo '{"schema": 1}' >"$T/old.json"
expect_fail "old schema" "old.json: schema: 1 is not readable by this nfstorm \\(it reads schema 2" "$NFSTORM" report "$T/old.json"
echo "reports agree with the JSON"
