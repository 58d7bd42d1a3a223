#!/usr/bin/env bash
# fio log files per clone (issue 22, item 10): with numjobs=2 fio 3.33
# writes one file per thread, numbered by its thread number (a.1 a.2 b.3
# b.4); nfstorm writes the same names, each file with that clone's own
# figures: per file one line per interval and direction, its iops lines
# summing to the clone's op count in the JSON's jobs[] entry of the same
# thread number, its clat_hist bins to the same count; the fleet's line is
# the sum of the agents' lines (.agentI files, which fio's documented glob
# *_clat_hist.*.log does not match).
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "fio is not installed"
D=$T/d; F=$T/fio; N=$T/ns; mkdir -p "$D" "$F" "$N"
cat >"$T/w.fio" <<JOB
[global]
ioengine=psync
bs=4k
size=256k
directory=$D
time_based
runtime=1
rate_iops=100
write_bw_log=pl
write_iops_log=pl
write_hist_log=pl
log_avg_msec=200
[a]
rw=randwrite
numjobs=2
[b]
rw=randread
numjobs=2
rate_iops=60
JOB
(cd "$F" && timeout 60 fio "$T/w.fio" --output-format=json --output="$T/fio.json" >/dev/null 2>&1) || fail "fio failed"
rm -rf "$D"; mkdir -p "$D"
(cd "$N" && timeout 60 "$NFSTORM" run "$T/w.fio" --local 2 --quiet --json "$T/r.json" --output-format=json \
  --output="$T/ns.json" >"$T/out" 2>&1) || fail "nfstorm: $(tail -n3 "$T/out")"
py "$F" "$N" "$T/ns.json" "$T/r.json" <<'PY'
import glob, json, os, sys
F, N, ns, r = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
fio_names = sorted(os.path.basename(p) for p in glob.glob(F + "/*.log"))
ns_names = sorted(os.path.basename(p) for p in glob.glob(N + "/*.log"))
assert "pl_iops.4.log" in fio_names and "pl_iops.5.log" not in fio_names, fio_names
assert ns_names == fio_names, (ns_names, fio_names)
# the documented glob finds each clone's fleet file once, never an agent's
assert sorted(os.path.basename(p) for p in glob.glob(N + "/*_clat_hist.*.log")) == \
    ["pl_clat_hist.%d.log" % n for n in (1, 2, 3, 4)]
def lines(path):
    return [[int(x) for x in l.split(",")] for l in open(path) if l.strip()]
nint = len(r["phases"][0]["intervals"])
jobs = ns["jobs"]
assert [j["jobname"] for j in jobs] == ["a", "a", "b", "b"], [j["jobname"] for j in jobs]
per = []
for n in (1, 2, 3, 4):
    j = jobs[n - 1]                       # thread number n is jobs[n - 1], as in fio
    d = 1 if j["jobname"] == "a" else 0
    ops = j["write" if d else "read"]["total_ios"]
    assert ops > 0, (n, j)
    iops = lines("%s/pl_iops.%d.log" % (N, n))
    assert len(iops) == nint, (n, len(iops), nint)        # one line per interval, one direction
    assert all(l[2] == d for l in iops), (n, iops)
    prev, s = 0, 0.0
    for l in iops:
        s += l[1] * (l[0] - prev) / 1000.0
        prev = l[0]
    assert abs(s - ops) <= len(iops), (n, s, ops)
    hist = lines("%s/pl_clat_hist.%d.log" % (N, n))
    assert sum(sum(l[3:]) for l in hist) == ops, (n, sum(sum(l[3:]) for l in hist), ops)
    # the fleet's line is the sum of the agents' (200 ms intervals: iops are exact)
    a0 = lines("%s/pl_iops.%d.agent0" % (N, n)); a1 = lines("%s/pl_iops.%d.agent1" % (N, n))
    assert [l[1] for l in iops[:-1]] == [x[1] + y[1] for x, y in zip(a0, a1)][:-1], (n, iops, a0, a1)
    per.append(ops)
# each file its own clone's figures: the rated jobs differ (100 vs 60 ops/s a thread)
assert min(per[:2]) > max(per[2:]), per
assert sum(per) == sum(p["ops"].get(d, {}).get("ops", 0) for p in r["phases"] for d in ("read", "write"))
PY
echo "fio log files per clone: fio's names, each clone's own lines, fleet = sum of agents"
