#!/usr/bin/env bash
# compare with more than 16 block sizes (R1 review of issue 13): the
# Markdown seeds' table and the HTML facets had a fixed cap of 16 sizes, so
# a block-size sweep of 20 phases lost its 4 largest sizes' columns and
# charts without a word.  Now: 20 IOPS and 20 BW columns, the 80k cells
# equal to the JSON's figures, and 20 facets in the HTML.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
args=()
for k in $(seq 1 20); do args+=(--name=p$k --rw=read --bs=$((4096 * k)) --size=$((4096 * k * 4)) --stonewall); done
timeout 60 "$NFSTORM" run --local 1 --quiet --target sweep --json "$T/a.json" --directory="$D" "${args[@]}" \
  >"$T/a.out" 2>&1 || fail "run: $(tail -n3 "$T/a.out")"
for f in md html; do
  timeout 20 "$NFSTORM" compare "$T/a.json" "$T/a.json" --labels x,y --format $f >"$T/c.$f" 2>"$T/c.err" \
    || fail "compare $f: $(cat "$T/c.err")"
done
py "$T/a.json" "$T/c.md" "$T/c.html" <<'PY'
import json, sys, re
r = json.load(open(sys.argv[1])); md = open(sys.argv[2]).read(); html = open(sys.argv[3]).read()
sizes = ["%dk" % (4 * k) for k in range(1, 21)]
seeds = md.split("### IOPS and bandwidth by block size", 1)[1].split("###", 1)[0]
lines = [l for l in seeds.split("\n") if l.startswith("|")]
cells = lambda l: [c.strip() for c in l.strip().strip("|").split("|")]
hdr = cells(lines[0])
assert hdr == ["target", "r/w", "rand/seq"] + ["IOPS " + s for s in sizes] + ["BW " + s for s in sizes], hdr
row = cells(lines[2])
assert row[:3] == ["x", "read", "seq"], row
p20 = [p for p in r["phases"] if p["name"] == "p20"][0]["ops"]["read"]
def num(s):
    m = re.match(r"([0-9.]+)([kMG]?)(i?B/s)?$", s); assert m, s
    v = float(m.group(1)); u = m.group(2)
    if m.group(3): return v * {"": 1, "k": 1024, "M": 1024**2, "G": 1024**3}[u]
    return v * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[u]
iops, bw = num(row[3 + 19]), num(row[3 + 20 + 19])
assert abs(iops - p20["iops"]) <= 0.01 * p20["iops"] + 0.01, (iops, p20["iops"])
assert abs(bw - p20["bw_bytes"]) <= 0.01 * p20["bw_bytes"], (bw, p20["bw_bytes"])
facets = re.findall(r"<h2>block size ([0-9a-z]+)", html)
assert facets == sizes, facets
PY
echo "compare many block sizes ok"
