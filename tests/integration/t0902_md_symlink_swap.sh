#!/usr/bin/env bash
# t0902: metadata ops stay beneath --allow (issue 15 item 2).  While a
# time_based metadata job runs, its directory is swapped for a symlink to a
# directory outside --allow (one holding a sentinel named like the job's
# file 0): nothing outside is touched (the sentinel survives unchanged, no
# file appears there), and the job goes on in its own directory, counting
# every op, leaving it clean.  Also with shared_dir=0 (the job's own
# subdirectory) and files_per_dir (subdirectories d<k>): the symlink swapped
# in for a subdirectory cannot lead outside either.
source "$(dirname "$0")/lib.sh"
D=$T/allowed; O=$T/outside; mkdir -p "$D" "$O"
start_agent "$D"
swap_run() {  # swap_run CASE DIR-TO-SWAP [keys...]
  local c=$1 victim=$2; shift 2
  rm -rf "${O:?}"/*
  echo sentinel >"$O/m.0.0.0"; echo sentinel >"$O/m.0.0.0.r"
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$c.json" --name=m --rw=metadata \
    --md_ops=create,stat,open,readdir,rename,unlink --nrfiles=20 --runtime=3 --time_based "$@" >"$T/$c.out" 2>&1 &
  local rp=$!
  # swap once the job is working in it
  for _ in $(seq 100); do [ -n "$(find "$victim" -mindepth 1 -print -quit 2>/dev/null)" ] && break; sleep 0.05; done
  sleep 0.5
  # atomically (renameat2 RENAME_EXCHANGE): the name never goes missing, so
  # the job cannot make the directory again in between
  ln -s "$O" "$victim.moved" && python3 - "$victim" "$victim.moved" <<'PY' || fail "$c: could not swap $victim"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
if libc.renameat2(AT_FDCWD, sys.argv[1].encode(), AT_FDCWD, sys.argv[2].encode(), RENAME_EXCHANGE) != 0:
    sys.exit(os.strerror(ctypes.get_errno()))
PY
  [ -L "$victim" ] && [ -d "$victim.moved" ] && [ ! -L "$victim.moved" ] || fail "$c: the swap did not happen"
  wait $rp; local rc=$?
  [ "$(cat "$O/m.0.0.0" 2>/dev/null)" = sentinel ] || fail "$c: the sentinel outside --allow was removed or changed"
  [ "$(cat "$O/m.0.0.0.r" 2>/dev/null)" = sentinel ] || fail "$c: the sentinel .r outside --allow was removed or changed"
  [ "$(ls -A "$O" | wc -l)" -eq 2 ] || fail "$c: files appeared outside --allow: $(ls -A "$O" | head -5)"
  [ $rc -eq 0 ] || fail "$c: exit $rc: $(tail -n2 "$T/$c.out")"
  py "$T/$c.json" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))["phases"][0]["ops"]
c = ops["create"]["ops"]
assert c >= 40, "only %d creates in 3 s" % c
# a pass is create, stat, open, readdir, rename, unlink over 20 files: the
# time cuts the last one anywhere
for op in ("create", "stat", "open", "rename", "unlink"):
    assert ops[op]["errors"] == 0 and c - 20 <= ops[op]["ops"] <= c, (op, ops[op])
PY
  [ -z "$(find "$victim.moved" -type f)" ] || fail "$c: files left in the job's directory: $(find "$victim.moved" -type f | head -3)"
  rm -rf "$victim" "$victim.moved"
}
mkdir -p "$D/md"
swap_run shared "$D/md" --shared_dir=1 --directory="$D/md"
mkdir -p "$D/own"
swap_run own "$D/own/m.0.0" --directory="$D/own"
mkdir -p "$D/sub"
swap_run sub "$D/sub/d0" --shared_dir=1 --files_per_dir=20 --directory="$D/sub"
echo "t0902: a symlink swapped in for the metadata directory leads nowhere outside --allow"
