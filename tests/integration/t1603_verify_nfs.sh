#!/usr/bin/env bash
# verify= through libnfs against ganesha, NFSv3 and NFSv4: 2 agents x 2
# jobs at iodepth 16 write with read-back, then read and check by header:
# exact counts, zero problems.  Then a byte flipped in the export (a second
# writer behind the server) is found by verify_only over NFS at its offset,
# and the psync engine on the export directory verifies the blocks libnfs
# wrote (file ids are paths relative to the export / --allow root).
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export"
nfs_server_start "$T/export" || fail "NFS server did not start"

for v in 3 4; do
  url=$NFS_URL3; [ $v = 4 ] && url=$NFS_URL4
  cat >"$T/p.fio" <<F
[global]
ioengine=nfs
nfs_url=$url
bs=4k
size=256k
iodepth=16
numjobs=2
verify=crc32c
filename_format=n$v.\$agent.\$jobnum
[w]
rw=randwrite
[r]
stonewall
rw=read
F
  timeout 60 "$NFSTORM" run --local 2 --json "$T/v$v.json" "$T/p.fio" >"$T/out" 2>&1 \
    || fail "v$v: $(grep -E 'verify|verdict|error' "$T/out" | head -5)"
  py "$T/v$v.json" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["phases"]:
    v = p["verify"]
    assert v["checked"] == 256 and v["ok"] == 256 and v["first"] == [], (p["name"], v)
    assert p["verdict"] == "ok", p["reasons"]
PY
  f=$T/export/n$v.1.1
  [ "$(stat -c %s "$f")" -eq 262144 ] || fail "v$v: $f is not 256 KiB"
  python3 - "$f" <<'PY' || fail "flip"
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(5 * 4096 + 700); b = f.read(1); f.seek(5 * 4096 + 700); f.write(bytes([b[0] ^ 0x80]))
PY
  sed -i 's/^rw=randwrite$/rw=randwrite\nverify_only=1/; /^\[r\]$/,$d' "$T/p.fio"
  timeout 60 "$NFSTORM" run --local 2 --json "$T/o$v.json" "$T/p.fio" >"$T/out" 2>&1
  [ $? -eq 1 ] || fail "v$v verify_only: want exit 1: $(tail -3 "$T/out")"
  # the same files through the kernel-mount engine, read from the export dir
  sed -i "s|^ioengine=nfs$|ioengine=psync\ndirectory=$T/export|; /^nfs_url=/d" "$T/p.fio"
  timeout 60 "$NFSTORM" run --local 2 --json "$T/k$v.json" "$T/p.fio" >"$T/out" 2>&1
  [ $? -eq 1 ] || fail "v$v psync verify_only: want exit 1: $(tail -3 "$T/out")"
  for r in "$T/o$v.json" "$T/k$v.json"; do
    py "$r" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
v = p["verify"]
assert (v["checked"], v["ok"], v["corrupt_checksum"]) == (256, 255, 1), v
b = v["first"][0]
assert b["offset"] == 5 * 4096 and b["reader"] == 1 and b["file"].endswith("1.1"), b
assert [a["verify"]["checked"] for a in p["agents"]] == [128, 128] and p["verdict"] == "failed"
PY
  done
done
echo "verify over NFS v3/v4: clean, and a flipped byte found over libnfs and psync alike"
