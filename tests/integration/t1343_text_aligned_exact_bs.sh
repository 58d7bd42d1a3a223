#!/usr/bin/env bash
# t1343: the text report's tables line up and --unit-base 1000 keeps block
# sizes exact.  A plan with a mixed (read+write) phase at 4k, a read at
# 128k, one at 1536 bytes and a metadata phase of six op types: in every
# table (phase rows, agent rows, summary) each cell starts (left-aligned
# columns) or ends (right-aligned figures) at its header's offset on every
# row.  Block sizes print as 4KiB, 128KiB and 1536B in the text report, its
# summary header and the HTML (phase headers, summary table), never as an
# SI rounding (4.1kB, 131kB, 1.54kB); bandwidth is SI (kB/s, MB/s, GB/s);
# the CSV bs column is the exact byte count; the HTML bandwidth charts tick
# in SI rates.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/p.fio" <<EOF2
[global]
directory=$D
size=4m
runtime=1
time_based

[mixed4k]
rw=randrw
bs=4k

[seq128k]
stonewall
rw=read
bs=128k

[odd1536]
stonewall
rw=randread
bs=1536

[md]
stonewall
rw=metadata
md_ops=create,stat,open,readdir,rename,unlink
nrfiles=20
filesize=1k
runtime=0
time_based=0
EOF2
timeout 90 "$NFSTORM" run "$T/p.fio" --local 2 --quiet --unit-base 1000 --json "$T/r.json" --html "$T/r.html" \
  --csv "$T/r.csv" >"$T/o" 2>&1 || fail "run: $(tail -n3 "$T/o")"
"$NFSTORM" report "$T/r.json" --unit-base 1000 >"$T/re" 2>&1 || fail "report: $(tail -n3 "$T/re")"
py "$T/o" "$T/re" "$T/r.html" "$T/r.csv" <<'PY'
import csv, re, sys

def tokens(line):
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", line)]

def check_table(header, rows, what):
    """Each token of a row lines up with a header token: same start (left-
    aligned) or same end (right-aligned), in order."""
    ht = tokens(header)
    for row in rows:
        j = 0
        for s, e, t in tokens(row):
            while j < len(ht) and not (ht[j][0] == s or ht[j][1] == e):
                j += 1
            assert j < len(ht), "%s: %r at column %d lines up with no header cell\n%s\n%s" % (
                what, t, s, header, row)
            j += 1

for path in sys.argv[1:3]:
    lines = open(path).read().splitlines()
    ntables = nrows = 0
    i = 0
    while i < len(lines):
        l = lines[i]
        if l.startswith("phase ") and " op " in l or l.startswith("  id  host "):
            rows = []
            i += 1
            while i < len(lines) and lines[i] and not lines[i].startswith(("phase", "  id  host", "duration:")):
                if "(no " not in lines[i]:
                    rows.append(lines[i])
                i += 1
            check_table(l, rows, path)
            ntables += 1; nrows += len(rows)
            continue
        if l.startswith("summary ("):
            head = lines[i + 1]
            rows = []
            i += 2
            while i < len(lines) and lines[i]:
                rows.append(lines[i]); i += 1
            # after the row label (as wide as the widest, e.g. "randrw 50/50
            # read"), a 19-wide column per size: IOPS ends 12 before the
            # size's end, bandwidth (or "-") at it
            hs = [e for s, e, t in tokens(head)]
            w = hs[0] - 19
            for row in rows:
                assert row[:w].strip() and row[w - 1] == " ", "summary: label overruns:\n%s\n%s" % (head, row)
                for s, e, t in tokens(row[w:]):
                    assert e + w in hs or e + w + 12 in hs, "summary: %r misaligned:\n%s\n%s" % (t, head, row)
            assert [t for s, e, t in tokens(head)] == ["1536B", "4KiB", "128KiB"], head
            ntables += 1; nrows += len(rows)
            continue
        i += 1
    assert ntables == 9, "%s: %d tables" % (path, ntables)   # 4 phases x 2 + summary
    assert nrows >= 4 + 4 + 2 * 6 + 2 * 6, nrows
    text = "\n".join(lines)
    assert not re.search(r"\b\d+(\.\d+)?kB\b(?!/)", text), "an SI block size: %s" % re.findall(r"\S*kB\b(?!/)", text)
    for bs in ("4KiB", "128KiB", "1536B"):
        assert re.search(r"^\S+\s+\S+\s+\S+\s+%s\s" % re.escape(bs), text, re.M), "no %s in the bs column" % bs
    assert not re.search(r"iB/s", text), "an IEC rate with --unit-base 1000"
    assert re.search(r"[0-9.]+[kMG]B/s", text), "no SI rate"
html = open(sys.argv[3]).read()
for bs in ("4KiB", "128KiB", "1536B"):
    assert "bs %s," % bs in html, "HTML phase header without bs %s" % bs
    assert '<th colspan="2">%s</th>' % bs in html, "HTML summary header without %s" % bs
assert not re.search(r"\d(\.\d+)?kB[<,]", html), "an SI block size in the HTML"
assert "(metadata, " in html, "metadata phase header"
bw = re.findall(r'<svg class="chart" data-view="bandwidth".*?</svg>', html, re.S)
assert len(bw) == 4, "%d bandwidth charts for 4 phases" % len(bw)
for svg in bw:
    ticks = re.findall(r'class="yl">([^<]*)<', svg)
    assert ticks and all(re.fullmatch(r"[0-9.]+[kMGT]?B/s", t) for t in ticks), "bandwidth ticks not SI: %s" % ticks
bss = sorted({int(r["bs"]) for r in csv.DictReader(open(sys.argv[4])) if r["rw"] != "metadata"})
assert bss == [1536, 4096, 131072], bss
print("9 tables aligned in the run and the re-rendered report; block sizes exact")
PY
echo "text aligned, block sizes exact"
