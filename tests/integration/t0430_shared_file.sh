#!/usr/bin/env bash
# One file shared by 3 agents: offset_increment gives each its own region;
# each writes its region with its own byte pattern.  The file ends up
# exactly 3 regions long and every byte of region i holds agent i's pattern.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/p.fio" <<F
[global]
directory=$D
filename=shared.dat
rw=randwrite
bs=4k
size=1m
offset_increment=1m
[a0]
agents=0
buffer_pattern=0xa0
[a1]
agents=1
buffer_pattern=0xa1
[a2]
agents=2
buffer_pattern='A2'
F
timeout 60 "$NFSTORM" run --local 3 --quiet --json "$T/r.json" "$T/p.fio" >"$T/o" 2>&1 || fail "$(tail -n2 "$T/o")"
[ "$(stat -c %s "$D/shared.dat")" -eq $((3 << 20)) ] || fail "shared.dat is $(stat -c %s "$D/shared.dat") bytes, want 3 MiB"
py "$D/shared.dat" "$T/r.json" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
want = [b"\xa0" * (1 << 20), b"\xa1" * (1 << 20), b"A2" * (1 << 19)]
for i, w in enumerate(want):
    region = data[i << 20:(i + 1) << 20]
    assert region == w, "region %d: %d bytes differ from agent %d's pattern" % (
        i, sum(1 for a, b in zip(region, w) if a != b), i)
r = json.load(open(sys.argv[2]))["phases"][0]
assert r["ops"]["write"]["ops"] == 3 * 256, r["ops"]["write"]
PY
echo "shared file: 3 regions, each by its agent"
