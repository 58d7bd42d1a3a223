#!/usr/bin/env bash
# fio's per-direction block sizes and sequence modifiers, run by a real
# agent: bs=4k,64k reads 4k and writes 64k; bssplit per direction;
# rw=write:4k leaves 4k holes; rw=randwrite:16 with rw_sequencer=identical
# writes 16 times at each random offset; zoned_abs keeps every write in its
# zone.  Byte and op counts from the JSON, offsets from the files' bytes.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/p.fio" <<F
[global]
directory=$D
[dirbs]
rw=rw
bs=4k,64k
size=64m
number_ios=1000
[wonly]
stonewall
rw=write
bs=4k,64k
size=1m
[dirsplit]
stonewall
rw=randrw
bssplit=4k/100,8k/50:16k/50
size=16m
number_ios=1000
[holes]
stonewall
rw=write:4k
bs=4k
size=64k
number_ios=8
buffer_pattern=0xab
[ident]
stonewall
rw=randwrite:16
rw_sequencer=identical
bs=4k
size=1m
number_ios=64
buffer_pattern=0xcd
[zoned]
stonewall
rw=randwrite
bs=4k
size=1m
number_ios=200
random_distribution=zoned_abs:100/64k
buffer_pattern=0xef
F
"$NFSTORM" run --dry-run "$T/p.fio" >"$T/dry" 2>&1 || fail "dry run: $(tail -n2 "$T/dry")"
grep -q "job dirbs: rw=rw rwmixread=50 bs=4KiB,64KiB " "$T/dry" || fail "dry run: $(grep dirbs "$T/dry")"
grep -q "job dirsplit: .* bssplit=4KiB/100,8KiB/50:16KiB/50 " "$T/dry" || fail "dry run: $(grep dirsplit "$T/dry")"
grep -q "job holes: rw=write:4KiB " "$T/dry" || fail "dry run: $(grep holes "$T/dry")"
grep -q "job ident: rw=randwrite:16 rw_sequencer=identical " "$T/dry" || fail "dry run: $(grep ident "$T/dry")"
grep -q "random_distribution=zoned_abs:100/64k" "$T/dry" || fail "dry run: $(grep zoned "$T/dry")"
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r.json" "$T/p.fio" >"$T/o" 2>&1 || fail "$(tail -n2 "$T/o")"
py "$T/r.json" "$D" <<'PY'
import glob, json, sys
ph = {p["name"]: p["ops"] for p in json.load(open(sys.argv[1]))["phases"]}
d = sys.argv[2]
r, w = ph["dirbs"]["read"], ph["dirbs"]["write"]
assert r["ops"] + w["ops"] == 1000, (r["ops"], w["ops"])
assert r["bytes"] == r["ops"] * 4096 and w["bytes"] == w["ops"] * 65536, (r, w)
assert 400 <= w["ops"] <= 600, w["ops"]
res = {p["name"]: p for p in json.load(open(sys.argv[1]))["phases"]}
w = ph["wonly"]["write"]
assert (w["ops"], w["bytes"], res["wonly"]["bs"]) == (16, 1 << 20, 65536), (w, res["wonly"]["bs"])
assert res["dirbs"]["bs"] == 4096, res["dirbs"]["bs"]
r, w = ph["dirsplit"]["read"], ph["dirsplit"]["write"]
assert r["ops"] + w["ops"] == 1000 and r["bytes"] == r["ops"] * 4096, r
assert w["bytes"] % 8192 == 0 and 8192 * w["ops"] < w["bytes"] < 16384 * w["ops"], w

def blocks(job, byte):
    (f,) = glob.glob("%s/%s.*" % (d, job))
    data = open(f, "rb").read()
    out = []
    for i in range(0, len(data), 4096):
        b = data[i:i + 4096]
        if b == bytes([byte]) * 4096:
            out.append(i // 4096)
        else:
            assert b.count(0) == len(b), (job, i)      # a block is written whole or not at all
    return out
assert ph["holes"]["write"]["ops"] == 8
assert blocks("holes", 0xab) == [0, 2, 4, 6, 8, 10, 12, 14], blocks("holes", 0xab)
assert ph["ident"]["write"]["ops"] == 64
assert len(blocks("ident", 0xcd)) == 4, blocks("ident", 0xcd)   # 64 ops / 16 per offset
z = blocks("zoned", 0xef)
assert ph["zoned"]["write"]["ops"] == 200 and z and max(z) < 16 and len(z) >= 12, z
print("dirbs r/w ops %d/%d, zoned blocks %s" % (ph["dirbs"]["read"]["ops"], ph["dirbs"]["write"]["ops"], z))
PY
echo "per-direction block sizes and sequence modifiers honoured"
