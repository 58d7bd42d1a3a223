#!/usr/bin/env bash
# nfstorm-test: serial (40 agent processes)
# t1060: the reports at fleet scale, on 40 real listening agents (null
# engine, rate-limited): 15 labelled "slow" (20 IOPS), 20 "fast" (50 IOPS),
# 5 "spare" running no job (idle), one fast agent killed mid-run (lost).
# The text report's fleet view (default --agent-rows 16) says who ran, and
# its min/p10/median/p90/max of per-agent IOPS and BW are the nearest-rank
# values recomputed from the JSON; the 5 slowest and 5 fastest rows are the
# right agents in order; lost and idle agents are named; the columns line
# up.  The journal and the JSON re-render the same text and HTML.
# --agent-rows all prints 40 rows; a 10-agent run switches at --agent-rows 8.
# The HTML has the sortable table in a <details> (ranks checked), the
# histogram (counts sum to the agents that ran, marks on the right agents)
# Chromium at 1400 px (non-blank; checking another sort key changes it).
source "$(dirname "$0")/lib.sh"
N=40
D=$T/d; mkdir -p "$D"
pids=()
for i in $(seq 0 $((N - 1))); do
  "$AGENT" --listen 127.0.0.1:0 --insecure --allow "$D" >"$T/ag$i.out" 2>"$T/ag$i.err" &
  pids+=($!); PIDS+=($!)
done
: >"$T/hosts"
for i in $(seq 0 $((N - 1))); do
  for _ in $(seq 100); do grep -q '^listening on ' "$T/ag$i.out" 2>/dev/null && break; sleep 0.05; done
  a=$(sed -n 's/^listening on //p' "$T/ag$i.out")
  [ -n "$a" ] || fail "agent $i did not start: $(cat "$T/ag$i.err")"
  if [ $i -lt 15 ]; then l=slow; elif [ $i -lt 35 ]; then l=fast; else l=spare; fi
  echo "$a label=$l" >>"$T/hosts"
done
cat >"$T/p.fio" <<EOF2
[global]
ioengine=null
rw=randread
bs=4k
size=1m
runtime=3
time_based
[s]
agents=@slow
rate_iops=20
[f]
agents=@fast
rate_iops=50
EOF2
timeout 60 "$NFSTORM" run "$T/p.fio" --hosts "$T/hosts" --quiet --agent-timeout 3s --json "$T/r.json" \
  --html "$T/r.html" >"$T/run.txt" 2>"$T/run.err" &
cpid=$!
# one interval of the 35 working agents, then agent 20 goes
wait_intervals "$T/r.json.journal" 35 || fail "no interval of the 35 working agents: $(tail -n2 "$T/run.err")"
kill -9 "${pids[20]}"; wait "${pids[20]}" 2>/dev/null
wait $cpid; rc=$?
[ $rc -eq 3 ] || fail "exit status $rc, want 3 (partial): $(tail -n3 "$T/run.err")"
"$NFSTORM" report "$T/r.json" --html "$T/re.html" >"$T/re.txt" 2>/dev/null
[ $? -eq 3 ] || fail "report of the JSON: want exit 3 (partial)"
"$NFSTORM" report "$T/r.json.journal" --html "$T/rj.html" >"$T/rj.txt" 2>/dev/null
diff "$T/run.txt" "$T/re.txt" >/dev/null || fail "report of the JSON differs from the run's text: $(diff "$T/run.txt" "$T/re.txt" | head -5)"
diff "$T/run.txt" "$T/rj.txt" >/dev/null || fail "report of the journal differs: $(diff "$T/run.txt" "$T/rj.txt" | head -5)"
cmp -s "$T/r.html" "$T/re.html" || fail "HTML of the JSON differs from the run's"
cmp -s "$T/r.html" "$T/rj.html" || fail "HTML of the journal differs from the run's"
"$NFSTORM" report "$T/r.json" --agent-rows all >"$T/all.txt" 2>&1
"$NFSTORM" report "$T/r.json" --agent-rows 40 >"$T/40.txt" 2>&1
cmp -s "$T/all.txt" "$T/40.txt" || fail "--agent-rows all and 40 differ on 40 agents"
expect_fail "--agent-rows 0" "^nfstorm: --agent-rows: bad value '0'" "$NFSTORM" report "$T/r.json" --agent-rows 0
[ $(wc -l <"$T/out") -eq 1 ] || fail "--agent-rows 0: more than one line"
expect_fail "--agent-rows x" "^nfstorm: --agent-rows: bad value 'x'" "$NFSTORM" run --agent-rows x --name=t
grep -q "exit status" "$T/out" && fail "bad --agent-rows ran anyway"
py "$T/r.json" "$T/run.txt" "$T/all.txt" "$T/r.html" "$ROOT/tests/integration/py" <<'PY'
import json, math, re, sys
sys.path.insert(0, sys.argv[5])
import run_html as h
r = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read(); alltxt = open(sys.argv[3]).read()
html = open(sys.argv[4]).read()
ph = r["phases"][0]; N = len(r["agents"])
def fmt_scaled(v, units, step, tail=""):
    a, u = abs(v), 0
    while u + 1 < len(units) and a >= step: a /= step; u += 1
    while True:
        prec = 2 if a < 9.995 else 1 if a < 99.95 else 0
        num = "%.*f" % (prec, a)
        if u + 1 < len(units) and float(num) >= step: a /= step; u += 1; continue
        break
    if "." in num: num = num.rstrip("0").rstrip(".")
    return num + units[u] + tail
cnt = lambda v: fmt_scaled(v, ["", "k", "M", "G", "T", "P", "E"], 1000)
rate = lambda v: fmt_scaled(v, ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"], 1024, "/s")
lost = [a["id"] for a in r["agents"] if a["lost"]]
assert len(lost) == 1 and lost[0] == 20, "lost agents: %s" % lost
state, ran = {}, []
for a in ph["agents"]:
    i = a["id"]
    if r["agents"][i]["lost"] and (not a["done"] or a["salvaged"]): state[i] = "lost"
    elif not a["participating"]: state[i] = "idle"
    elif not a["done"]: state[i] = "noresult"
    else:
        state[i] = "ran"
        dur = round(a["duration_s"] * 1e9)
        ok = sum(max(o["ops"] - o["errors"], 0) for o in a["ops"].values())
        by = sum(o["bytes"] for o in a["ops"].values())
        ran.append((ok * 1e9 / dur, i, by * 1e9 / dur))
assert sorted(i for i in state if state[i] == "idle") == list(range(35, 40)), state
ran.sort()
n = len(ran); assert n == 34, n
def nr(vals, p):
    vals = sorted(vals)
    return vals[0] if p == 0 else vals[-1] if p == 100 else vals[max(1, math.ceil(p * len(vals) / 100)) - 1]
want_iops = [cnt(nr([x[0] for x in ran], p)) for p in (0, 10, 50, 90, 100)]
want_bw = [rate(nr([x[2] for x in ran], p)) for p in (0, 10, 50, 90, 100)]
assert "agents: 40 (34 ran, 1 lost, 5 idle)\n" in text, text[:2000]
lines = text.split("\n")
k = lines.index("per-agent throughput over the 34 agents that ran (nearest rank):")
head, li, lb = lines[k + 1], lines[k + 2], lines[k + 3]
assert li.split()[1:] == want_iops, (li, want_iops)
assert lb.split()[1:] == want_bw, (lb, want_bw)
# columns: every value ends where its header word ends
ends = [m.end() for m in re.finditer(r"\S+", head)]
assert [m.end() for m in re.finditer(r"\S+", li)][1:] == ends, (head, li)
assert [m.end() for m in re.finditer(r"\S+", lb)][1:] == ends, (head, lb)
assert min(x[0] for x in ran) < 25 and max(x[0] for x in ran) > 40, ran
def rows(title):
    j = lines.index(title); hdr = lines[j + 1]; out = []
    for l in lines[j + 2:j + 7]:
        out.append(int(l.split()[0]))
        # the IOPS figure ends where the header's "IOPS" ends
        e = hdr.index(" IOPS") + 5
        assert l[e - 1] != " " and (len(l) == e or l[e] == " "), (hdr, l)
    return out
slow, fast = rows("slowest 5:"), rows("fastest 5:")
assert slow == [x[1] for x in ran[:5]], (slow, ran[:5])
assert fast == [x[1] for x in ran[::-1][:5]], (fast, ran[-5:])
addr = r["agents"][20]["addr"]
assert "lost (1):\n  20  %s (%s) at %.1f s\n" % (r["agents"][20]["host"], addr, r["agents"][20]["lost_at_s"]) in text, text
idle = "idle (5):\n" + "".join("  %-3d %s (%s)\n" % (i, r["agents"][i]["host"], r["agents"][i]["addr"]) for i in range(35, 40))
assert idle in text, text
assert "warning: agent 20" not in text, "the fleet view names the lost agent once"
# --agent-rows all: today's rows, one per agent
agent_rows = [l for l in alltxt.split("\n") if re.match(r"  \d+ +\S+ +(read|\(no)", l)]
assert len(agent_rows) == 40, len(agent_rows)
assert "per-agent throughput" not in alltxt and "slowest 5:" not in alltxt
# HTML: the time charts draw the fleet, the spread, the histogram, the table
assert html.index('data-view="throughput"') < html.index('data-view="agent-detail"') < html.index('data-view="agent-list"')
assert '<details data-view="agent-detail">' in html and "<script" not in html.lower()
for view in ("throughput", "bandwidth"):
    lg = h.legend(h.views(html, view)[0])
    assert "all agents" in lg and not any(" vm" in x or x.startswith("share") for x in lg), (view, lg)
sp = h.legend(h.views(html, "agent-spread")[0])
assert sp[:3] == ["p10 of agents", "median of agents", "p90 of agents"], sp
assert [x for x in sp if x.startswith("slow ")] == ["slow %d %s" % (x[1], r["agents"][x[1]]["host"]) for x in ran[:3]], sp
assert not h.views(html, "agents"), "the per-agent bars are gone at 40 agents"
dist = h.views(html, "agent-dist")[0]
counts = [int(c) for c in re.findall(r'<rect class="hb"[^>]* data-n="(\d+)"', dist)]
assert sum(counts) == 34, counts
marks = re.findall(r'<g class="mark" data-mark="(\w+)" data-id="(\d+)"', dist)
assert [int(i) for m, i in marks if m == "slowest"] == slow, marks
assert [int(i) for m, i in marks if m == "fastest"] == fast, marks
assert [int(i) for m, i in marks if m == "lost"] == [20], marks
assert len(re.findall(r'class="xl"', dist)) <= 12, "per-agent labels on the axis"
det = html[html.index('<details data-view="agent-detail">'):]
det = det[:det.index("</details>")]
tr = re.findall(r'<tr data-id="(\d+)" style="--a:(\d+);--b:(\d+);--c:(\d+);--d:(\d+)">', det)
assert len(tr) == 40, len(tr)
by = lambda col: [int(t[0]) for t in sorted(tr, key=lambda t: int(t[col]))]
assert sorted(int(t[col]) for t in tr for col in (1, 2, 3, 4)) == sorted(list(range(40)) * 4)
assert by(1) == list(range(40))
# ranks: by IOPS either way and p99 descending, over the agents with data (a
# lost agent's salvaged totals count), ties by index; no data last
data = {}
for a in ph["agents"]:
    if a["participating"] and (a["done"] or a["salvaged"]):
        ok = sum(max(o["ops"] - o["errors"], 0) for o in a["ops"].values())
        data[a["id"]] = (ok * 1e9 / round(a["duration_s"] * 1e9), a["ops"]["read"]["lat_ns"]["p99"])
nodata = [i for i in range(40) if i not in data]
assert nodata == list(range(35, 40)), nodata
assert by(2) == sorted(data, key=lambda i: (data[i][0], i)) + nodata, by(2)
assert by(3) == sorted(data, key=lambda i: (-data[i][0], i)) + nodata, by(3)
assert by(4) == sorted(data, key=lambda i: (-data[i][1], i)) + nodata, by(4)
assert det.count('type="radio"') == 4 and det.count(" checked") == 1
size = len(html.encode())
assert size < 60000 + 2048 * 40, size
print("fleet view ok: IOPS %s; slowest %s fastest %s; HTML %d bytes, %.0f per agent" %
      (" ".join(want_iops), slow, fast, size, size / 40))
PY
# a 10-agent run: rows by default and with --agent-rows 10, the fleet view with 8
list=$(head -n 10 "$T/hosts" | cut -d' ' -f1 | paste -sd,)
timeout 30 "$NFSTORM" run --agents "$list" --quiet --json "$T/ten.json" --agent-rows 8 --name=t --ioengine=null \
  --rw=read --bs=4k --size=1m --rate_iops=20 --runtime=1 --time_based >"$T/ten8.txt" 2>&1 || fail "10-agent run: $(tail -n2 "$T/ten8.txt")"
grep -q "^agents: 10 (10 ran, 0 lost, 0 idle)$" "$T/ten8.txt" || fail "--agent-rows 8 on 10 agents: no fleet view"
"$NFSTORM" report "$T/ten.json" --agent-rows 8 >"$T/ten8r.txt"
cmp -s "$T/ten8.txt" "$T/ten8r.txt" || fail "run and report --agent-rows 8 differ: $(diff "$T/ten8.txt" "$T/ten8r.txt" | head -4)"
"$NFSTORM" report "$T/ten.json" --agent-rows 10 >"$T/ten10.txt"
[ "$(grep -cE '^  [0-9]+ +\S+ +read' "$T/ten10.txt")" -eq 10 ] || fail "10 agents, --agent-rows 10: want 10 rows"
"$NFSTORM" report "$T/ten.json" >"$T/ten.txt"
cmp -s "$T/ten.txt" "$T/ten10.txt" || fail "10 agents: the default is not rows"
grep -q "^agents: 10" "$T/ten.txt" && fail "10 agents, default: fleet view"
# Chromium at 1400 px: the page (details closed) is not blank; checking
# "IOPS, slowest first" changes the open table's pixels
CHROME=$(command -v chromium || command -v chromium-browser) || { echo "fleet view ok (chromium not installed: not rendered)"; exit 0; }
sed 's/<details data-view="agent-detail">/<details open data-view="agent-detail">/' "$T/r.html" >"$T/open.html"
sed -e 's/ checked>/>/' -e 's/\(id="sort-p1-2"\)>/\1 checked>/' "$T/open.html" >"$T/sorted.html"
grep -q 'id="sort-p1-2" checked' "$T/sorted.html" || fail "could not check the second sort key"
shot() {   # shot NAME HEIGHT
  mkdir -p "$T/prof-$1"
  timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$T/prof-$1" --window-size=1400,$2 --screenshot="$T/$1.png" "file://$T/$1.html" \
    >"$T/chrome-$1.log" 2>&1
  [ -s "$T/$1.png" ] || fail "no screenshot of $1: $(tail -n3 "$T/chrome-$1.log")"
}
cp "$T/r.html" "$T/page.html"
shot page 2000; shot open 3400; shot sorted 3400
cmp -s "$T/open.png" "$T/sorted.png" && fail "checking another sort key changed nothing on the page"
py "$T/page.png" "$ROOT/tests/integration/py" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import png_pixels as p
w, h, a = p.load(sys.argv[1])
assert w == 1400, w
white = sum(1 for row in a[::4] for px in row[::4] if min(px) > 245)
total = sum(1 for row in a[::4] for px in row[::4])
assert white < total * 0.98, "screenshot is blank"
coloured = sum(1 for row in a[::4] for px in row[::4] if max(px) - min(px) > 60)
assert coloured > 300, "too few coloured pixels: %d" % coloured
print("chromium: %dx%d, %d coloured samples" % (w, h, coloured))
PY
echo "fleet view ok"
