#!/usr/bin/env bash
# t0903: unlink=1 of a data job resolves beneath --allow too (issue 15
# item 2: every path-taking op on the kernel-mount path).  While a
# time_based write job with unlink=1 runs, its directory is swapped for a
# symlink to a directory outside --allow holding a sentinel named like the
# job's file: the unlink at the end does not follow it (the sentinel
# survives), and the job's own file, now in the moved directory, is left
# rather than looked for through the symlink.
source "$(dirname "$0")/lib.sh"
D=$T/allowed; O=$T/outside; mkdir -p "$D/data" "$O"
start_agent "$D"
echo sentinel >"$O/w.0.0.0"
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/w.json" --name=w --rw=write --bs=4k \
  --size=256k --runtime=3 --time_based --unlink=1 --directory="$D/data" >"$T/o" 2>&1 &
rp=$!
for _ in $(seq 100); do [ -f "$D/data/w.0.0.0" ] && break; sleep 0.05; done
sleep 0.5
ln -s "$O" "$D/data.moved"
python3 - "$D/data" "$D/data.moved" <<'PY' || fail "could not swap the directory"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2) != 0:   # RENAME_EXCHANGE
    sys.exit(os.strerror(ctypes.get_errno()))
PY
[ -L "$D/data" ] && [ -f "$D/data.moved/w.0.0.0" ] || fail "the swap did not happen"
wait $rp; rc=$?
[ "$(cat "$O/w.0.0.0" 2>/dev/null)" = sentinel ] || fail "unlink=1 followed the symlink and removed a file outside --allow"
[ "$(ls -A "$O")" = "w.0.0.0" ] || fail "files appeared outside --allow: $(ls -A "$O")"
[ $rc -eq 0 ] || fail "exit $rc: $(tail -n1 "$T/o")"
py "$T/w.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert w["ops"] > 0 and w["errors"] == 0, w
PY
echo "t0903: unlink=1 does not follow a symlink swapped in for the job's directory"
