#!/usr/bin/env bash
# Issue 25 item 4: `nfstorm report RESULT --metrics FILE` places a
# CloudWatch get-metric-data file's series on the run's clock.
#  1. the result records where each phase's intervals begin on the wall
#     clock (start_unix_ms: its start plus ramp_time, 1 s here);
#  2. a file written in the documented format (MetricDataResults[] with Id,
#     Label, Timestamps[] in ISO 8601, Values[], StatusCode; newest first as
#     CloudWatch returns them) with points 0.5 s, 1.5 s and 2.5 s after the
#     phase's start, one a minute before the run and one in another time
#     zone's spelling: each in-run point gets offset_s, the phase, the
#     interval it falls in and that interval's fleet throughput (from the
#     result's own intervals); the one before the run gets no phase;
#     text, JSON (external_metrics) and HTML (a chart per series);
#  3. hostile files: mismatched lengths, a bad timestamp, a non-number, too
#     many series, an oversized file: one line each, exit 2.
source "$(dirname "$0")/lib.sh"
timeout 60 "$NFSTORM" run --local 1 --quiet --name=w --ioengine=null --rw=write --bs=64k --size=1g --rate=4m \
  --ramp_time=1 --runtime=3 --time_based --json "$T/r.json" >"$T/run.out" 2>&1 || fail "run: $(tail -n3 "$T/run.out")"
py "$T/r.json" "$T/m.json" <<'PY'
import json, sys, datetime
d = json.load(open(sys.argv[1]))
t0 = d["phases"][0]["start_unix_ms"]
assert isinstance(t0, int) and d["started"] * 1000 + 1000 <= t0 < d["started"] * 1000 + 6000, (t0, d["started"])
def iso(ms, tz=0):
    z = datetime.timezone(datetime.timedelta(hours=tz))
    t = datetime.datetime.fromtimestamp(ms / 1000, z)
    return t.isoformat(timespec="milliseconds")
pts = [(t0 + 2500, 30.0), (t0 + 1500, 20.0), (t0 + 500, 10.0), (t0 - 60000, 1.0)]
m = {"MetricDataResults": [
        {"Id": "credits", "Label": "BurstCreditBalance", "StatusCode": "Complete",
         "Timestamps": [iso(t) for t, _ in pts], "Values": [v for _, v in pts]},
        {"Id": "conn", "Label": "ClientConnections", "StatusCode": "PartialData",
         "Timestamps": [iso(t0 + 1200, tz=-5)], "Values": [2]}],
     "Messages": []}
json.dump(m, open(sys.argv[2], "w"))
PY
"$NFSTORM" report "$T/r.json" --metrics "$T/m.json" --json "$T/o.json" --html "$T/o.html" >"$T/rep.out" 2>&1 \
  || fail "report: $(tail -n3 "$T/rep.out")"
grep -qE '^  BurstCreditBalance \(credits, Complete\): 4 points, 3 during the run; min 10, mean 20, max 30$' \
  "$T/rep.out" || fail "series line: $(grep -A8 '^external metrics' "$T/rep.out")"
grep -qE '^ +\+0\.5 s +10 +run [0-9.]+[KM]iB/s \(phase w, interval 0\)$' "$T/rep.out" \
  || fail "point line: $(grep -A8 '^external metrics' "$T/rep.out")"
py "$T/o.json" "$T/r.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
ph = r["phases"][0]; t0 = ph["start_unix_ms"]
iv = ph["intervals"]; isec = ph.get("interval_ms", 1000) / 1000
em = o["external_metrics"]
assert em["run_start_unix_ms"] == t0, em
s0, s1 = em["series"]
assert (s0["id"], s0["label"], s0["status_code"], s0["points_in_run"]) == ("credits", "BurstCreditBalance", "Complete", 3), s0
p = s0["points"]
assert [x["unix_ms"] for x in p] == [t0 - 60000, t0 + 500, t0 + 1500, t0 + 2500], p
assert p[0]["phase"] is None and p[0]["interval"] is None and abs(p[0]["offset_s"] + 60) < 1e-9, p[0]
for x, k, v in zip(p[1:], (0, 1, 2), (10, 20, 30)):
    assert x["phase"] == "w" and x["interval"] == k and x["value"] == v, x
    assert abs(x["offset_s"] - (k + 0.5)) < 1e-9, x
    b = sum(op["bytes"] for op in iv[k]["ops"].values())
    assert abs(x["run_bps"] - b / isec) < 1e-6 and b > 0, (x, b)
c = s1["points"][0]
assert s1["status_code"] == "PartialData" and c["interval"] == 1 and abs(c["offset_s"] - 1.2) < 1e-9, s1
PY
grep -q 'data-view="external"' "$T/o.html" || fail "no external metric chart in the HTML"
grep -q 'id="external-metrics"' "$T/o.html" || fail "no external metrics section in the HTML"
grep -q 'BurstCreditBalance' "$T/o.html" || fail "the HTML does not name the series"

# 3. hostile files
bad() {
  printf '%s' "$2" >"$T/bad.json"
  expect_fail "$1" "$3" "$NFSTORM" report "$T/r.json" --metrics "$T/bad.json"
  [ "$(wc -l <"$T/out")" -eq 1 ] || fail "$1: more than one line: $(cat "$T/out")"
}
bad "lengths" '{"MetricDataResults":[{"Id":"a","Timestamps":["2026-01-01T00:00:00Z","2026-01-01T00:01:00Z"],"Values":[1]}]}' \
  "^nfstorm: report: .*bad.json: MetricDataResults\[0\] \(Id 'a'\): 2 Timestamps but 1 Values"
bad "timestamp" '{"MetricDataResults":[{"Id":"a","Timestamps":["2026-01-01T25:00:00Z"],"Values":[1]}]}' \
  "Timestamps\[0\]: bad time '2026-01-01T25:00:00Z' \(want ISO 8601"
bad "value" '{"MetricDataResults":[{"Id":"a","Timestamps":["2026-01-01T00:00:00Z"],"Values":[null]}]}' \
  "Values\[0\]: want a number"
bad "not cloudwatch" '{"Datapoints":[]}' "no MetricDataResults array"
bad "not json" '{"MetricDataResults":[' "not JSON"
python3 -c 'import json; print(json.dumps({"MetricDataResults": [{"Id": "s%d" % i, "Timestamps": [], "Values": []} for i in range(501)]}))' >"$T/many.json"
expect_fail "series" "501 MetricDataResults \(at most 500\)" "$NFSTORM" report "$T/r.json" --metrics "$T/many.json"
truncate -s 65M "$T/huge.json"
expect_fail "huge" "not a regular file of at most 64 MiB" "$NFSTORM" report "$T/r.json" --metrics "$T/huge.json"
echo PASS
