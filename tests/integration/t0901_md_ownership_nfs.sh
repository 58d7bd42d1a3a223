#!/usr/bin/env bash
# t0901: through libnfs (NFSv3 and NFSv4) a metadata job only removes or
# replaces what it created (issue 15 item 1): files already on the export
# under the job's names are neither truncated nor removed (the creates fail
# EEXIST, counted and named), and a pre-existing <name>.r is not replaced by
# rename, and a pre-existing empty <name>.d is not removed by rmdir.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
E=$T/export; mkdir -p "$E"
nfs_server_start "$E" || fail "NFS server did not start"
sums() { (cd "$E" && find . -type f -exec md5sum {} + | sort); }

for v in 3 4; do
  url=$NFS_URL3; [ $v = 4 ] && url=$NFS_URL4
  rm -rf "${E:?}"/*
  for i in 0 1 2; do head -c 8192 /dev/urandom >"$E/ds$v.0.0.$i"; done
  echo precious >"$E/mv$v.0.0.0.r"
  before=$(sums)
  timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/c$v.json" --name=ds$v --ioengine=nfs "--nfs_url=$url" \
    --rw=metadata --nrfiles=3 --shared_dir=1 --filesize=1k --md_ops=create,stat,unlink >"$T/o" 2>&1; rc=$?
  [ "$(sums)" = "$before" ] || fail "v$v: a metadata job truncated or removed files it did not create: $(ls -l "$E")"
  [ $rc -eq 1 ] || fail "v$v: creates that met existing names: exit $rc, want 1: $(tail -n1 "$T/o")"
  grep -q "ds$v.0.0.0: create failed: EEXIST (File exists): this run did not create it" "$T/o" ||
    fail "v$v: the EEXIST failures are not named: $(tail -n2 "$T/o")"
  py "$T/c$v.json" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))["phases"][0]["ops"]
for op in ("create", "stat", "unlink"):
    assert (ops[op]["ops"], ops[op]["errors"]) == (3, 3), (op, ops[op])
PY
  timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r$v.json" --name=mv$v --ioengine=nfs "--nfs_url=$url" \
    --rw=metadata --nrfiles=2 --shared_dir=1 --md_ops=create,rename,unlink >"$T/o" 2>&1; rc=$?
  [ "$(cat "$E/mv$v.0.0.0.r" 2>/dev/null)" = precious ] || fail "v$v: rename replaced or removed a pre-existing mv$v.0.0.0.r"
  [ "$(sums)" = "$before" ] || fail "v$v: left behind or changed: $(ls "$E")"
  [ $rc -eq 1 ] || fail "v$v: a rename onto an existing name: exit $rc, want 1"
  grep -q "mv$v.0.0.0.r: rename failed: EEXIST" "$T/o" || fail "v$v: the refused rename is not named: $(tail -n2 "$T/o")"
  py "$T/r$v.json" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))["phases"][0]["ops"]
assert (ops["create"]["ops"], ops["create"]["errors"]) == (2, 0), ops["create"]
assert (ops["rename"]["ops"], ops["rename"]["errors"]) == (2, 1), ops["rename"]
assert (ops["unlink"]["ops"], ops["unlink"]["errors"]) == (2, 0), ops["unlink"]
PY
  mkdir "$E/dd$v.0.0.1.d"
  timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/d$v.json" --name=dd$v --ioengine=nfs "--nfs_url=$url" \
    --rw=metadata --nrfiles=3 --shared_dir=1 --md_ops=mkdir,rmdir >"$T/o" 2>&1; rc=$?
  [ -d "$E/dd$v.0.0.1.d" ] || fail "v$v: rmdir removed a pre-existing empty directory"
  [ "$(ls "$E" | grep -c '^dd')" -eq 1 ] || fail "v$v: left behind: $(ls "$E")"
  [ $rc -eq 1 ] || fail "v$v: a mkdir onto an existing directory: exit $rc, want 1"
  py "$T/d$v.json" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))["phases"][0]["ops"]
assert (ops["mkdir"]["ops"], ops["mkdir"]["errors"]) == (3, 1), ops["mkdir"]
assert (ops["rmdir"]["ops"], ops["rmdir"]["errors"]) == (3, 1), ops["rmdir"]
PY
done
echo "t0901: PASS"
