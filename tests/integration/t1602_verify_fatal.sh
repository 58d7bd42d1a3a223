#!/usr/bin/env bash
# verify_fatal=1 ends the job at the first bad block: with blocks 3, 9 and
# 12 of 16 zeroed, a sequential verify_only pass at iodepth 1 checks
# exactly blocks 0-3 and reports block 3 alone; without verify_fatal all 16
# are checked and all three found.  A write phase with do_verify=0 only
# stamps its blocks: it has no verify results and passes.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
cat >"$T/w.fio" <<F
[w]
directory=$D
filename=f
bs=4k
size=64k
rw=write
verify=md5
do_verify=0
F
timeout 30 "$NFSTORM" run --local 1 --json "$T/w.json" "$T/w.fio" >"$T/w.out" 2>&1 || fail "write: $(tail -3 "$T/w.out")"
py "$T/w.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
assert "verify" not in p and "verify" not in p["agents"][0], p.get("verify")
assert p["verdict"] == "ok" and p["ops"]["write"]["ops"] == 16 and "read" not in p["ops"], p
PY
for b in 3 9 12; do
  dd if=/dev/zero of="$D/f" bs=4096 seek=$b count=1 conv=notrunc status=none || fail "dd"
done
for fatal in 1 0; do
  sed -e 's/^do_verify=0$/verify_only=1/' "$T/w.fio" >"$T/v.fio"
  printf 'verify_fatal=%s\niodepth=1\n' $fatal >>"$T/v.fio"
  timeout 30 "$NFSTORM" run --local 1 --json "$T/v$fatal.json" "$T/v.fio" >"$T/v.out" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "verify_fatal=$fatal: exit $rc, want 1: $(tail -3 "$T/v.out")"
done
py "$T/v1.json" "$T/v0.json" <<'PY'
import json, sys
f1, f0 = (json.load(open(p))["phases"][0] for p in sys.argv[1:])
v = f1["verify"]
assert (v["checked"], v["ok"], v["zeroes"]) == (4, 3, 1), v
assert [b["offset"] for b in v["first"]] == [3 * 4096], v["first"]
assert f1["ops"]["read"]["ops"] == 4 and f1["verdict"] == "failed", f1["ops"]
v = f0["verify"]
assert (v["checked"], v["ok"], v["zeroes"]) == (16, 13, 3), v
assert [b["offset"] for b in v["first"]] == [3 * 4096, 9 * 4096, 12 * 4096], v["first"]
assert all(b["kind"] == "zeroes" for b in v["first"]) and f0["verdict"] == "failed"
PY
echo "verify_fatal stops at the first bad block; without it all three are found"
