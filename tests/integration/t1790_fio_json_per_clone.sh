#!/usr/bin/env bash
# fio JSON without group_reporting (issue 22, item 8): one jobs[] entry per
# job and per clone, in fio 3.33's order (jobs in file order, each job's
# clones together, a stonewall's job in the next group), each with its own
# figures; with group_reporting one entry per group.  The same sized job
# file is run by fio and by nfstorm and the entries compared: count, order,
# jobname, groupid and each entry's read and write op counts and bytes
# (sized jobs: exact).  With two agents each entry is the fleet's sum for
# its (job, clone): twice fio's, and the entries sum to nfstorm's result.
source "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "fio is not installed"
D=$T/d; mkdir -p "$D"
cat >"$T/w.fio" <<JOB
[global]
ioengine=psync
bs=4k
size=256k
directory=$D
[a]
rw=write
numjobs=2
[b]
rw=read
numjobs=2
size=128k
[c]
stonewall
rw=randread
numjobs=3
size=64k
JOB
timeout 60 fio "$T/w.fio" --output-format=json --output="$T/fio.json" >/dev/null 2>&1 || fail "fio failed"
timeout 60 fio "$T/w.fio" --group_reporting --output-format=json --output="$T/fiog.json" >/dev/null 2>&1 \
  || fail "fio (group_reporting) failed"
rm -rf "$D"; mkdir -p "$D"
timeout 60 "$NFSTORM" run "$T/w.fio" --local 1 --quiet --json "$T/r1.json" --output-format=json \
  --output="$T/ns.json" >"$T/out" 2>&1 || fail "nfstorm: $(tail -n3 "$T/out")"
rm -rf "$D"; mkdir -p "$D"
timeout 60 "$NFSTORM" run "$T/w.fio" --group_reporting --local 1 --quiet --output-format=json \
  --output="$T/nsg.json" >"$T/out" 2>&1 || fail "nfstorm (group_reporting): $(tail -n3 "$T/out")"
rm -rf "$D"; mkdir -p "$D"
timeout 60 "$NFSTORM" run "$T/w.fio" --local 2 --quiet --json "$T/r2.json" --output-format=json \
  --output="$T/ns2.json" >"$T/out" 2>&1 || fail "nfstorm (2 agents): $(tail -n3 "$T/out")"
# nfstorm report writes the same jobs[] from the saved result (the phase's "clones") and from its journal
timeout 30 "$NFSTORM" report "$T/r2.json" --output-format=json --output="$T/rep2.json" >"$T/out" 2>&1 \
  || fail "report: $(tail -n3 "$T/out")"
timeout 30 "$NFSTORM" report "$T/r2.json.journal" --output-format=json --output="$T/jrep2.json" >"$T/out" 2>&1 \
  || fail "report (journal): $(tail -n3 "$T/out")"
py "$T/ns2.json" "$T/rep2.json" "$T/jrep2.json" <<'PY'
import json, sys
a, b, c = (json.load(open(x))["jobs"] for x in sys.argv[1:4])
key = lambda d: [(j["jobname"], j["groupid"], j["read"]["total_ios"], j["write"]["total_ios"], j["job_runtime"],
                  j["read"]["clat_ns"]["percentile"]["99.000000"] if j["read"]["total_ios"] else 0) for j in d]
assert key(a) == key(b) and len(a) == 7, ("saved result", key(a), key(b))
assert key(a) == key(c), ("journal", key(a), key(c))
PY
py "$T/fio.json" "$T/ns.json" "$T/fiog.json" "$T/nsg.json" "$T/ns2.json" "$T/r2.json" "$T/r1.json" <<'PY'
import json, sys
fio, ns, fiog, nsg, ns2, r2, r1 = (json.load(open(a)) for a in sys.argv[1:8])
def rows(d, mult=1):
    return [(j["jobname"], j["groupid"], j["read"]["total_ios"] * mult, j["write"]["total_ios"] * mult,
             j["read"]["io_bytes"] * mult, j["write"]["io_bytes"] * mult) for j in d["jobs"]]
want = rows(fio)
# fio's own tree first: the test means what it says
assert [r[:2] for r in want] == [("a", 0)] * 2 + [("b", 0)] * 2 + [("c", 1)] * 3, want
assert [r[2:4] for r in want] == [(0, 64)] * 2 + [(32, 0)] * 2 + [(16, 0)] * 3, want
assert rows(ns) == want, ("one agent", rows(ns), want)
# fio's keys and types, entry by entry (a read job's entry against fio's read job's)
import fio_json_compare
out = []
for f, j in zip(fio["jobs"], ns["jobs"]):
    fio_json_compare.walk(f, j, "jobs.*", out)
assert not out, out
# each entry its own figures: its job options and runtime, not the phase's
for j, f in zip(ns["jobs"], fio["jobs"]):
    assert j["job options"] == f["job options"], (j["job options"], f["job options"])
    assert j["write"]["clat_ns"]["N"] == j["write"]["total_ios"], j["write"]["clat_ns"]["N"]
    assert j["read"]["clat_ns"]["N"] == j["read"]["total_ios"], j["read"]["clat_ns"]["N"]
# the entries of a group sum to nfstorm's result of its phase
for g, ph in enumerate(r1["phases"]):
    for d in ("read", "write"):
        s = sum(j[d]["total_ios"] for j in ns["jobs"] if j["groupid"] == g)
        assert s == ph["ops"].get(d, {}).get("ops", 0), (g, d, s)
# group_reporting: one entry per group, as fio
assert rows(nsg) == rows(fiog), ("group_reporting", rows(nsg), rows(fiog))
assert len(nsg["jobs"]) == 2
# two agents: each (job, clone) entry is the fleet's sum, twice fio's one-host figures
assert rows(ns2) == rows(fio, 2), ("two agents", rows(ns2), rows(fio, 2))
for g, ph in enumerate(r2["phases"]):
    for d in ("read", "write"):
        s = sum(j[d]["io_bytes"] for j in ns2["jobs"] if j["groupid"] == g)
        assert s == ph["ops"].get(d, {}).get("bytes", 0), (g, d, s)
# client_stats stays one entry per agent and phase
assert len(ns2["client_stats"]) == 4, len(ns2["client_stats"])
PY
echo "jobs[] per job and clone as fio 3.33 writes it (order, names, groups, op counts); grouped with group_reporting"
