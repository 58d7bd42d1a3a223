#!/usr/bin/env bash
# t0900: a metadata job only removes or replaces what it created in this run
# (issue 15 item 1, kernel mount).  Data files laid out by a write job of the
# same name survive md_ops=unlink and md_ops=create,stat,unlink (the creates
# fail EEXIST, counted and named); a pre-existing <name>.r is neither
# overwritten by rename nor removed; pre-existing empty directories (a
# <name>.d for rmdir, a shared subdirectory d<k>) are not removed.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
run() {  # run JSON [keys...]: the exit status; output in $T/o
  local j=$1; shift
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$j.json" "$@" >"$T/o" 2>&1
}
sums() { (cd "$1" && find . -type f -exec md5sum {} + | sort); }

# 1. rw=write nrfiles=3, then metadata jobs of the same name in the same directory
mkdir -p "$D/data"
run w --name=ds --rw=write --bs=4k --size=48k --nrfiles=3 --directory="$D/data" || fail "write run: $(tail -n1 "$T/o")"
[ "$(find "$D/data" -type f | wc -l)" -eq 3 ] || fail "the write run made $(find "$D/data" -type f | wc -l) files, want 3"
before=$(sums "$D/data")
run u --name=ds --rw=metadata --nrfiles=3 --shared_dir=1 --md_ops=unlink --directory="$D/data"; rc=$?
[ "$(sums "$D/data")" = "$before" ] || fail "md_ops=unlink removed or changed data files it did not create: $(ls "$D/data")"
[ $rc -eq 1 ] || fail "md_ops=unlink on names it does not hold: exit $rc, want 1"
py "$T/u.json" <<'PY'
import json, sys
u = json.load(open(sys.argv[1]))["phases"][0]["ops"]["unlink"]
assert (u["ops"], u["errors"]) == (3, 3), u
PY
run c --name=ds --rw=metadata --nrfiles=3 --shared_dir=1 --md_ops=create,stat,unlink --directory="$D/data"; rc=$?
[ "$(sums "$D/data")" = "$before" ] || fail "md_ops=create,stat,unlink removed or changed data files: $(ls "$D/data")"
[ $rc -eq 1 ] || fail "creates that met existing names: exit $rc, want 1"
grep -q "ds.0.0.0: create failed: EEXIST (File exists): this run did not create it, so it was left alone (3 failed ops like it)" "$T/o" ||
  fail "the EEXIST failures are not named: $(tail -n2 "$T/o")"
py "$T/c.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
assert ph["verdict"] == "failed", ph["verdict"]
for op in ("create", "stat", "unlink"):
    o = ph["ops"][op]
    assert (o["ops"], o["errors"]) == (3, 3), (op, o)
assert any("3 of 3 create ops failed" in r and "EEXIST" in r for r in ph["reasons"]), ph["reasons"]
PY

# 2. a pre-existing X.r is not overwritten by rename, nor removed
mkdir -p "$D/ren"
echo precious >"$D/ren/m.0.0.0.r"
run r --name=m --rw=metadata --nrfiles=2 --shared_dir=1 --md_ops=create,rename,unlink --directory="$D/ren"; rc=$?
[ "$(cat "$D/ren/m.0.0.0.r" 2>/dev/null)" = precious ] || fail "rename overwrote or removed a pre-existing m.0.0.0.r"
[ "$(ls "$D/ren")" = "m.0.0.0.r" ] || fail "left behind or removed: $(ls "$D/ren")"
[ $rc -eq 1 ] || fail "a rename onto an existing name: exit $rc, want 1"
grep -q "m.0.0.0.r: rename failed: EEXIST" "$T/o" || fail "the refused rename is not named: $(tail -n2 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))["phases"][0]["ops"]
assert (ops["create"]["ops"], ops["create"]["errors"]) == (2, 0), ops["create"]
assert (ops["rename"]["ops"], ops["rename"]["errors"]) == (2, 1), ops["rename"]
assert (ops["unlink"]["ops"], ops["unlink"]["errors"]) == (2, 0), ops["unlink"]
PY

# 3. a pre-existing empty <name>.d is not removed by rmdir
mkdir -p "$D/dirs/m.0.0.1.d"
run d --name=m --rw=metadata --nrfiles=3 --shared_dir=1 --md_ops=mkdir,rmdir --directory="$D/dirs"; rc=$?
[ -d "$D/dirs/m.0.0.1.d" ] || fail "rmdir removed a pre-existing empty directory"
[ "$(ls "$D/dirs")" = "m.0.0.1.d" ] || fail "left behind: $(ls "$D/dirs")"
[ $rc -eq 1 ] || fail "a mkdir onto an existing directory: exit $rc, want 1"
py "$T/d.json" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))["phases"][0]["ops"]
assert (ops["mkdir"]["ops"], ops["mkdir"]["errors"]) == (3, 1), ops["mkdir"]
assert (ops["rmdir"]["ops"], ops["rmdir"]["errors"]) == (3, 1), ops["rmdir"]
PY

# 4. a pre-existing empty subdirectory d0 (files_per_dir) stays; d1, made by the run, goes
mkdir -p "$D/sub/d0"
run s --name=m --rw=metadata --nrfiles=4 --files_per_dir=2 --shared_dir=1 --numjobs=2 \
  --md_ops=create,stat,unlink --directory="$D/sub" || fail "files_per_dir run: $(tail -n1 "$T/o")"
[ -d "$D/sub/d0" ] || fail "a pre-existing empty subdirectory d0 was removed"
[ "$(ls "$D/sub")" = "d0" ] || fail "left behind: $(ls "$D/sub")"
py "$T/s.json" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))["phases"][0]["ops"]
for op in ("create", "stat", "unlink"):
    assert (ops[op]["ops"], ops[op]["errors"]) == (8, 0), (op, ops[op])
PY
echo "t0900: metadata jobs remove and replace only what they created"
