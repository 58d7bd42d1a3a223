#!/usr/bin/env bash
# A job file with stonewall: phases run in order; a size-bound sequential
# write does exactly size/bs ops per job; the read phase reads files that
# were laid out fully before it started.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/p.fio" <<F
[global]
directory=$D
bs=64k
size=4m
numjobs=3
group_reporting

[seqwrite]
rw=write
end_fsync=1

[seqread]
stonewall
rw=read
filename=shared.\${agent}
size=2m

[mixed]
stonewall
rw=randrw
rwmixread=70
runtime=1
time_based
F
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/r.json" "$T/p.fio" >"$T/out" 2>&1 || fail "$(tail -n3 "$T/out")"
py "$T/r.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
assert [p["name"] for p in ph] == ["seqwrite", "seqread", "mixed"], [p["name"] for p in ph]
w = ph[0]["ops"]["write"]
# 2 agents x 3 jobs x (4 MiB / 64 KiB) ops, exactly
assert w["ops"] == 2 * 3 * 64 and w["bytes"] == 2 * 3 * (4 << 20) and "read" not in ph[0]["ops"], ph[0]["ops"]
r = ph[1]["ops"]["read"]
assert r["ops"] == 2 * 3 * 32 and r["errors"] == 0, r
m = ph[2]["ops"]
assert m["read"]["ops"] > 0 and m["write"]["ops"] > 0, m
share = m["read"]["ops"] / (m["read"]["ops"] + m["write"]["ops"])
assert 0.6 < share < 0.8, share
assert ph[0]["numjobs"] == 3 and ph[0]["bs"] == 65536 and ph[2]["rw"] == "randrw"
PY
for a in 0 1; do
  [ "$(stat -c %s "$D/shared.$a")" -eq $((2 << 20)) ] || fail "shared.$a not laid out to 2 MiB"
done
echo "phases ok"
