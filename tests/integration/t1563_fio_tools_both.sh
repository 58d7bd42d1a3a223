#!/usr/bin/env bash
# fio's own tools read nfstorm's outputs as they read fio's (issue 22): one
# rate-limited job run by fio 3.33 and by nfstorm, then each tool Debian's fio
# package ships (fio2gnuplot, fio_generate_plots, fio_jsonplus_clat2csv, and
# the two Python ones under /usr/share/doc/fio: fiologparser_hist.py,
# fio-histo-log-pctiles.py) on both; their outputs have the same shape
# (files made, headers, columns; rows within one interval) and the sample
# counts each tool finds in nfstorm's files are nfstorm's op counts.
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "fio is not installed"
D=$T/d; mkdir -p "$D" "$T/fio" "$T/ns"
DOC=/usr/share/doc/fio
for t in fiologparser_hist.py fio-histo-log-pctiles.py; do
  [ -f "$DOC/$t.gz" ] || skip "$DOC/$t.gz is missing (Debian's fio package ships it)"
  zcat "$DOC/$t.gz" >"$T/$t"
done
/usr/bin/python3 -c 'import pandas, numpy' 2>/dev/null || skip "Debian's python3-pandas is not installed"
cat >"$T/j.fio" <<JOB
[global]
directory=$D
size=1m
bs=4k
ioengine=psync
[mix]
rw=randrw
time_based
runtime=2
rate_iops=400
write_iops_log=x
write_lat_log=x
write_bw_log=x
write_hist_log=x
log_avg_msec=250
log_hist_msec=500
JOB
( cd "$T/fio" && timeout 60 fio ../j.fio --output-format=json+ --output=out.json >../fio.out 2>&1 ) ||
  fail "fio: $(tail -n3 "$T/fio.out")"
rm -f "$D"/*
( cd "$T/ns" && timeout 60 "$NFSTORM" run ../j.fio --local 1 --quiet --json ../r.json --output-format=json+ \
  --output=out.json >../ns.out 2>&1 ) || fail "nfstorm: $(tail -n3 "$T/ns.out")"
# the same fio files (nfstorm adds only its agents' files, which fio's globs do not match)
[ "$(cd "$T/fio" && ls *.log)" = "$(cd "$T/ns" && ls *.log)" ] ||
  fail "log files differ: fio $(ls "$T/fio" | tr '\n' ' '), nfstorm $(ls "$T/ns" | tr '\n' ' ')"

for w in fio ns; do
  (
    cd "$T/$w" || exit 1
    mkdir -p g
    timeout 60 fio2gnuplot -p 'x_iops.1.log' -d g -k >g.out 2>&1 || { echo "fio2gnuplot: $(tail -n2 g.out)"; exit 1; }
    if command -v gnuplot >/dev/null; then
      timeout 60 fio_generate_plots plot >gp.out 2>&1 || { echo "fio_generate_plots: $(tail -n2 gp.out)"; exit 1; }
    fi
    timeout 60 fio_jsonplus_clat2csv out.json clat.csv >c.out 2>&1 || { echo "clat2csv: $(tail -n2 c.out)"; exit 1; }
    for dir in r w; do
      timeout 60 /usr/bin/python3 ../fiologparser_hist.py --noweight -i 500 --directions=$dir x_clat_hist.1.log \
        >hist.$dir 2>h.err || { echo "fiologparser_hist.py: $(tail -n2 h.err)"; exit 1; }
    done
    timeout 60 /usr/bin/python3 ../fio-histo-log-pctiles.py --log-hist-msec 500 --time-quantum 1 x_clat_hist.1.log \
      >pct.out 2>p.err || { echo "fio-histo-log-pctiles.py: $(tail -n2 p.err)"; exit 1; }
  ) >"$T/$w.tools" 2>&1 || fail "$w: $(cat "$T/$w.tools")"
done
py "$T/fio" "$T/ns" "$T/r.json" <<'PY'
import csv, glob, json, os, sys
F, N = sys.argv[1], sys.argv[2]
ops = json.load(open(sys.argv[3]))["phases"][0]["ops"]
def names(d, pat):
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, pat)))
# fio2gnuplot: the same files and the same keys in its .global summary
assert names(F, "g/*") == names(N, "g/*"), (names(F, "g/*"), names(N, "g/*"))
keys = lambda d: sorted(l.split("=")[0] for l in open(os.path.join(d, "g/x_iops.1.global")) if "=" in l)
assert keys(F) == keys(N), (keys(F), keys(N))
# fio_generate_plots: the same plots, one line (one file) in each
assert names(F, "plot-*.svg") == names(N, "plot-*.svg"), (names(F, "plot-*.svg"), names(N, "plot-*.svg"))
for s in names(N, "plot-*.svg"):
    cf = open(os.path.join(F, s)).read().count("<title>Queue depth")
    cn = open(os.path.join(N, s)).read().count("<title>Queue depth")
    assert cf == cn, (s, cf, cn)
# fio_jsonplus_clat2csv: its csv files, same header; nfstorm's rows sum to its op counts
cf, cn = names(F, "clat*.csv"), names(N, "clat*.csv")
assert cf == cn and cn, (cf, cn)
for c in cn:
    hf = open(os.path.join(F, c)).readline(); hn = open(os.path.join(N, c)).readline()
    assert hf == hn, (c, hf, hn)
# fiologparser_hist.py: same columns, rows within one window, samples = ops per direction
for dirn, d in (("r", "read"), ("w", "write")):
    rf = list(csv.DictReader(open(os.path.join(F, "hist." + dirn)), skipinitialspace=True))
    rn = list(csv.DictReader(open(os.path.join(N, "hist." + dirn)), skipinitialspace=True))
    assert rf and rn and list(rf[0].keys()) == list(rn[0].keys()), (rf[:1], rn[:1])
    assert abs(len(rf) - len(rn)) <= 1, (dirn, len(rf), len(rn))
    n = sum(int(float(r["samples"])) for r in rn)
    assert n == ops[d]["ops"], (d, n, ops[d]["ops"])
# fio-histo-log-pctiles.py: the same header, the same columns, rows within one quantum
def pct(d):
    lines = open(os.path.join(d, "pct.out")).read().splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith("msec-since-start"))
    return lines[i], [l for l in lines[i + 1:] if l.strip()]
(hf, bf), (hn, bn) = pct(F), pct(N)
assert hf == hn, (hf, hn)
assert bf and bn and abs(len(bf) - len(bn)) <= 1, (bf, bn)
assert all(len(r.split(",")) == len(hn.rstrip(", ").split(",")) for r in bn), (hn, bn)
total = sum(int(r.split(",")[1]) for r in bn)
assert total == ops["read"]["ops"] + ops["write"]["ops"], (total, ops["read"]["ops"] + ops["write"]["ops"])
PY
echo "ok: fio2gnuplot, fio_generate_plots, fio_jsonplus_clat2csv, fiologparser_hist.py, fio-histo-log-pctiles.py read fio's and nfstorm's output of one job alike"
