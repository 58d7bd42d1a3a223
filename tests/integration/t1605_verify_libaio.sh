#!/usr/bin/env bash
# t1605: verify= through the libaio engine (issue 11: "through both engine
# families ... libaio when it exists"), 8 in flight, direct=1 where the
# file system takes it: a clean write with read-back checks all 256 blocks
# and finds none bad; one byte changed by a second writer is found by the
# next read phase, in the right block, as corrupt_checksum, and only there.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
DIRECT=1
dd if=/dev/zero of="$D/probe" bs=4096 count=1 oflag=direct 2>/dev/null || DIRECT=0
rm -f "$D/probe"
JOB=(--name=v --ioengine=libaio --direct=$DIRECT --iodepth=8 --bs=4k --size=1m --verify=crc32c --directory="$D")
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/w.json" "${JOB[@]}" --rw=randwrite >"$T/w.out" 2>&1 ||
  fail "libaio write+verify: $(tail -n2 "$T/w.out")"
f=$(ls "$D")
[ "$(echo "$f" | wc -l)" = 1 ] || fail "want one file, got: $f"
printf 'X' | dd of="$D/$f" bs=1 seek=$((3 * 4096 + 900)) conv=notrunc 2>/dev/null
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r.json" "${JOB[@]}" --rw=randread >"$T/r.out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "a corrupt block read back: exit $rc, want 1: $(tail -n2 "$T/r.out")"
py "$T/w.json" "$T/r.json" "$D/$f" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["phases"][0]
assert w["verdict"] == "ok", w["verdict"]
assert w["verify"]["checked"] == 256 and w["verify"]["ok"] == 256, w["verify"]
assert w["ops"]["write"]["ops"] == 256 and w["ops"]["read"]["ops"] == 256, w["ops"]
r = json.load(open(sys.argv[2]))["phases"][0]
v = r["verify"]
assert v["checked"] == 256 and v["ok"] == 255 and v["corrupt_checksum"] == 1, v
bad = v["first"]
assert len(bad) == 1 and bad[0]["offset"] == 3 * 4096 and bad[0]["kind"] == "corrupt_checksum", bad
assert bad[0]["file"] == sys.argv[3], (bad[0]["file"], sys.argv[3])
print("libaio verify: 256 of 256 clean; the changed byte found in block 3 only")
PY
