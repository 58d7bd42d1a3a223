#!/usr/bin/env bash
# fio's log files from a 2-agent run, read by fio's own tools: the merged
# and per-agent files carry fio 3.33's names and line format, their numbers
# are nfstorm's (ops and bytes of the result, per-agent lines summing to the
# merged ones), and fio2gnuplot, fio_generate_plots (Debian's fio package,
# as CI installs it) and fiologparser_hist.py (fio's source tree at
# $FIO_SRC, else the copy Debian's fio package ships under /usr/share/doc/fio;
# skipped without Debian's python3-pandas) compute the same figures.
source "$(dirname "$0")/lib.sh"
D=$T/d L=$T/logs; mkdir -p "$D" "$L"
cat >"$T/l.fio" <<JOB
[global]
directory=$D
size=1m
bs=4k
[mix]
rw=randrw
time_based
runtime=1
rate_iops=400
write_bw_log=nl
write_lat_log=nl
write_iops_log=nl
write_hist_log=nl
log_avg_msec=250
log_hist_msec=500
JOB
cd "$L"
timeout 60 "$NFSTORM" run "$T/l.fio" --local 2 --quiet --json "$T/r.json" --output-format=json \
  --output="$T/f.json" >"$T/out" 2>&1 || fail "run: $(tail -n3 "$T/out")"
grep -q "warning" "$T/out" && fail "log keys warned: $(grep warning "$T/out")"
# the fleet's files end in .log as fio's; an agent's (nl_bw.1.agent0) do not, so fio's globs find each figure once
for sfx in log agent0 agent1; do
  for t in bw iops lat clat clat_hist; do [ -s "nl_$t.1.$sfx" ] || fail "nl_$t.1.$sfx missing or empty"; done
  [ -e "nl_slat.1.$sfx" ] && [ ! -s "nl_slat.1.$sfx" ] || fail "nl_slat.1.$sfx: want an empty file (no slat), as fio's psync"
done
[ "$(ls *_bw.*.log | wc -l)" -eq 1 ] || fail "fio's glob *_bw.*.log matches $(ls *_bw.*.log | tr '\n' ' ') (want the fleet's file alone)"
[ "$(ls | wc -l)" -eq 18 ] || fail "want 18 log files, have: $(ls | tr '\n' ' ')"
py "$L" "$T/r.json" <<'PY'
import json, os, sys
L = sys.argv[1]; p = json.load(open(sys.argv[2]))["phases"][0]
def rows(name):
    out = []
    for line in open(os.path.join(L, name)):
        f = line.rstrip("\n").split(", ")
        assert len(f) == 5 and all(x.isdigit() for x in f), (name, line)
        t, v, d, bs, prio = map(int, f)
        assert d in (0, 1) and bs == 0 and prio == 0, (name, line)
        out.append((t, v, d))
    return out
ops = {0: p["ops"]["read"]["ops"], 1: p["ops"]["write"]["ops"]}
byt = {0: p["ops"]["read"]["bytes"], 1: p["ops"]["write"]["bytes"]}
for sfx in ("log", "agent0", "agent1"):
    io, bw = rows("nl_iops.1." + sfx), rows("nl_bw.1." + sfx)
    assert [t for t, _, _ in io] == [t for t, _, _ in bw], "bw and iops lines at other times"
    full = [t for t, _, _ in io if t % 250 == 0]
    assert full[:4] == [250, 250, 500, 500], full   # both directions per 250 ms interval
    assert all(v == bv * 1024 // 4096 or abs(v - bv // 4) <= 1 for (_, v, _), (_, bv, _) in zip(io, bw))
# merged: sum over lines of rate x span is the result's count (each line rounds down)
io = rows("nl_iops.1.log")
for d in (0, 1):
    prev, tot, n = 0, 0.0, 0
    for t, v, dd in io:
        if dd != d:
            continue
        tot += v * (t - prev) / 1000.0; prev = t; n += 1
    assert ops[d] - n - 1 <= tot <= ops[d], (d, tot, ops[d], n)
# per-agent lines sum to the merged line of each full interval (+-1 per agent: rounding)
a0, a1 = rows("nl_iops.1.agent0"), rows("nl_iops.1.agent1")
m = {(t, d): v for t, v, d in io}
for (t, v, d), (t1, v1, d1) in zip(a0, a1):
    if t == t1 and t % 250 == 0 and t <= 1000 and (t, d) in m:
        assert abs(v + v1 - m[(t, d)]) <= 2, (t, d, v, v1, m[(t, d)])
# latency lines: each interval's mean, between the phase's min and max; rate-limited, so
# lat runs from when each op was due and clat (the service time) is never above it
lat = {(t, d): v for t, v, d in rows("nl_lat.1.log")}
clat = {(t, d): v for t, v, d in rows("nl_clat.1.log")}
assert lat.keys() == clat.keys() and len(lat) >= 8, (lat, clat)
for (t, d), v in lat.items():
    q = p["ops"]["read" if d == 0 else "write"]
    assert q["lat_ns"]["min"] <= v <= q["lat_ns"]["max"], (t, d, v, q["lat_ns"])
    assert q["svc_ns"]["min"] <= clat[(t, d)] <= q["svc_ns"]["max"] and clat[(t, d)] <= v, (t, d, clat[(t, d)], v)
# hist lines: fio's 1856 bins; all windows together hold every op exactly
cnt = {0: 0, 1: 0}
for line in open(os.path.join(L, "nl_clat_hist.1.log")):
    f = [int(x) for x in line.split(", ")]
    assert len(f) == 3 + 1856 and f[2] == 4096 and (f[0] % 500 == 0 or f[0] > 1000), f[:3]
    cnt[f[1]] += sum(f[3:])
assert cnt == ops, (cnt, ops)
PY
# fio's JSON of the same rate-limited run: clat_ns is the service time, lat_ns from when due
py "$T/f.json" "$T/r.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]; p = json.load(open(sys.argv[2]))["phases"][0]["ops"]
for d in ("read", "write"):
    c, l = j[d]["clat_ns"], j[d]["lat_ns"]
    assert (c["min"], c["max"], c["N"]) == (p[d]["svc_ns"]["min"], p[d]["svc_ns"]["max"], p[d]["ops"]), (c, p[d]["svc_ns"])
    assert (l["min"], l["max"]) == (p[d]["lat_ns"]["min"], p[d]["lat_ns"]["max"]) and c["mean"] <= l["mean"]
    assert c["percentile"]["99.000000"] == p[d]["svc_ns"]["p99"]
PY
# fio2gnuplot (Debian's fio package): its min/max/avg of the merged iops log
mkdir -p "$T/g"
timeout 60 fio2gnuplot -p 'nl_iops.1.log' -d "$T/g" -k >"$T/g.out" 2>&1 || fail "fio2gnuplot: $(tail -n3 "$T/g.out")"
py "$T/g/nl_iops.1.global" "$L/nl_iops.1.log" <<'PY'
import sys
g = dict(l.strip().split("=") for l in open(sys.argv[1]) if "=" in l)
v = [int(l.split(", ")[1]) for l in open(sys.argv[2])]
assert int(g["values_count"]) == len(v), g
assert float(g["min"]) == min(v) and float(g["max"]) == max(v), (g, min(v), max(v))
assert abs(float(g["avg"]) - sum(v) / len(v)) < 0.006, (g["avg"], sum(v) / len(v))
PY
# fio_generate_plots (needs gnuplot): one line per file its glob finds: the fleet's, never an agent's again
if command -v gnuplot >/dev/null; then
  timeout 60 fio_generate_plots nfst >"$T/gp.out" 2>&1 || fail "fio_generate_plots: $(tail -n3 "$T/gp.out")"
  for t in bw iops lat clat; do [ -s "nfst-$t.svg" ] || fail "fio_generate_plots made no nfst-$t.svg"; done
  [ -e nfst-slat.svg ] || fail "fio_generate_plots made no nfst-slat.svg"   # empty: no slat, as with fio's psync logs
  for t in bw iops lat clat; do
    grep -q "<title>Queue depth nl.1</title>" "nfst-$t.svg" || fail "nfst-$t.svg has no line for nl.1"
    [ "$(grep -c "<title>Queue depth" "nfst-$t.svg")" -eq 1 ] || fail "nfst-$t.svg draws more than the fleet's line"
  done
else
  echo "note: gnuplot missing, fio_generate_plots not run" >&2
fi
# fiologparser_hist.py (fio's source tree; pandas from Debian's python3)
FIO_SRC=${FIO_SRC:-/work/ref/fio-src}
HP=$FIO_SRC/tools/hist/fiologparser_hist.py
# Debian's fio package ships it compressed beside its docs
[ -f "$HP" ] || { [ -f /usr/share/doc/fio/fiologparser_hist.py.gz ] &&
  zcat /usr/share/doc/fio/fiologparser_hist.py.gz >"$T/fiologparser_hist.py" && HP=$T/fiologparser_hist.py; }
if [ -f "$HP" ] && /usr/bin/python3 -c 'import pandas, numpy' 2>/dev/null; then
  for dir in r w; do
    timeout 60 /usr/bin/python3 "$HP" --noweight -i 500 --directions=$dir nl_clat_hist.1.log >"$T/h.$dir" 2>"$T/h.err" ||
      fail "fiologparser_hist.py: $(tail -n3 "$T/h.err")"
  done
  py "$T/h.r" "$T/h.w" "$T/r.json" <<'PY'
import csv, json, sys
p = json.load(open(sys.argv[3]))["phases"][0]["ops"]
for f, d in ((sys.argv[1], "read"), (sys.argv[2], "write")):
    rows = list(csv.DictReader(open(f), skipinitialspace=True))
    n = sum(int(float(r["samples"])) for r in rows)
    assert n == p[d]["ops"], (d, n, p[d]["ops"])
    # its min is the upper edge of the bin holding nfstorm's minimum service time (clat_hist
    # is fio's clat: issue to completion), a bin being 1/64 of its low end wide
    lo, m = min(float(r["min"]) for r in rows), p[d]["svc_ns"]["min"]
    assert m < lo <= m * (1 + 1 / 64.0) + 1, (lo, m)
PY
else
  echo "note: $HP or Debian's python3-pandas missing, fiologparser_hist.py not run" >&2
fi
echo "fio logs: fio's names and format; fio2gnuplot, fio_generate_plots, fiologparser_hist.py agree with nfstorm"
