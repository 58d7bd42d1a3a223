#!/usr/bin/env bash
# unlink=1 deletes the files the job created in this run, never a file
# that was there before (here: a laid-out file the user made).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
head -c $((2 << 20)) /dev/urandom >"$D/pre.dat"
sum=$(md5sum <"$D/pre.dat")
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/a.json" --name=r --rw=read --bs=4k --size=2m \
  --filename="$D/pre.dat" --unlink=1 >"$T/o" 2>&1 || fail "read run: $(tail -n1 "$T/o")"
[ -f "$D/pre.dat" ] || fail "unlink=1 deleted a file it did not create"
[ "$(md5sum <"$D/pre.dat")" = "$sum" ] || fail "a read job changed the existing file"
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/b.json" --name=w --rw=write --bs=64k --size=1m \
  --numjobs=2 --directory="$D" --unlink=1 >"$T/o" 2>&1 || fail "write run: $(tail -n1 "$T/o")"
py "$T/b.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert w["ops"] == 2 * 2 * 16 and w["errors"] == 0, w
PY
left=$(ls "$D" | grep -v '^pre.dat$' | wc -l)
[ "$left" -eq 0 ] || fail "unlink=1 left $left files: $(ls "$D")"
echo "unlink deletes only what the run created"
