#!/usr/bin/env bash
# t0340: rw=metadata through the nfs engine (NFSv3 and NFSv4), 2 agents x
# 2 threads x 50 files: exact op counts per type, no errors, and the export
# is as empty afterwards as before.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export"
nfs_server_start "$T/export" || fail "NFS server did not start"

for v in 3 4; do
  url=$NFS_URL3; [ $v = 4 ] && url=$NFS_URL4
  timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/md$v.json" --name=md$v --ioengine=nfs "--nfs_url=$url" \
    --rw=metadata --md_ops=create,stat,open,readdir,rename,unlink --nrfiles=50 --numjobs=2 --filesize=1k \
    >"$T/out" 2>&1 || fail "v$v: $(tail -n 3 "$T/out")"
  py "$T/md$v.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
want = {"create": 200, "stat": 200, "open": 200, "readdir": 4, "rename": 200, "unlink": 200}
for op, n in want.items():
    o = ph["ops"].get(op)
    assert o, "no %s ops" % op
    assert o["ops"] == n, "%s: %d ops, want %d" % (op, o["ops"], n)
    assert o["errors"] == 0, "%s: %d errors" % (op, o["errors"])
    assert o["ops"] == sum(a["ops"][op]["ops"] for a in ph["agents"]), "%s: merge" % op
assert ph["ops"]["create"]["bytes"] == 200 * 1024, "create bytes %d" % ph["ops"]["create"]["bytes"]
PY
  [ -z "$(ls -A "$T/export")" ] || fail "v$v: the export is not clean: $(ls -A "$T/export" | head -5)"
done
echo "t0340: PASS"
