#!/usr/bin/env bash
# The summary table drops no phase: two phases of one kind and block size
# get a row each (named by phase), a mixed phase's directions are labelled
# as its mix, a phase whose jobs differ is listed under the table with why;
# text, HTML and the re-render of the JSON agree.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
timeout 60 "$NFSTORM" run --local 1 --ioengine=psync --bs=4k --size=1m --runtime=200ms --time_based --quiet \
  --json "$T/r.json" --html "$T/r.html" \
  --name=a --rw=randwrite --filename="$D/f1" --name=b --stonewall --rw=randrw --rwmixread=70 --filename="$D/f2" \
  --name=c --stonewall --rw=randwrite --filename="$D/f3" \
  --name=s1 --stonewall --rw=read --bs=1m --filename="$D/f1" --name=s2 --stonewall --rw=read --bs=1m --filename="$D/f3" \
  --name=x --stonewall --rw=randread --bs=4k --filename="$D/f1" --name=y --rw=write --bs=64k --filename="$D/f4" \
  >"$T/o" 2>&1 || fail "run: $(tail -n3 "$T/o")"
timeout 20 "$NFSTORM" report "$T/r.json" >"$T/o2" 2>&1 || fail "report: $(tail -n3 "$T/o2")"
sed -n '/^summary (IOPS/,/^$/p' "$T/o" >"$T/m"
sed -n '/^summary (IOPS/,/^$/p' "$T/o2" >"$T/m2"
diff "$T/m" "$T/m2" >/dev/null || fail "re-render of the JSON differs: $(diff "$T/m" "$T/m2")"
# every phase's figure, by its own IOPS as the JSON has it
py "$T/r.json" "$T/m" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1])); m = open(sys.argv[2]).read().splitlines()
def k(v):
    for s, f in (("k", 1e3), ("M", 1e6)):
        if v.endswith(s): return float(v[:-1]) * f
    return float(v)
ph = {p["name"]: p for p in r["phases"]}
def row(label):
    rows = [l for l in m if l.startswith(label + " ")]
    assert len(rows) == 1, (label, m)
    return [c for c in rows[0][len(label):].split()]
def iops(p, op): return ph[p]["ops"][op]["iops"]
cols = m[1].split()
assert cols == ["4KiB", "1MiB"], cols
for label, p, op, col in (("rand write (a)", "a", "write", 0), ("rand write (c)", "c", "write", 0),
                          ("randrw 70/30 read", "b", "read", 0), ("randrw 70/30 write", "b", "write", 0),
                          ("seq read (s1)", "s1", "read", 1), ("seq read (s2)", "s2", "read", 1)):
    c = row(label)          # a cell is "IOPS BW", an empty one "-"
    assert len(c) == 3 and c[2 if col == 0 else 0] == "-", (label, c)
    v = c[col]
    assert abs(k(v.rstrip("*")) - iops(p, op)) <= 0.01 * iops(p, op), (label, c, iops(p, op))
assert not any(l.startswith(("rand read", "seq write", "rand write ", "seq read ")) and "(" not in l for l in m[2:]), m
left = [l for l in m if l.startswith("not in the table: ")]
assert len(left) == 2, m
assert left[0].startswith("not in the table: phase x's reads (%d ops; its first job randread 4KiB): its jobs"
                          % ph["x"]["ops"]["read"]["ops"]), left
assert left[1].startswith("not in the table: phase x's writes (%d ops;" % ph["x"]["ops"]["write"]["ops"]), left
assert ph["b"]["rwmixread"] == 70 and ph["x"]["jobs_differ"] is True and "jobs_differ" not in ph["a"]
PY
for l in "rand write (a)" "rand write (c)" "randrw 70/30 read" "randrw 70/30 write" "seq read (s1)" "seq read (s2)"; do
  grep -qF "<tr><th class=\"l\">$l</th>" "$T/r.html" || fail "HTML has no row '$l'"
done
[ "$(grep -c '<p class="warn">not in the table: phase x' "$T/r.html")" -eq 2 ] || fail "HTML does not list x"

# the common case keeps the seeds' four rows
timeout 60 "$NFSTORM" run --local 1 --ioengine=psync --size=1m --runtime=200ms --time_based --quiet \
  --name=r --rw=randread --bs=4k --filename="$D/f1" --name=w --stonewall --rw=write --bs=64k --filename="$D/f2" \
  >"$T/o3" 2>&1 || fail "run 2: $(tail -n3 "$T/o3")"
sed -n '/^summary (IOPS/,/^$/p' "$T/o3" >"$T/m3"
grep -Eq '^rand read  +[0-9.]+[kMG]? ' "$T/m3" && grep -Eq '^seq write  +- +[0-9.]+[kMG]? ' "$T/m3" \
  && [ "$(grep -c . "$T/m3")" -eq 4 ] || fail "common case not the seeds' table: $(cat "$T/m3")"
echo "summary table: 6 phases in 6 rows, a mixed phase by its mix, the differing phase listed; seeds' form kept"
