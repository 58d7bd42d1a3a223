#!/usr/bin/env bash
# Two real --local runs with different block-size mixes compared in every
# format: text columns aligned and ratios true to the JSON results, the
# Markdown seeds' table shape (target x r/w x rand/seq; IOPS then BW per
# block size), CSV parsed and consistent, JSON keys and direction-aware
# marks, HTML with one facet (three charts, more when a block size's phases
# are more than 10x apart) per block size and ratio charts, self-contained,
# labels that cannot overlap; bad --labels / --format refused with exit 2.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
run() { timeout 60 "$NFSTORM" run --local 1 --quiet --label "$1" --json "$T/$1.json" --directory="$D" "${@:2}" \
  >"$T/$1.out" 2>&1 || fail "run $1: $(tail -n3 "$T/$1.out")"; }
common="--size=4m --runtime=400ms --time_based --stonewall"
run gp2 --name=r4 --rw=randread --bs=4k $common --name=s32 --rw=read --bs=32m --size=64m --runtime=400ms \
  --time_based --stonewall --name=w4 --rw=randwrite --bs=4k $common
run io1-provisioned-long-label --name=r4 --rw=randread --bs=4k $common --name=s32 --rw=read --bs=32m \
  --size=64m --runtime=400ms --time_based --stonewall --name=s1m --rw=read --bs=1m --size=8m --runtime=400ms \
  --time_based --stonewall
A=$T/gp2.json; B=$T/io1-provisioned-long-label.json
for f in text md csv json html; do
  timeout 20 "$NFSTORM" compare "$A" "$B" --format $f >"$T/c.$f" 2>"$T/c.$f.err" || fail "compare --format $f: $(cat "$T/c.$f.err")"
  [ -s "$T/c.$f" ] || fail "compare --format $f wrote nothing"
done
# --html F still works next to the text on stdout
timeout 20 "$NFSTORM" compare "$A" "$B" --html "$T/h.html" >"$T/c.text2" 2>&1 || fail "compare --html: $(cat "$T/c.text2")"
cmp -s "$T/c.text" "$T/c.text2" || fail "--html changed the text report"
cmp -s "$T/c.html" "$T/h.html" || fail "--html F differs from --format html"
py "$A" "$B" "$T/c.text" "$T/c.md" "$T/c.csv" "$T/c.json" "$T/c.html" <<'PY'
import json, sys, re, csv, html.parser
A, B = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
text, md = open(sys.argv[3]).read(), open(sys.argv[4]).read()
rows = list(csv.reader(open(sys.argv[5])))
J = json.load(open(sys.argv[6])); H = open(sys.argv[7]).read()
la, lb = "gp2", "io1-provisioned-long-label"
iops = lambda r, name: [p for p in r["phases"] if p["name"] == name][0]["ops"]["read"]["iops"]

# --- text: every table's cells start at the header's columns
def starts(line):
    return [i for i in range(2, len(line)) if line[i] != " " and (i == 2 or line[i-2:i] == "  ")]
tables, cur = [], None
for l in text.split("\n"):
    if l.startswith("headline:") or l.startswith("phase "):
        cur = []; tables.append(cur)
    elif cur is not None and l.startswith("  "):
        cur.append(l)
    else:
        cur = None
assert len(tables) == 5, "want headline + 4 phase tables, got %d" % len(tables)
for t in tables:
    ref = starts(t[0])
    assert len(ref) >= 4, t[0]
    for l in t[1:]:
        assert starts(l) == ref, "misaligned:\n%s\n%s" % (t[0], l)
head = tables[0]
assert head[0].split() [:4] == ["phase", "rw", "bs", "metric"], head[0]
assert len(head) == 1 + 4, "one headline line per phase: %r" % head
r4 = [l for l in head if l.startswith("  r4 ")][0]
ratio = float(re.search(r" ([0-9.]+)x (better|worse|same) ", r4).group(1))
want = iops(B, "r4") / iops(A, "r4")
assert abs(ratio - want) < 0.006, (ratio, want)
mark = "better" if want > 1.01 else "worse" if want < 0.99 else "same"
assert (" %.2fx %s " % (ratio, mark)) in r4, r4
assert "no variance known" in r4, r4
assert "w4 (randwrite, 4k): in gp2; missing from io1-provisioned-long-label" in text
assert "s1m (read, 1m): in io1-provisioned-long-label; missing from gp2" in text

# --- md: the seeds' table
# (after the records' differences: the runs' labels and plans differ)
diff_md, seeds_md = md.split("### IOPS and bandwidth by block size", 1)
assert "| field | gp2 | io1-provisioned-long-label |" in diff_md, diff_md
assert "| plan | plan A | plan B |" in diff_md, diff_md
assert "what differs between the runs:" in text and "  plan " in text, text[:800]
mdl = [l for l in seeds_md.split("\n") if l.startswith("|")]
cells = lambda l: [c.strip() for c in l.strip().strip("|").split("|")]
hdr = cells(mdl[0])
assert hdr == ["target", "r/w", "rand/seq", "IOPS 4k", "IOPS 1m", "IOPS 32m", "BW 4k", "BW 1m", "BW 32m"], hdr
assert set(mdl[1]) <= set("|- "), mdl[1]
body = []
for l in mdl[2:]:
    c = cells(l)
    if c[0] == "phase": break
    body.append(c)
# the (r/w, rand/seq) rows some input ran: read rand, read seq, write rand; for both inputs
assert [c[:3] for c in body] == [[la, "read", "rand"], [la, "read", "seq"], [la, "write", "rand"],
                                 [lb, "read", "rand"], [lb, "read", "seq"], [lb, "write", "rand"]], body
assert all(len(c) == 9 for c in body)
assert body[1][4] == "-" and body[4][4] != "-", "1m seq read only in the second input"
assert body[5][3] == "-" and body[2][3] != "-", "4k rand write only in the first input"
assert body[0][3] != "-" and body[0][6] != "-" and body[1][5] != "-" and body[1][8] != "-"

# --- csv
assert rows[0] == ["row","phase","rw","bs","op","metric","input","label","n","value","sd","ci95_lo","ci95_hi",
                   "ratio","p","mark","verdict","ci95_clamped","left_out"], rows[0]
data = [dict(zip(rows[0], r)) for r in rows[1:]]
# 4 phases: 4 metrics + Jain each, 2 inputs per metric
assert len(data) == 4 * 5 * 2, len(data)
c0 = [d for d in data if d["phase"] == "r4" and d["metric"] == "iops" and d["input"] == "0"][0]
c1 = [d for d in data if d["phase"] == "r4" and d["metric"] == "iops" and d["input"] == "1"][0]
assert abs(float(c0["value"]) - iops(A, "r4")) / iops(A, "r4") < 1e-6, (c0, iops(A, "r4"))
assert abs(float(c1["ratio"]) - want) < 1e-6 and c0["ratio"] == "" and c0["verdict"] == "baseline"
assert c1["verdict"] == "no variance known" and c1["n"] == "1" and c1["sd"] == "" and c1["p"] == ""
assert [d["bs"] for d in data if d["phase"] == "s32"][0] == "32m"

# --- json
assert J["nfstorm_compare"] == 1 and J["test"] == "welch" and J["alpha"] == 0.05 and J["baseline"] == 0
assert [i["label"] for i in J["inputs"]] == [la, lb] and [i["repetitions"] for i in J["inputs"]] == [1, 1]
assert [p["name"] for p in J["phases"]] == ["r4", "s32", "w4", "s1m"], [p["name"] for p in J["phases"]]
assert [p["matched"] for p in J["phases"]] == [True, True, False, False]
assert J["phases"][3]["present"] == [False, True] and J["phases"][0]["bs"] == 4096
ops = lambda r, name: [p for p in r["phases"] if p["name"] == name][0]["ops"]["read"]["ops"]
for p in J["phases"][:2]:
    # fewer than 10 ops per thread (a 32m phase of 400 ms may be): no verdict on it
    few = min(ops(A, p["name"]), ops(B, p["name"])) < 10
    for m in p["metrics"]:
        a, b = m["inputs"]
        assert a["verdict"] == "baseline" and a["mark"] is None and a["ratio"] is None
        assert b["verdict"] == ("too few ops to judge" if few else "no variance known"), (p["name"], b["verdict"])
        assert b["p"] is None and b["sd"] is None
        # (both printed to 10 significant digits: compare relatively)
        assert abs(b["ratio"] - b["mean"] / a["mean"]) <= 1e-8 * abs(b["ratio"])
        up = b["mean"] > a["mean"] * 1.01; down = b["mean"] < a["mean"] * 0.99
        hib = m["metric"] in ("iops", "bw_bytes", "jain")
        assert m["higher_is_better"] == hib, m
        want_mark = "same" if not (up or down) else "better" if up == hib else "worse"
        assert b["mark"] == want_mark, (p["name"], m["metric"], a["mean"], b["mean"], b["mark"])
m0 = J["phases"][0]["metrics"][0]
assert m0["op"] == "read" and m0["metric"] == "iops" and abs(m0["inputs"][0]["mean"] - iops(A, "r4")) < 1e-3

# --- html: self-contained, one facet per block size, three charts in each
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.facets = []; s.views = []; s.svg = None; s.labels = []; s.inx = None
    def handle_starttag(s, t, a):
        a = dict(a)
        assert t != "script", "script in the page"
        for k in ("src", "href"):
            assert k not in a or not re.match(r"(https?:)?//", a[k] or ""), "external URL"
        if t == "section" and "data-facet" in a: s.facets.append(a["data-facet"])
        if t == "svg":
            s.views.append(a.get("data-view")); s.svg = []; s.labels.append((a.get("data-view"), s.svg))
        if t == "text" and s.svg is not None and a.get("class") == "xl":
            s.inx = [float(a["x"]), float(a["y"]), ""]
    def handle_endtag(s, t):
        if t == "text" and s.inx is not None:
            s.svg.append(s.inx); s.inx = None
        if t == "svg": s.svg = None
    def handle_data(s, d):
        if s.inx is not None: s.inx[2] += d
p = P(); p.feed(H)
assert p.facets == ["4k", "1m", "32m"], p.facets
for bs in p.facets:
    for m in ("iops", "bw", "p99"):
        assert "compare-%s-%s" % (m, bs) in p.views, (m, bs, p.views)
# the values' charts, one per facet and metric, plus charts of their own for
# phases of one block size more than 10x apart ("-scale2"), and the three
# ratio-to-baseline charts
assert len([v for v in p.views if "-scale" not in v and not v.startswith("compare-ratio-")]) == 9, p.views
assert [v for v in p.views if v.startswith("compare-ratio-")] == ["compare-ratio-iops", "compare-ratio-bw",
                                                                 "compare-ratio-p99"], p.views
# x labels never overlap: on one line, neighbours are at least their half-widths apart (6.6 px a glyph)
for view, labs in p.labels:
    by_line = {}
    for x, y, s in labs: by_line.setdefault(y, []).append((x, s))
    for y, ls in by_line.items():
        ls.sort()
        for (x1, s1), (x2, s2) in zip(ls, ls[1:]):
            assert x2 - x1 >= (len(s1) + len(s2)) / 2 * 6.6, (view, s1, s2, x1, x2)
assert "4k" in H and "w4" in H and "s1m" in H
print("text %d tables aligned; md %d rows; csv %d rows; json %d phases; html facets %s"
      % (len(tables), len(body), len(data), len(J["phases"]), ",".join(p.facets)))
PY
# usage errors: one line, exit 2
timeout 20 "$NFSTORM" compare "$A" "$B" --labels only-one >"$T/e" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "one label for two runs: exit $rc, want 2"
grep -qx "nfstorm: compare: --labels: 1 name for 2 runs" "$T/e" || fail "labels message: $(cat "$T/e")"
timeout 20 "$NFSTORM" compare "$A" "$B" --labels a,b,c >"$T/e" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -qx "nfstorm: compare: --labels: 3 names for 2 runs" "$T/e" || fail "three labels: exit $rc: $(cat "$T/e")"
timeout 20 "$NFSTORM" compare "$A" "$B" --format xml >"$T/e" 2>&1; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "format" "$T/e" || fail "bad --format: exit $rc: $(cat "$T/e")"
timeout 20 "$NFSTORM" compare "$A" "$B" --labels x,y --format md >"$T/e" 2>&1 || fail "two labels refused: $(cat "$T/e")"
grep -q "^| x " "$T/e" && grep -q "^| y " "$T/e" || fail "--labels not used in md: $(head -20 "$T/e")"
echo "compare formats ok"
