#!/usr/bin/env bash
# fio's JSON and json+ layout: the same small workload run by fio 3.33
# (/usr/bin/fio) and by nfstorm gives the same keys and JSON types
# (py/fio_json_compare.py lists the deliberate differences with reasons);
# nfstorm's values are its own result's (iops, bw, ops, percentiles, bins);
# global/job options are fio's own (its names, bare flags left out, the
# command line's options among the global ones, a job whose name= differs
# from its header found); percentiles move to
# lat_ns with lat_percentiles=1; fio's fio_jsonplus_clat2csv reads json+.
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "fio is not installed"
D=$T/d; mkdir -p "$D"
cat >"$T/w.fio" <<JOB
[global]
directory=$D
size=1m
bs=4k
ioengine=psync
[mix]
rw=randrw
rwmixread=60
lat_percentiles=1
time_based
runtime=200ms
JOB
timeout 60 fio "$T/w.fio" --output-format=json+ --output="$T/fio.json" >/dev/null 2>&1 || fail "fio failed"
rm -f "$D"/*
timeout 60 "$NFSTORM" run "$T/w.fio" --local 1 --quiet --json "$T/r.json" --output-format=json+ \
  --output="$T/ns.json" >"$T/out" 2>&1 || fail "nfstorm: $(tail -n3 "$T/out")"
python3 "$ROOT/tests/integration/py/fio_json_compare.py" "$T/fio.json" "$T/ns.json" || fail "layout differs from fio's"
py "$T/ns.json" "$T/r.json" "$D" "$T/fio.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2])); fio = json.load(open(sys.argv[4]))
assert f["global options"] == fio["global options"], (f["global options"], fio["global options"])
assert f["jobs"][0]["job options"] == fio["jobs"][0]["job options"], (f["jobs"][0]["job options"], fio["jobs"][0]["job options"])
assert f["fio version"].startswith("nfstorm-"), f["fio version"]
assert "disk_util" not in f and "nfstorm" in f and f["nfstorm"]["agents"] == 1
assert f["global options"] == {"directory": sys.argv[3], "size": "1m", "bs": "4k", "ioengine": "psync"}, f["global options"]
j = f["jobs"][0]; p = r["phases"][0]
assert j["jobname"] == "mix" and j["job options"] == {"rw": "randrw", "rwmixread": "60", "lat_percentiles": "1",
                                                     "runtime": "200ms"}, j["job options"]
for d in ("read", "write"):
    o, q = j[d], p["ops"][d]
    assert o["total_ios"] == q["ops"] > 0 and o["io_bytes"] == q["bytes"] == q["ops"] * 4096, (o["total_ios"], q)
    assert o["io_kbytes"] == q["bytes"] // 1024
    assert abs(o["iops"] - q["iops"]) <= 1e-6 * q["iops"], (o["iops"], q["iops"])
    assert o["bw_bytes"] == int(q["bw_bytes"]) and o["bw"] == int(q["bw_bytes"] / 1024), (o["bw_bytes"], q["bw_bytes"])
    for k in ("clat_ns", "lat_ns"):   # lat_percentiles=1: both carry percentiles and bins (as fio)
        l = o[k]
        assert l["N"] == q["ops"] and l["min"] == q["lat_ns"]["min"] and l["max"] == q["lat_ns"]["max"], l
        assert l["percentile"]["99.000000"] == q["lat_ns"]["p99"] and l["percentile"]["50.000000"] == q["lat_ns"]["p50"]
        assert sum(l["bins"].values()) == q["ops"], "bins do not sum to N"
    assert o["slat_ns"]["N"] == 0 and "percentile" not in o["slat_ns"]
assert j["trim"]["total_ios"] == 0 and j["trim"]["runtime"] == 0 and j["trim"]["bw_samples"] == 0
assert j["iodepth_level"]["1"] == 100.0 and j["latency_depth"] == 1
tot = sum(j["latency_ns"].values()) + sum(j["latency_us"].values()) + sum(j["latency_ms"].values())
assert abs(tot - 100.0) < 1e-6, tot
PY
# fio's own json+ reader: one row per latency bin, cumulative counts end at N
(cd "$T" && timeout 30 fio_jsonplus_clat2csv ns.json clat.csv >/dev/null 2>&1) || fail "fio_jsonplus_clat2csv failed"
py "$T/ns.json" "$T/clat_job0.csv" <<'PY'
import csv, json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
rows = list(csv.reader(open(sys.argv[2]), skipinitialspace=True))
head, body = rows[0], rows[1:]
bins = set()
for d in ("read", "write"):
    bins |= {int(k) for k in j[d]["clat_ns"]["bins"]}
assert [int(r[0]) for r in body] == sorted(bins), "rows are not the json+ bins"
for d in ("read", "write"):
    c = head.index("%s_clat_ns_cumulative" % d)
    n = j[d]["clat_ns"]["N"]
    last = [int(r[c]) for r in body if r[c] != ""][-1]
    assert last == n, (d, last, n)
    pc = head.index("%s_clat_ns_percentile" % d)
    assert abs(float([r[pc] for r in body if r[pc] != ""][-1]) - 1.0) < 1e-9
PY
# without lat_percentiles the percentiles are in clat_ns only, as fio's
sed -i '/lat_percentiles/d' "$T/w.fio"
timeout 60 "$NFSTORM" run "$T/w.fio" --local 1 --quiet --output-format=json --output="$T/ns2.json" \
  >"$T/out" 2>&1 || fail "nfstorm: $(tail -n3 "$T/out")"
py "$T/ns2.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["jobs"][0]["read"]
assert "percentile" in o["clat_ns"] and "percentile" not in o["lat_ns"], sorted(o["lat_ns"])
assert "bins" not in o["clat_ns"], "json (not json+) has no bins"
assert isinstance(o["bw_bytes"], int) and isinstance(o["bw"], int) and isinstance(o["iops"], float)
PY
# plain json of a write-only job from the command line: fio's tree again (no global options,
# "name" among the job options, an unused read direction)
rm -f "$D"/*
timeout 60 fio --name=w --directory="$D" --rw=write --bs=8k --size=256k --iodepth=4 \
  --output-format=json --output="$T/fio3.json" >/dev/null 2>&1 || fail "fio failed"
rm -f "$D"/*
timeout 60 "$NFSTORM" run --name=w --directory="$D" --rw=write --bs=8k --size=256k --iodepth=4 --local 1 \
  --quiet --output-format=json --output="$T/ns3.json" >"$T/out" 2>&1 || fail "nfstorm: $(tail -n3 "$T/out")"
python3 "$ROOT/tests/integration/py/fio_json_compare.py" "$T/fio3.json" "$T/ns3.json" || fail "json layout differs from fio's"
py "$T/ns3.json" "$T/fio3.json" <<'PY'
import json, sys
f, g = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert "global options" not in f and "global options" not in g
j = f["jobs"][0]
assert j["job options"] == {"name": "w", "directory": g["jobs"][0]["job options"]["directory"], "rw": "write",
                            "bs": "8k", "size": "256k", "iodepth": "4"}, j["job options"]
assert j["job options"] == g["jobs"][0]["job options"], (j["job options"], g["jobs"][0]["job options"])
assert j["write"]["total_ios"] == 32 and j["write"]["io_bytes"] == 256 * 1024
assert j["read"]["total_ios"] == 0 and j["read"]["runtime"] == 0 and "percentile" not in j["read"]["clat_ns"]
# psync caps the depth at 1 (fio: "queue depth will be capped at 1"); latency_depth is the option
assert j["iodepth_level"] == g["jobs"][0]["iodepth_level"] and j["iodepth_level"]["1"] == 100.0, j["iodepth_level"]
assert j["latency_depth"] == g["jobs"][0]["latency_depth"] == 4
for k in ("iodepth_submit", "iodepth_complete"):
    assert j[k] == g["jobs"][0][k], (k, j[k], g["jobs"][0][k])
PY
# a steady-state job (ss=): fio's "steadystate" object, same keys and types; its values are
# nfstorm's decision (result control.steadystate) and the window's intervals
rm -f "$D"/*
cat >"$T/ss.fio" <<JOB
[global]
directory=$D
size=1m
bs=4k
ioengine=psync
[steady]
rw=randread
time_based
runtime=3
ss=iops:50%
ss_dur=2
JOB
timeout 60 fio "$T/ss.fio" --output-format=json --output="$T/fio4.json" >/dev/null 2>&1 || fail "fio (ss) failed"
rm -f "$D"/*
timeout 60 "$NFSTORM" run "$T/ss.fio" --local 1 --quiet --json "$T/r4.json" --output-format=json \
  --output="$T/ns4.json" >"$T/out" 2>&1 || fail "nfstorm (ss): $(tail -n3 "$T/out")"
py "$T/fio4.json" <<'PY'
import json, sys
assert "steadystate" in json.load(open(sys.argv[1]))["jobs"][0], "fio wrote no steadystate"
PY
python3 "$ROOT/tests/integration/py/fio_json_compare.py" "$T/fio4.json" "$T/ns4.json" || fail "ss layout differs from fio's"
py "$T/ns4.json" "$T/r4.json" <<'PY'
import json, sys
f, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ph = r["phases"][0]
c = ph["control"]["steadystate"]
for s in [f["jobs"][0]] + f["client_stats"]:
    o = s["steadystate"]
    assert o["ss"] == "iops:50.000000%" and o["duration"] == 2, o
    assert o["attained"] == c["attained"], (o, c)
    assert o["max_deviation"] == c["criterion"] and o["slope"] == 0.0, (o, c)
    want = 100.0 * c["criterion"] / c["mean"]
    assert o["criterion"].endswith("%") and abs(float(o["criterion"][:-1]) - want) < 1e-5, (o["criterion"], want)
    d = o["data"]
    assert len(d["iops"]) == len(d["bw"]) == 2 and all(isinstance(x, int) for x in d["iops"] + d["bw"])
    assert d["iops_mean"] == sum(d["iops"]) // 2 and d["bw_mean"] == sum(d["bw"]) // 2, d
    assert d["bw"] == [x * 4096 for x in d["iops"]], d   # bs=4k reads only, 1 s intervals
# the window is the intervals the decision judged: ending where it was attained, else the last
# complete ones; their mean is control.steadystate.mean
iv = [x["ops"]["read"]["ops"] if "read" in x.get("ops", {}) else 0 for x in ph["intervals"]]
end = round(c["at_s"]) if c["attained"] else len(iv) - 1
d = f["jobs"][0]["steadystate"]["data"]
assert d["iops"] == iv[end - 2:end], (d["iops"], iv, end)
if c["attained"]:
    assert abs(sum(d["iops"]) / 2 - c["mean"]) < 1, (d, c["mean"])
PY
# options as fio writes them (issue 22, item 8): aliases under fio's names (blocksize -> bs, readwrite -> rw,
# timeout -> runtime), bare flags left out, a command-line option beside the job file among the global
# options, and a job whose name= differs from its header still has its options (tools derive latency_depth
# from iodepth there: 64, not 1)
cat >"$T/al.fio" <<JOB
[global]
ioengine=null
blocksize=8k
size=1m
time_based
timeout=300ms
[hdr]
name=other
readwrite=randread
iodepth=64
JOB
timeout 60 fio "$T/al.fio" --ramp_time=0 --output-format=json --output="$T/fio5.json" >/dev/null 2>&1 || fail "fio (aliases) failed"
timeout 60 "$NFSTORM" run "$T/al.fio" --ramp_time=0 --local 1 --quiet --output-format=json --output="$T/ns5.json" \
  >"$T/out" 2>&1 || fail "nfstorm (aliases): $(tail -n3 "$T/out")"
py "$T/fio5.json" "$T/ns5.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1])); n = json.load(open(sys.argv[2]))
assert n["global options"] == f["global options"], (n["global options"], f["global options"])
fj, nj = f["jobs"][0], n["jobs"][0]
assert nj["jobname"] == fj["jobname"] == "other", (nj["jobname"], fj["jobname"])
assert nj["job options"] == fj["job options"], (nj["job options"], fj["job options"])
assert nj["latency_depth"] == fj["latency_depth"] == 64, (nj["latency_depth"], fj["latency_depth"])
PY
echo "fio JSON layout matches fio 3.33 (keys and types); values are nfstorm's own; options as fio writes them"
