#!/usr/bin/env bash
# Shared-file write contention, checked across clients: 3 agents write
# their regions of one file (offset_increment=64k, 16 blocks each) at the
# same time with verify=crc32c, then read back with rotate=1, so agent i
# checks region (i+1) mod 3 against its writer.  On a clean file system:
# 48 blocks checked, 48 ok, nothing lost or torn.  Then between runs
# (simulated lost writes): block 3 of agent 2's region is zeroed, and
# agent 2 overwrites the first 4 blocks of region 1 (agent 1's) with its
# own.  A read-back run finds exactly: 1 zeroes in region 2, expected
# writer 2, found by agent 1; 4 wrong_writer in region 1, expected 1,
# found 2, by agent 0; everything else ok.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/a.fio" <<F
[global]
directory=$D
filename=s
bs=4k
size=64k
offset_increment=64k
verify=crc32c
[w]
rw=write
[r]
stonewall
rw=read
rotate=1
F
timeout 60 "$NFSTORM" run --local 3 --quiet --json "$T/a.json" "$T/a.fio" >"$T/a.out" 2>&1 || fail "clean run: $(tail -3 "$T/a.out")"
[ "$(stat -c %s "$D/s")" -eq $((3 * 65536)) ] || fail "s is $(stat -c %s "$D/s") bytes, want 192 KiB"
py "$T/a.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][1]
v = ph["verify"]
bad = {k: v[k] for k in ("corrupt_checksum", "wrong_offset", "wrong_file", "stale_generation",
                         "torn", "zeroes", "wrong_writer")}
assert v["checked"] == 48 and v["ok"] == 48 and not any(bad.values()), v
for a in ph["agents"]:
    assert a["verify"]["checked"] == 16 and a["verify"]["ok"] == 16, (a["id"], a["verify"])
assert ph["verdict"] == "ok", ph["reasons"]
PY
# the faults, between runs: a lost write in region 2, region 1 overwritten by agent 2
python3 - "$D/s" <<'PY' || fail "zeroing failed"
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(2 * 65536 + 3 * 4096); f.write(bytes(4096))
PY
cat >"$T/b.fio" <<F
[o]
directory=$D
filename=s
bs=4k
size=16k
offset=64k
verify=crc32c
rw=write
agents=2
F
timeout 60 "$NFSTORM" run --local 3 --quiet "$T/b.fio" >"$T/b.out" 2>&1 || fail "overwrite run: $(tail -3 "$T/b.out")"
sed -e '/^\[w\]$/,$d' "$T/a.fio" >"$T/c.fio"
printf '[r]\nrw=read\nrotate=1\n' >>"$T/c.fio"
timeout 60 "$NFSTORM" run --local 3 --json "$T/c.json" "$T/c.fio" >"$T/c.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "read-back after the faults: exit $rc, want 1: $(tail -3 "$T/c.out")"
py "$T/c.json" "$D/s" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
v = ph["verify"]
want = {"checked": 48, "ok": 43, "zeroes": 1, "wrong_writer": 4, "corrupt_checksum": 0,
        "wrong_offset": 0, "wrong_file": 0, "stale_generation": 0, "torn": 0}
assert {k: v[k] for k in want} == want, v
by = {a["id"]: a["verify"] for a in ph["agents"]}
assert by[0]["wrong_writer"] == 4 and by[0]["ok"] == 12, by[0]
assert by[1]["zeroes"] == 1 and by[1]["ok"] == 15, by[1]
assert by[2]["ok"] == 16, by[2]
z = [f for f in v["first"] if f["kind"] == "zeroes"]
assert len(z) == 1 and z[0]["offset"] == 2 * 65536 + 3 * 4096 and z[0]["expected_writer"] == 2 \
    and z[0]["reader"] == 1 and z[0]["file"] == sys.argv[2], z
ww = [f for f in v["first"] if f["kind"] == "wrong_writer"]
assert sorted(f["offset"] for f in ww) == [65536 + 4096 * i for i in range(4)], ww
assert all(f["expected_writer"] == 1 and f["found_writer"] == 2 and f["reader"] == 0 for f in ww), ww
assert ph["verdict"] == "failed", ph["verdict"]
PY
echo "shared file: 48 blocks clean; a lost write and an overwrite found, each at its offset, blamed on the right writer"
