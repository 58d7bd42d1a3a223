#!/usr/bin/env bash
# nfstorm run --local 2 --repeat 3 --repeat-interval 1s: three complete runs on
# the same two agents, a repeat set in the JSON (every repetition embedded,
# the summary's means those of the repetitions' own figures), a journal and a
# CSV per repetition, the text with three "repetition k/3" headings and the
# summary, and `nfstorm report` giving the summary (and one repetition) back.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
job=(--name=r --rw=randread --bs=4k --size=4m --runtime=500ms --time_based --name=w --rw=randwrite --bs=64k
     --size=4m --runtime=500ms --time_based --stonewall)
start=$(date +%s.%N)
timeout 60 "$NFSTORM" run --local 2 --repeat 3 --repeat-interval 1s --label L --target tgt --json "$T/s.json" \
  --csv "$T/s.csv" --html "$T/s.html" --directory="$D" "${job[@]}" >"$T/out" 2>"$T/err"; rc=$?
end=$(date +%s.%N)
[ $rc -eq 0 ] || fail "run --repeat 3: exit $rc: $(tail -n3 "$T/err")"
# 3 runs of 2 x 0.5 s phases and 2 waits of 1 s: at least 5 s
python3 -c "import sys; sys.exit(0 if $end - $start >= 5 else 1)" || fail "the set took $(python3 -c "print($end - $start)") s: the interval was not waited"
[ "$(grep -c '^repetition [123]/3$' "$T/out")" -eq 3 ] || fail "want 3 repetition headings: $(grep -n '^repetition' "$T/out")"
[ "$(grep -c '^verdict: ok (exit status 0)$' "$T/out")" -eq 3 ] || fail "want 3 repetition reports"
grep -q '^repeat set L, target tgt: 3 of 3 repetitions, 1s apart$' "$T/out" || fail "no summary heading: $(tail -n 20 "$T/out")"
grep -Eq '^r +read +IOPS ' "$T/out" && grep -Eq '^w +write +IOPS ' "$T/out" || fail "summary rows missing: $(tail -n 20 "$T/out")"
[ "$(grep -c 'verdicts: 3/3 ok$' "$T/out")" -eq 2 ] || fail "verdict counts missing: $(tail -n 20 "$T/out")"
grep -q '^repeat verdict: exit status 0 (the worst of 3 repetitions)$' "$T/out" || fail "no set verdict"
[ "$(grep -c 'about to write' "$T/err")" -eq 1 ] || fail "the set's estimate is printed more than once"
for k in 1 2 3; do
  [ -s "$T/s.json.rep$k.journal" ] || fail "no journal for repetition $k"
  [ -s "$T/s.rep$k.csv" ] || fail "no CSV for repetition $k"
done
[ ! -e "$T/s.json.journal" ] && [ ! -e "$T/s.csv" ] || fail "a plain journal or CSV beside the set's"
ls "$T" | grep -q 'XXXXXX\|\.json\.[A-Za-z0-9]\{6\}$' && fail "temp file left: $(ls "$T")"
py "$T/s.json" "$T" <<'PY'
import json, sys, statistics as st, math, csv
s = json.load(open(sys.argv[1]))
assert s["nfstorm_repeat_set"] == 1 and s["repeat"] == 3 and s["completed"] == 3, s["repeat"]
assert s["repeat_interval_s"] == 1.0 and s["interrupted"] is False and s["label"] == "L"
assert s["exit_status"] == 0 and s["verdict"] == "ok" and s["target"] == "tgt", s["target"]
reps = s["repetitions"]
assert len(reps) == 3
# the same two --local agents (same ports) served every repetition
addrs = [[a["addr"] for a in r["agents"]] for r in reps]
assert addrs[0] == addrs[1] == addrs[2] and len(addrs[0]) == 2, addrs
# each repetition its own record: same target and command line, its own
# start and end, and at least the 1 s interval between one's end and the next
rec = [r["record"] for r in reps]
assert all(x["target"] == "tgt" and "--repeat" in x["argv"] for x in rec), rec[0]
for a, b in zip(rec, rec[1:]):
    assert a["start_unix"] < a["end_unix"] and b["start_unix"] - a["end_unix"] >= 0.99, (a["end_unix"], b["start_unix"])
for r in reps:
    assert r["schema"] == 2 and r["label"] == "L" and [p["name"] for p in r["phases"]] == ["r", "w"]
    assert r["phases"][0]["ops"]["read"]["ops"] > 0 and r["phases"][1]["ops"]["write"]["ops"] > 0
key = {"iops": lambda o: o["iops"], "bw_bytes": lambda o: o["bw_bytes"],
       "lat_p50_ns": lambda o: o["lat_ns"]["p50"], "lat_p99_ns": lambda o: o["lat_ns"]["p99"]}
sp = s["summary"]["phases"]
assert [(p["name"], p["rw"], p["bs"]) for p in sp] == [("r", "randread", 4096), ("w", "randwrite", 65536)]
for i, (op, p) in enumerate([("read", sp[0]), ("write", sp[1])]):
    assert p["verdicts"] == ["ok", "ok", "ok"], p["verdicts"]
    assert list(p["ops"]) == [op], list(p["ops"])
    for m, get in key.items():
        got = p["ops"][op][m]
        vals = [get(r["phases"][i]["ops"][op]) for r in reps]
        assert got["n"] == 3 and got["repetitions"] == [1, 2, 3], got
        assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(got["values"], vals)), (m, got, vals)
        assert math.isclose(got["mean"], st.mean(vals), rel_tol=1e-9), (m, got["mean"], st.mean(vals))
        assert math.isclose(got["sd"], st.stdev(vals), rel_tol=1e-6, abs_tol=1e-9), (m, got["sd"], st.stdev(vals))
        half = 4.302652729911275 * st.stdev(vals) / math.sqrt(3)
        lo, hi = got["ci95"]
        # (an interval never reaches below 0: clamped there, and said)
        assert math.isclose(lo, max(0.0, st.mean(vals) - half), rel_tol=1e-6, abs_tol=1e-6), (m, lo)
        assert got["ci95_clamped"] == (st.mean(vals) - half < 0), (m, got)
        assert math.isclose(hi, st.mean(vals) + half, rel_tol=1e-6, abs_tol=1e-6), (m, hi)
# each repetition's CSV is that repetition's
for k in range(3):
    rows = list(csv.DictReader(open("%s/s.rep%d.csv" % (sys.argv[2], k + 1))))
    r0 = [x for x in rows if x["phase"] == "r" and x["agent"] == "all"][0]
    assert int(r0["ops"]) == reps[k]["phases"][0]["ops"]["read"]["ops"], (k, r0["ops"])
PY
grep -q 'class="repeat-summary"' "$T/s.html" && [ "$(grep -c '<tr data-phase=' "$T/s.html")" -eq 8 ] \
  || fail "HTML summary: want 8 rows (2 phases x 4 metrics): $(grep -c '<tr data-phase=' "$T/s.html")"
# report on the set: the same summary as the run printed, and its exit status
timeout 20 "$NFSTORM" report "$T/s.json" >"$T/rep" 2>&1 || fail "report on the set: $(tail -n3 "$T/rep")"
diff <(sed -n '/^repeat set L, target tgt/,$p' "$T/out") "$T/rep" >"$T/diff" || fail "report differs from the run's summary: $(cat "$T/diff")"
# --repetition 2: that repetition's full report, as the run printed it
timeout 20 "$NFSTORM" report "$T/s.json" --repetition 2 >"$T/rep2" 2>&1 || fail "report --repetition 2: $(tail -n3 "$T/rep2")"
diff <(sed -n '/^repetition 2\/3$/,/^repetition 3\/3$/p' "$T/out" | sed '1d;$d' | sed '$d') "$T/rep2" >"$T/diff" \
  || fail "repetition 2 differs from the run's: $(head -20 "$T/diff")"
timeout 20 "$NFSTORM" report "$T/s.json.rep3.journal" >"$T/rep3" 2>&1 || fail "report of repetition 3's journal: $(tail -n3 "$T/rep3")"
grep -q '^verdict: ok (exit status 0)$' "$T/rep3" || fail "journal report: $(tail -n3 "$T/rep3")"
# --json F on a set writes the set again, loadable and equal
timeout 20 "$NFSTORM" report "$T/s.json" --json "$T/again.json" --html "$T/again.html" >/dev/null 2>&1 || fail "report --json of a set"
py "$T/s.json" "$T/again.json" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["summary"] == b["summary"], "summary changed through a round trip"
assert [r["phases"][0]["ops"] for r in a["repetitions"]] == [r["phases"][0]["ops"] for r in b["repetitions"]]
PY
cmp -s "$T/s.html" "$T/again.html" || fail "the set's HTML differs when rendered again"
echo "repeat set ok"
