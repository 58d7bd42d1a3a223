#!/usr/bin/env bash
# nfstorm-test: serial (significance of a measured difference: a busy neighbour widens the spread)
# nfstorm-test: soak (30 s end to end on ganesha; make test covers its parts: Welch t1330, significance and direction t1332, compare HTML in chromium t1331, rsize/wsize in the record t1301)
# t1380: issue 13's "Done when".  One plan (4k randread, 1m seq read, libnfs)
# runs --repeat 3 against the same ganesha export configured two ways: the
# default, then MaxRead/MaxWrite/PrefRead/PrefWrite = 16384 (same URL, so
# the records differ only in target and the negotiated rsize/wsize).  Then
# `nfstorm compare` in text, md, csv, json and html, and:
# - the 1m read phase's IOPS and BW are significant and worse, ratio < 0.5
#   (16k requests cap sequential 1m reads; measured 0.2x-0.3x on this
#   machine; < 0.8 with ASan, whose agents are slower);
# - every cell's verdict and p equal an independent Welch's t-test
#   (py/welch.py) on the per-repetition values in the set files, and the CSV
#   says the same as the JSON;  the 4k phase is not asserted "within noise"
#   (5% false positives by design), only consistent; when the 1m read comes
#   out within noise and Welch agrees (the load swung), both sets are
#   measured again, up to 3 times in all;
# - what differs lists rsize and wsize (text, md, json), and not the plan;
# - the Markdown seeds' table has its header and one row per target x r/w x
#   rand/seq; the text's columns start at the same offset on every row;
# - the HTML has 4k and 1m facets with error bars and, in headless
#   Chromium at 1400 px, is as wide as the window, not blank, both inputs'
#   bars drawn.  SHOT=PATH keeps the screenshot to look at; OUT=DIR keeps
#   the sets and every compare output.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
CHROME=$(command -v chromium || command -v chromium-browser) || skip "chromium not installed (scripts/install-deps.sh)"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
PY=$ROOT/tests/integration/py
mkdir -p "$T/export"
cat >"$T/plan.fio" <<'EOF'
; the same plan for both configurations: only the export differs
[global]
ioengine=nfs
nfs_url=${NFS_URL}
size=16m
time_based
runtime=${RT_4K}

[randread-4k]
rw=randread
bs=4k
iodepth=2

[read-1m]
stonewall
rw=read
bs=1m
iodepth=4
runtime=${RT_1M}
EOF
unset NFS_EXPORT_EXTRA
nfs_server_start "$T/export" || fail "NFS server did not start"
export NFS_URL=$NFS_URL3
run_set() {
  timeout 90 "$NFSTORM" run "$T/plan.fio" --local 2 --quiet --repeat 3 --target "$1" --json "$T/$1.json" \
    >"$T/$1.out" 2>&1 || fail "run $1: $(tail -n 3 "$T/$1.out")"
}
# lay the files out and warm the server's cache once, so that neither
# set's first repetition pays for it (it did: the default's read-1m rose
# from its first repetition to its third, widening its sd)
RT_4K=200ms RT_1M=500ms timeout 60 "$NFSTORM" run "$T/plan.fio" --local 2 --quiet >"$T/warm.out" 2>&1 \
  || fail "warm-up: $(tail -n 3 "$T/warm.out")"
# The default's 1m reads are bound by the agents' CPU, the 16k's by RPCs:
# with ASan (SANITIZE=1) the agents are slower and the ratio nears 0.5
# (0.52 seen), in a release build it is 0.2 to 0.3.
MAX_RATIO=0.5
nm "$AGENT" 2>/dev/null | grep -q __asan_init && MAX_RATIO=0.8
export MAX_RATIO
# 3 s of 1m reads: at 1 s the default's sd under load (CV up to 25%) came
# near what n=3 can tell from a 0.2x ratio
export RT_4K=500ms RT_1M=3
# significance, consistency with an independent Welch, CSV = JSON; exit 3:
# everything holds but the 1m read is rightly (Welch agrees) within noise
cat >"$T/sig.py" <<'PY'
import csv, json, math, os, sys, welch
A, B, J = (json.load(open(p)) for p in sys.argv[1:4])
rows = list(csv.DictReader(open(sys.argv[4])))
assert [i["label"] for i in J["inputs"]] == ["export-default", "export-16k"], J["inputs"]
assert [i["repetitions"] for i in J["inputs"]] == [3, 3], J["inputs"]
diff = {d["key"]: d["values"] for d in J["differences"]}
assert diff.get("rsize") == ["1048576", "16384"], diff
assert diff.get("wsize") == ["1048576", "16384"], diff
assert "plan" not in diff and "url" not in diff, diff   # the same plan, the same URL
assert [(p["name"], p["bs"], p["matched"]) for p in J["phases"]] == [("randread-4k", 4096, True), ("read-1m", 1048576, True)]

def rep_values(S, i, op, metric):
    out = []
    for r in S["repetitions"]:
        ph = r["phases"][i]
        assert ph["name"] == J["phases"][i]["name"] and ph["finished"], ph["name"]
        if metric == "jain":
            out.append(ph["fairness"]["jain"]); continue
        o = ph["ops"][op]
        out.append({"iops": o["iops"], "bw_bytes": o["bw_bytes"],
                    "lat_p50_ns": o["lat_ns"]["p50"], "lat_p99_ns": o["lat_ns"]["p99"]}[metric])
    return out

checked, sig = 0, []
for i, ph in enumerate(J["phases"]):
    metrics = {(m["op"], m["metric"]) for m in ph["metrics"]}
    assert metrics == {("read", k) for k in ("iops", "bw_bytes", "lat_p50_ns", "lat_p99_ns")} | {(None, "jain")}, metrics
    for m in ph["metrics"]:
        a = rep_values(A, i, m["op"], m["metric"]); b = rep_values(B, i, m["op"], m["metric"])
        base, other = m["inputs"]
        assert base["verdict"] == "baseline" and base["n"] == 3 and other["n"] == 3, m
        ma, _ = welch.mean_sd(a); mb, sb = welch.mean_sd(b)
        assert math.isclose(base["mean"], ma, rel_tol=1e-6) and math.isclose(other["mean"], mb, rel_tol=1e-6), (m, a, b)
        assert math.isclose(other["sd"], sb, rel_tol=1e-6, abs_tol=1e-9), (m, b)
        assert math.isclose(other["ratio"], mb / ma, rel_tol=1e-6), m
        t, df, p = welch.welch(b, a)
        where = "%s %s %s: p %.6g (nfstorm %r)" % (ph["name"], m["op"], m["metric"], p, other["p"])
        assert abs(other["p"] - p) < 1e-4, where
        if abs(p - 0.05) > 1e-4:                   # on the edge, rounding may fall either way
            assert other["verdict"] == ("significant" if p < 0.05 else "within noise"), where
        up = m["metric"] in ("iops", "bw_bytes", "jain")
        assert m["higher_is_better"] == up, m
        want = "same" if abs(mb / ma - 1) < 0.01 else ("better" if (mb > ma) == up else "worse")
        assert other["mark"] == want, (where, other["mark"], want)
        c = [r for r in rows if int(r["row"]) == i and r["metric"] == m["metric"] and r["input"] == "1"]
        assert len(c) == 1 and c[0]["verdict"] == other["verdict"] and c[0]["mark"] == other["mark"], (where, c)
        assert math.isclose(float(c[0]["p"]), other["p"], rel_tol=1e-6, abs_tol=1e-9), (where, c)
        checked += 1
        if other["verdict"] == "significant": sig.append("%s %s" % (ph["name"], m["metric"]))
assert checked == 10, checked
assert len(rows) == 20, len(rows)                 # 2 phases x 5 metrics x 2 inputs
seq = {m["metric"]: m["inputs"][1] for m in J["phases"][1]["metrics"]}
for k in ("iops", "bw_bytes"):
    assert seq[k]["mark"] == "worse" and seq[k]["ratio"] < float(os.environ["MAX_RATIO"]), (k, seq[k])
print("welch agrees on %d cells; significant: %s; 1m read %.2fx (p=%.3g)" %
      (checked, ", ".join(sig), seq["iops"]["ratio"], seq["iops"]["p"]))
if not all(seq[k]["verdict"] == "significant" for k in ("iops", "bw_bytes")):
    sys.exit(3)      # rightly not significant (Welch agrees): the load swung
PY
# On a 2-core machine shared with other builds the default's 1m reads are
# CPU-bound and their sd swings with the load (CV 3% to 32% seen over 3 s;
# n=3 tells a 0.2x ratio only below ~30%; at a load of 8 about one attempt
# in ten missed): when the 1m read comes out within noise and the
# independent Welch agrees, both sets are measured again; every check holds
# on every attempt, and a third miss fails.
for attempt in 1 2 3; do
  unset NFS_EXPORT_EXTRA
  [ $attempt = 1 ] || nfs_server_restart || fail "NFS server did not restart with the default sizes"
  run_set export-default
  NFS_EXPORT_EXTRA="MaxRead = 16384; MaxWrite = 16384; PrefRead = 16384; PrefWrite = 16384;"
  nfs_server_restart || fail "NFS server did not restart with 16k sizes"
  grep -q "MaxRead = 16384" "$NFS_SERVER_DIR/ganesha.conf" || fail "the 16k settings are not in the config"
  run_set export-16k
  for f in text md csv json html; do
    timeout 20 "$NFSTORM" compare "$T/export-default.json" "$T/export-16k.json" --format $f >"$T/c.$f" 2>"$T/c.err" \
      || fail "compare --format $f: $(cat "$T/c.err")"
  done
  if [ -n "${OUT:-}" ]; then mkdir -p "$OUT" && cp "$T"/c.* "$T"/export-*.json "$OUT/"; fi
  PYTHONPATH=$PY python3 "$T/sig.py" "$T/export-default.json" "$T/export-16k.json" "$T/c.json" "$T/c.csv"
  rc=$?
  [ $rc = 0 ] && break
  [ $rc = 3 ] || fail "assertion failed (see above)"
  [ $attempt != 3 ] || fail "the 1m read is within noise 3 times (see above)"
  echo "attempt $attempt: the 1m read within noise (as Welch says); measuring again"
done

# the text: what differs, the headline and aligned columns in every table
py "$T/c.text" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = [b.split("\n") for b in text.strip("\n").split("\n\n")]
def starts(line):
    # a cell is a run of words with single blanks; columns are 2+ blanks apart
    return [m.start() for m in re.finditer(r"\S+(?: \S+)*", line)]
tables = 0
for b in blocks:
    title, body = b[0], b[1:]
    if not (title.startswith("what differs") or title.startswith("headline") or title.startswith("phase ")):
        continue
    tables += 1
    assert len(body) >= 3 and all(l.startswith("  ") for l in body), b
    # every row with a first cell has its cells at the same offsets; a row
    # whose first cell is blank (what differs' header) has the others there
    full = [starts(l) for l in body if l[2] != " "]
    assert len(full) >= 2 and len(set(map(tuple, full))) == 1, "misaligned in %r:\n%s" % (title, "\n".join(body))
    cols = full[0]
    assert len(cols) >= 3, (title, cols)
    for l in body:
        if l[2] == " ":
            assert starts(l) == cols[1:], "misaligned row in %r: %r (columns at %s)" % (title, l, cols)
assert tables == 4, tables                       # what differs, headline, 2 phases
wd = text.split("what differs between the runs:\n", 1)[1].split("\n\n", 1)[0]
keys = [l.split()[0] for l in wd.split("\n")[1:]]
assert keys == ["target", "rsize", "wsize"], keys
assert re.search(r"^  rsize +1048576 +16384$", wd, re.M), wd
head = text.split("headline:", 1)[1].split("\n\n", 1)[0]
assert re.search(r"^  read-1m +read +1m +read IOPS +\S+ ±\S+ +\S+ ±\S+ +0\.\d+x worse +significant \(p[=<]0\.\d+\)$", head, re.M), head
print("text: %d tables aligned" % tables)
PY

# the Markdown seeds' table: header, separator, 4 rows (2 targets x read x rand/seq)
py "$T/c.md" <<'PY'
import re, sys
md = open(sys.argv[1]).read()
lines = md.split("\n")
h = [i for i, l in enumerate(lines) if re.match(r"^\| target +\| r/w +\| rand/seq +\|", l)]
assert len(h) == 1, "seeds' table header: %r" % h
t = []
for l in lines[h[0]:]:
    if not l.startswith("|"): break
    t.append(l)
cells = [[c.strip() for c in l.strip("|").split("|")] for l in t]
assert cells[0] == ["target", "r/w", "rand/seq", "IOPS 4k", "IOPS 1m", "BW 4k", "BW 1m"], cells[0]
assert all(re.fullmatch(r"-+", c) for c in cells[1]), cells[1]
body = cells[2:]
assert [r[:3] for r in body] == [["export-default", "read", "rand"], ["export-default", "read", "seq"],
                                 ["export-16k", "read", "rand"], ["export-16k", "read", "seq"]], body
for r in body:
    assert len(r) == 7, r
    filled = [c != "-" for c in r[3:]]
    assert filled == ([True, False, True, False] if r[2] == "rand" else [False, True, False, True]), r
    assert all(c == "-" or "\u00b1" in c for c in r[3:]), "no sd with n=3: %r" % r
# aligned as well: every '|' at the same offsets
assert len({tuple(m.start() for m in re.finditer(r"\|", l)) for l in t}) == 1, "\n".join(t)
wd = md.split("### What differs", 1)[1].split("###", 1)[0]
assert re.search(r"^\| rsize \| 1048576 \| 16384 \|$", wd, re.M), wd
assert re.search(r"^\| read-1m +\| read +\| 1m +\| read IOPS .*\| 0\.\d+x worse +\| significant \(p", md, re.M), "md detail"
print("md: seeds' table %d rows" % len(body))
PY

# the HTML: facets per block size, error bars, and what Chromium draws
py "$T/c.html" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
assert re.findall(r'data-facet="([^"]+)"', html) == ["4k", "1m"], re.findall(r'data-facet="([^"]+)"', html)
for v in ("iops", "bw", "p99"):
    for bs in ("4k", "1m"):
        assert 'data-view="compare-%s-%s"' % (v, bs) in html, (v, bs)
# a +-1 sd bar per input per chart: 2 inputs x 3 charts x 2 facets
assert html.count('class="eb"') >= 12, html.count('class="eb"')
assert re.search(r'<tr><td class="l">rsize</td><td class="l">1048576</td><td class="l">16384</td></tr>', html), "what differs"
# self-contained: no scripts, nothing fetched (xmlns names are not fetched)
assert "<script" not in html and not re.search(r'(src|href)="', html)
PY
mkdir -p "$T/profile"
timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
  --user-data-dir="$T/profile" --window-size=1400,1800 --screenshot="$T/shot.png" "file://$T/c.html" \
  >"$T/chrome.log" 2>&1
[ -s "$T/shot.png" ] || fail "no screenshot: $(tail -n3 "$T/chrome.log")"
[ -n "${SHOT:-}" ] && cp "$T/shot.png" "$SHOT"
PYTHONPATH=$PY py "$T/shot.png" <<'PY'
import sys, png_pixels
w, h, rows = png_pixels.load(sys.argv[1])
assert w == 1400, "screenshot is %d px wide" % w
near = lambda px, c: all(abs(px[k] - c[k]) < 24 for k in range(3))
blue = red = white = total = 0
for line in rows[::2]:
    for px in line[::2]:
        total += 1
        blue += near(px, (0x1f, 0x77, 0xb4)); red += near(px, (0xd6, 0x27, 0x28)); white += min(px) > 245
assert white < total * 0.97, "screenshot is blank"
assert blue > 400 and red > 400, "bars: %d blue, %d red samples" % (blue, red)
# nothing drawn in the rightmost 8 px: the page fits the window
edge = sum(1 for line in rows for px in line[-8:] if min(px) < 200)
assert edge == 0, "%d dark pixels at the right edge" % edge
print("screenshot %dx%d: %d blue, %d red samples" % (w, h, blue, red))
PY
echo "t1380: PASS"
