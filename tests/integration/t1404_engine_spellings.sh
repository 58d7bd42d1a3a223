#!/usr/bin/env bash
# fio's ioengine spellings, through the one engine table: sync, pvsync,
# vsync and pvsync2 run psync (dry-run shows it, a real run does exactly
# 256 writes of 4k), libaio is itself, and an unknown name is refused with
# exit 2 naming the key, the value and every engine the table knows.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
for e in sync pvsync vsync pvsync2 psync libaio io_uring; do
  want=psync; case $e in libaio|io_uring) want=$e;; esac
  "$NFSTORM" run --dry-run --name=j --rw=write --bs=4k --size=1m --directory="$D" --ioengine=$e \
    >"$T/dry" 2>&1 || fail "$e: dry-run: $(tail -n2 "$T/dry")"
  grep -q " ioengine=$want numjobs=1" "$T/dry" || fail "$e: dry-run: $(grep 'job j' "$T/dry")"
done
# the table's properties in the dry-run: psync keeps one op in flight, the
# libnfs engine has no page cache for direct=1 to bypass; libaio honours both
dry() { "$NFSTORM" run --dry-run --name=j --rw=randread --size=1m --iodepth=8 --direct=1 "$@" 2>&1 | grep 'job j'; }
dry --directory="$D" --ioengine=sync | grep -q 'ioengine=psync iodepth=8 (1 in flight: a synchronous engine) numjobs=1 ops/thread=256 direct$' \
  || fail "psync dry-run: $(dry --directory="$D" --ioengine=sync)"
dry --ioengine=nfs --nfs_url=nfs://127.0.0.1/x | grep -q 'ioengine=nfs iodepth=8 numjobs=1 ops/thread=256 direct (no effect: no page cache)$' \
  || fail "nfs dry-run: $(dry --ioengine=nfs --nfs_url=nfs://127.0.0.1/x)"
dry --directory="$D" --ioengine=libaio | grep -q 'ioengine=libaio iodepth=8 numjobs=1 ops/thread=256 direct$' \
  || fail "libaio dry-run: $(dry --directory="$D" --ioengine=libaio)"
timeout 30 "$NFSTORM" run --local 1 --quiet --json "$T/v.json" --name=v --rw=write --bs=4k --size=1m \
  --directory="$D" --ioengine=vsync >"$T/out" 2>&1 || fail "vsync run: $(tail -n2 "$T/out")"
py "$T/v.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert (w["ops"], w["bytes"], w["errors"]) == (256, 1 << 20, 0), w
PY
"$NFSTORM" run --dry-run --name=j --size=1m --directory="$D" --ioengine=libaoi >"$T/err" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "libaoi: exit $rc, want 2"
grep -qF "'libaoi' (nfstorm's engines are psync (sync, pvsync, vsync, pvsync2), io_uring, libaio, posixaio, nfs, null; and fio's filecreate, filestat, filedelete)" "$T/err" \
  || fail "libaoi: $(cat "$T/err")"
[ "$(grep -c . "$T/err")" -eq 1 ] || fail "libaoi: not one line: $(cat "$T/err")"
echo "fio's engine spellings fold through the table; a typo names every engine"
