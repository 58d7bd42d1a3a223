#!/usr/bin/env bash
# t1342: a metadata-only run's HTML has no summary (matrix) table and no
# table without rows, and its phase, shorter than one interval, is drawn
# readably: each time chart puts the interval at the middle of the time
# axis (which spans the phase's duration) as a dot with its value written
# next to it, the throughput label being the phase's IOPS; the four
# latency labels do not overlap.  The text report has no summary table.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/r.json" --html "$T/r.html" --name=md --directory="$D" \
  --rw=metadata --md_ops=create,stat,unlink --nrfiles=100 --filesize=1k >"$T/o" 2>&1 || fail "run: $(tail -n3 "$T/o")"
grep -q "^summary" "$T/o" && fail "the text report has a summary table: $(cat "$T/o")"
py "$T/r.json" "$T/r.html" "$ROOT/tests/integration/py" <<'PY'
import json, re, sys
sys.path.insert(0, sys.argv[3])
import run_html as h
r = json.load(open(sys.argv[1])); ph = r["phases"][0]
html = open(sys.argv[2]).read()
assert len(ph["intervals"]) == 1, "the phase took %d intervals, the test needs 1" % len(ph["intervals"])
assert 'data-view="matrix"' not in html and "<h2>Summary" not in html, "a metadata run has a summary table"
for t in re.findall(r"<table.*?</table>", html, re.S):
    assert "<td" in t, "a table without rows: %s" % t[:200]

def fmt_count(v):   # units_fmt_count: ~3 significant digits, k/M, zeros stripped
    u = 0
    while u < 3 and v >= 1000:
        v /= 1000; u += 1
    while True:
        prec = 2 if v < 9.995 else 1 if v < 99.95 else 0
        s = "%.*f" % (prec, v)
        if float(s) >= 1000 and u < 3:
            v /= 1000; u += 1; continue
        break
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s + ["", "k", "M", "G"][u]

ok = sum(o["ops"] - o["errors"] for o in ph["ops"].values())
assert ok == 2 * 100 * 3, ok
iops = ok / (ph["duration_ns"] / 1e9)
mid = 72 + (600 - 72 - 130) / 2          # svg.c: ML + PW / 2
for view in ("throughput", "bandwidth", "latency", "fairness"):
    svg = h.views(html, view)
    assert len(svg) == 1, (view, len(svg))
    d = h.dots(svg[0])
    assert d and all(abs(x - mid) < 0.06 for x, _ in d), "%s: dots %s not at the middle %.1f" % (view, d, mid)
    assert h.value_labels(svg[0]), "%s: no value label" % view
    assert not h.polylines(svg[0]), "%s: one interval drawn as a line" % view
tp = h.value_labels(h.views(html, "throughput")[0])
assert tp == ["all agents " + fmt_count(iops)], (tp, iops)
lat = h.views(html, "latency")[0]
labels = re.findall(r'<text class="pv" x="[^"]*" y="([^"]*)"[^>]*>(p[0-9.]+) ', lat)
assert [n for _, n in labels] == ["p50", "p90", "p99", "p99.9"], labels
ys = sorted(float(y) for y, _ in labels)
assert all(b - a >= 13 for a, b in zip(ys, ys[1:])), "latency labels overlap: %s" % labels
print("one interval: throughput %s, latency labels at %s" % (tp[0], ys))
PY
echo "metadata run: no empty table, one interval drawn"
