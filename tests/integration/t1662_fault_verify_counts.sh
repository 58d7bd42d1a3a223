#!/usr/bin/env bash
# Verification counts each block once, checks every header byte and never
# changes the file it verifies:
#  - bs=1000 over a 64 KiB region: 65 whole blocks, a 536-byte tail no block
#    fits (as fio: not written, not read, not checked).  The write pass and
#    its read-back do 65 ops each (not 66, block 0 twice), and one byte
#    faultfs flips on every read of block 0 is one bad block, not two.
#  - verify=meta: a byte flipped at header offsets 68, 78 and 100 (the run
#    id, the padding, the unused checksum) is corrupt_checksum each.
#  - verify_only on a file cut to 40000 bytes leaves it at 40000 bytes,
#    its content unchanged.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount
run() {   # run NAME PLAN: exit status in RC
  timeout 60 "$NFSTORM" run "$2" --local 1 --quiet --json "$T/$1.json" >"$T/$1.out" 2>&1
  RC=$?
  [ $RC -ne 124 ] || fail "$1: hung"
  [ -s "$T/$1.json" ] || fail "$1: no result: $(tail -n 3 "$T/$1.out")"
}
printf '[global]\ndirectory=%s\nfilename=t.dat\nbs=1000\nsize=64k\nverify=crc32c\nioengine=psync\n[w]\nrw=write\n' \
  "$FFS_M" >"$T/t.fio"
run clean "$T/t.fio"
[ $RC -eq 0 ] || fail "bs=1000: exit $RC: $(grep -A2 'phase verdict' "$T/clean.out")"
faultfs_ctl "rcorrupt,file=t.dat,off=0,len=1000"
run flip "$T/t.fio"
[ $RC -eq 1 ] || fail "a flipped byte in block 0: exit $RC, expected 1"
faultfs_ctl clear
py "$T/clean.json" "$T/flip.json" "$FFS_LOG" <<'PY'
import json, sys
c, f = (json.load(open(p))["phases"][0] for p in sys.argv[1:3])
assert c["ops"]["write"]["ops"] == 65 and c["ops"]["read"]["ops"] == 65, (c["ops"]["write"]["ops"], c["ops"]["read"]["ops"])
assert c["verify"]["checked"] == 65 and c["verify"]["ok"] == 65, c["verify"]
v = f["verify"]
assert v["checked"] == 65 and v["corrupt_checksum"] == 1 and v["ok"] == 64, v
assert [(b["offset"], b["kind"]) for b in v["first"]] == [(0, "corrupt_checksum")], v["first"]
reads = [l for l in open(sys.argv[3]) if l.startswith("kind=rcorrupt")]
assert len(reads) == 1, reads       # block 0 read back once
print("bs=1000: 65 blocks, each written, read and checked once; one flipped byte, one bad block")
PY

printf '[global]\ndirectory=%s\nfilename=m.dat\nbs=4k\nsize=64k\nverify=meta\nioengine=psync\n[w]\nrw=write\ndo_verify=0\n[v]\nstonewall\nrw=read\nverify_only=1\n' \
  "$FFS_M" >"$T/m.fio"
faultfs_ctl "rcorrupt,file=m.dat,off=68,len=1" "rcorrupt,file=m.dat,off=4174,len=1" "rcorrupt,file=m.dat,off=8292,len=1"
run meta "$T/m.fio"
faultfs_ctl clear
[ $RC -eq 1 ] || fail "verify=meta with header bytes flipped: exit $RC, expected 1"
py "$T/meta.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["phases"][1]["verify"]
assert v["checked"] == 16 and v["corrupt_checksum"] == 3 and v["ok"] == 13, v
assert sorted(b["offset"] for b in v["first"]) == [0, 4096, 8192], v["first"]
PY

truncate -s 40000 "$FFS_B/t.dat"
before=$(sha256sum <"$FFS_B/t.dat")
printf '[global]\ndirectory=%s\nfilename=t.dat\nbs=1000\nsize=64k\nverify=crc32c\nioengine=psync\n[v]\nrw=read\nverify_only=1\n' \
  "$FFS_M" >"$T/vo.fio"
run vo "$T/vo.fio"
[ $RC -eq 1 ] || fail "verify_only over a cut file: exit $RC, expected 1 (its missing blocks are not there)"
[ "$(stat -c %s "$FFS_B/t.dat")" = 40000 ] || fail "verify_only changed the file's size to $(stat -c %s "$FFS_B/t.dat")"
[ "$(sha256sum <"$FFS_B/t.dat")" = "$before" ] || fail "verify_only changed the file's content"
py "$T/vo.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["phases"][0]["verify"]
assert v["ok"] == 40 and v["checked"] == 40, v     # 40 whole blocks below 40000; the rest fail to read
PY
rm -f "$FFS_B/t.dat"
run gone "$T/vo.fio"
[ $RC -eq 1 ] || fail "verify_only of a missing file: exit $RC, expected 1"
grep -q "verify_only and a file to verify is missing: .*t.dat" "$T/gone.out" || fail "missing file: $(tail -n 2 "$T/gone.out")"
[ ! -e "$FFS_B/t.dat" ] || fail "verify_only created the missing file"
echo "verify counts: 65 blocks once each, every meta header byte checked, verify_only leaves the file alone"
