#!/usr/bin/env bash
# verify= plans: refusals are one line naming file:line or the job and the
# key, exit 2; mixed block sizes verify with verify_interval, every unit
# of every op read back exactly once (checked = bytes written / 4 KiB), at
# iodepth 4 through io_uring or psync.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
printf '[j]\ndirectory=%s\nsize=1m\nverify=sha1\n' "$D" >"$T/bad1.fio"
expect_fail "unknown method" "bad1.fio:4: bad value for 'verify': 'sha1' \(want crc32c, crc32c-intel, md5, sha256, meta, pattern or null\)" \
  "$NFSTORM" run --local 1 "$T/bad1.fio"
[ $(timeout 30 "$NFSTORM" run --local 1 "$T/bad1.fio" >/dev/null 2>&1; echo $?) -eq 2 ] || fail "bad1: not exit 2"
printf '[j]\ndirectory=%s\nsize=1m\nverify=md5\nverify_interval=3000\n' "$D" >"$T/bad2.fio"
expect_fail "interval" "bad2.fio: job 'j': verify_interval=3000 must divide every block size \(4096 does not\)" \
  "$NFSTORM" run --local 1 "$T/bad2.fio"
expect_fail "cli verify_only time_based" "job 't': verify_only does not support time_based" \
  "$NFSTORM" run --local 1 --name=t --size=1m "--directory=$D" --verify=md5 --verify_only=1 --time_based --runtime=1
expect_fail "bsrange without interval" "verify with bsrange needs verify_interval=" \
  "$NFSTORM" run --local 1 --name=t --size=1m "--directory=$D" --verify=crc32c --bsrange=4k-16k
ls "$D" | grep -q . && fail "a refused plan wrote files: $(ls "$D")"
timeout 30 "$NFSTORM" run --dry-run --name=t --rw=write --size=1m "--directory=$D" --verify=md5 >"$T/dry" 2>&1 \
  || fail "dry run: $(cat "$T/dry")"
grep -q 'ops/thread=256 verify=md5 (then reads back every write)' "$T/dry" || fail "dry run: $(cat "$T/dry")"

eng=io_uring
for try in 1 2; do
  timeout 60 "$NFSTORM" run --local 2 --json "$T/r.json" --name=mix "--directory=$D" --rw=randwrite \
    --bsrange=4k-16k --verify_interval=4k --verify=crc32c --size=256k --iodepth=4 --numjobs=2 \
    --ioengine=$eng >"$T/out" 2>&1
  rc=$?
  if [ $rc -ne 0 ] && grep -q 'io_uring refused by the kernel' "$T/out"; then eng=psync; continue; fi
  break
done
[ $rc -eq 0 ] || fail "bsrange run ($eng): exit $rc: $(grep -E 'verify|verdict|error' "$T/out" | head -3)"
py "$T/r.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
v, w = p["verify"], p["ops"]["write"]
assert w["bytes"] % 4096 == 0 and v["checked"] == w["bytes"] // 4096, (v, w)
assert v["ok"] == v["checked"] and v["first"] == [] and p["verdict"] == "ok", v
# the read-back reads what was written: as many bytes as the writes
assert p["ops"]["read"]["bytes"] == w["bytes"], p["ops"]
PY
echo "verify plans: refusals named; mixed block sizes verified unit by unit ($eng)"
