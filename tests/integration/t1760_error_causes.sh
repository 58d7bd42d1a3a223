#!/usr/bin/env bash
# Failed ops carry their cause, and are counted apart from what worked
# (issue 21, item 2).  Two agents on different --allow roots read
# --filename=f.dat; once the phase runs, agent 1's file is truncated to 0
# bytes, so every read of it from then on meets the file's end.  The text,
# the JSON (phase and agent `errors`) and the HTML name the cause, `short
# read at offset X (file is 0 bytes)`, with its count (all of agent 1's
# failed reads) and file; the latency histograms hold only successful ops;
# `share`, fairness and the intervals' Jain index count successful ops
# only; and `nfstorm report` re-renders the same text from the JSON result
# and from the journal.
source "$(dirname "$0")/lib.sh"
mkdir -p "$T/a" "$T/b"
start_agent "$T/a"; A0=$AGENT_ADDR
start_agent "$T/b"; A1=$AGENT_ADDR
# the file exists at full size beforehand, so the phase starts reading
# whatever the layout does; the truncation makes the failures
head -c 1048576 /dev/urandom >"$T/a/f.dat"; cp "$T/a/f.dat" "$T/b/f.dat"
timeout 60 "$NFSTORM" run --agents "$A0,$A1" --quiet --json "$T/r.json" --html "$T/r.html" --name=t \
  --filename=f.dat --rw=randread --bs=4k --size=1m --runtime=3 --time_based >"$T/out" 2>&1 &
RUN=$!
wait_intervals "$T/r.json.journal" 2 || fail "no interval within 60 s: $(cat "$T/out")"
truncate -s 0 "$T/b/f.dat"
wait $RUN; rc=$?
[ $rc -eq 1 ] || fail "a phase with failed reads: exit $rc, want 1: $(tail -n3 "$T/out")"
grep -Eq "^errors: read [0-9]+ of [0-9]+ ops failed" "$T/out" || fail "no errors line: $(cat "$T/out")"
py "$T/r.json" "$T/out" "$T/r.html" "$T/b/f.dat" <<'PY'
import json, sys, re, html
r = json.load(open(sys.argv[1])); out = open(sys.argv[2]).read(); page = open(sys.argv[3]).read()
path = sys.argv[4]
ph = r["phases"][0]; rd = ph["ops"]["read"]
a0, a1 = ph["agents"]
e1 = a1["ops"]["read"]["errors"]
assert e1 > 0 and a0["ops"]["read"]["errors"] == 0, (e1, a0["ops"]["read"])
assert rd["errors"] == e1
# the cause, per agent and merged, with its count and first offset
assert "errors" not in a0, a0.get("errors")
c = a1["errors"]["read"]
assert c["failed"] == e1 and c["other"] == 0 and len(c["causes"]) == 1, c
c = c["causes"][0]
assert (c["kind"], c["name"], c["count"], c["file"], c["file_size"]) == ("short_read", "short_read", e1, path, 0), c
assert c["first_offset"] % 4096 == 0 and c["first_offset"] < 1048576, c
assert c["text"] == "short read at offset %d (file is 0 bytes)" % c["first_offset"], c["text"]
m = ph["errors"]["read"]
assert m["failed"] == e1 and m["causes"][0]["first_agent"] == 1 and m["causes"][0]["count"] == e1, m
# text: the agent's line, and the verdict names the cause
want = "  agent 1 (%s) read: %d x %s in %s\n" % (r["agents"][1]["host"], e1, c["text"], path)
assert want in out, (want, out)
assert "read ops failed (%s)" % c["text"] in out, out
# HTML: the errors table names it
assert '<table class="errors">' in page and html.escape(c["text"]) in page, "no cause in the HTML"
# failed ops are in no histogram: counts are the successful ops
ok0 = a0["ops"]["read"]["ops"] - a0["ops"]["read"]["errors"]
ok1 = a1["ops"]["read"]["ops"] - e1
assert a0["ops"]["read"]["lat_ns"]["hist"]["count"] == ok0
assert a1["ops"]["read"]["lat_ns"]["hist"]["count"] == ok1, (a1["ops"]["read"]["lat_ns"]["hist"], ok1)
assert rd["lat_ns"]["hist"]["count"] == ok0 + ok1 == rd["ops"] - rd["errors"]
for iv in ph["intervals"]:
    o = iv["ops"].get("read")
    if o:
        assert o["lat_ns"]["hist"]["count"] == o["ops"] - o["errors"], (iv["t"], o["ops"], o["errors"])
# share and fairness: successful ops only
tot = ok0 + ok1
assert abs(a0["share"] - ok0 / tot) < 1e-9 and abs(a1["share"] - ok1 / tot) < 1e-9, (a0["share"], a1["share"])
f = ph["fairness"]
assert f["slowest"] == 1 and abs(f["slowest_iops"] - ok1 / a1["duration_s"]) < 1e-6 * max(1, f["slowest_iops"]), f
# the text's share column is agent 1's share of the successful reads
row = [l for l in out.splitlines() if re.match(r"\s+1\s+\S+\s+read\s", l)][0]
assert row.split()[-2] == "%.1f%%" % (ok1 * 100.0 / tot), (row, ok1 * 100.0 / tot)
# intervals' Jain index over successful ops
for iv in ph["intervals"]:
    col = iv["agents"]["ops"].get("read")
    if not col:
        continue
    x = [o - e for o, e in zip(col["ops"], col.get("errors", [0, 0]))]
    j = 1.0 if sum(v * v for v in x) == 0 else sum(x) ** 2 / (2 * sum(v * v for v in x))
    assert abs(iv["jain"] - j) < 1e-9, (iv["t"], iv["jain"], j, col)
PY
# re-rendered from the result and from the journal: the same report
for src in r.json r.json.journal; do
  timeout 20 "$NFSTORM" report "$T/$src" >"$T/re.$src" 2>&1; rc=$?
  [ $rc -eq 1 ] || fail "report $src: exit $rc, want the run's 1: $(tail -n2 "$T/re.$src")"
  diff <(sed -n '/^phase /,/^verdict:/p' "$T/out") <(sed -n '/^phase /,/^verdict:/p' "$T/re.$src") >"$T/d" \
    || fail "report $src differs from the run's: $(head -5 "$T/d")"
  grep -q "x short read at offset" "$T/re.$src" || fail "report $src: no cause"
done
echo "ok: failed reads name their cause (text, JSON, HTML, journal) and stay out of latency, share and fairness"
