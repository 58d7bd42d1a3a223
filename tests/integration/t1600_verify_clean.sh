#!/usr/bin/env bash
# verify= on clean storage reports zero problems, with exact counts: 2 local
# agents x 2 jobs, iodepth 8, on ext4 ($T) and tmpfs (/dev/shm), through
# psync and io_uring: a randwrite phase reads back what it wrote (do_verify),
# a read phase and a randrw phase check the same files by their headers, a
# write phase with verify_backlog reads back every 8 writes, and every
# checksum kind (crc32c, md5, sha256, meta, pattern) verifies its own files.
source "$(dirname "$0")/lib.sh"

run_plan() {   # DIR ENGINE
  local D=$1 eng=$2
  cat >"$T/p.fio" <<F
[global]
directory=$D
bs=4k
size=256k
iodepth=8
numjobs=2
ioengine=$eng
filename_format=v.\$agent.\$jobnum

[w]
rw=randwrite
verify=crc32c

[r]
stonewall
rw=read
verify=crc32c

[m]
stonewall
rw=randrw
verify=crc32c

[b]
stonewall
rw=write
verify=crc32c
verify_backlog=8
F
  for k in md5 sha256 meta; do
    printf '\n[%s]\nstonewall\nrw=randwrite\nverify=%s\nfilename_format=%s.$agent.$jobnum\n' "$k" "$k" "$k" >>"$T/p.fio"
  done
  printf "\n[pat]\nstonewall\nrw=write\nverify=pattern\nverify_pattern=0x5aa5f00f\nfilename_format=p.\$agent.\$jobnum\n" >>"$T/p.fio"
  timeout 60 "$NFSTORM" run --local 2 --json "$T/r.json" "$T/p.fio" >"$T/out" 2>&1
  rc=$?
  grep -q 'io_uring refused by the kernel' "$T/out" && skip "$(grep -m1 'io_uring refused' "$T/out")"
  [ $rc -eq 0 ] || fail "$eng on $D: exit $rc: $(grep -E 'verify|verdict|error' "$T/out" | head -5)"
  py "$T/r.json" "$eng" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
assert [p["name"] for p in ph] == ["w", "r", "m", "b", "md5", "sha256", "meta", "pat"], [p["name"] for p in ph]
for p in ph:
    v = p["verify"]
    # 2 agents x 2 jobs x 64 blocks: each written block read back once,
    # each read block checked once (randrw: 64 ops per job, reads + writes)
    assert v["checked"] == 256 and v["ok"] == 256, (p["name"], v)
    assert all(v[k] == 0 for k in ("corrupt_checksum", "wrong_offset", "wrong_file",
                                     "stale_generation", "torn", "zeroes", "wrong_writer")), (p["name"], v)
    assert v["first"] == [], (p["name"], v["first"])
    assert [a["verify"]["checked"] for a in p["agents"]] == [128, 128], (p["name"], p["agents"])
    assert p["verdict"] == "ok", (p["name"], p["reasons"])
# a write phase's read-back is counted as reads: 128 per agent
assert ph[0]["ops"]["write"]["ops"] == 256 and ph[0]["ops"]["read"]["ops"] == 256, ph[0]["ops"]
assert ph[1]["ops"]["read"]["ops"] == 256 and "write" not in ph[1]["ops"], ph[1]["ops"]
PY
  grep -q '^verify: 256 checked, 256 ok$' "$T/out" || fail "$eng: no verify line in the text report"
}

# psync on the local disk, io_uring on tmpfs (or the local disk without one)
mkdir -p "$T/ext4"
run_plan "$T/ext4" psync
S=$T/ext4
if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
  S=$(mktemp -d /dev/shm/nfstorm-t1600.XXXXXX)
  trap 'rm -rf "$S"; cleanup' EXIT
fi
run_plan "$S" io_uring
echo "verify clean: psync on $(stat -f -c %T "$T/ext4"), io_uring on $(stat -f -c %T "$S"), every kind: 0 problems"
