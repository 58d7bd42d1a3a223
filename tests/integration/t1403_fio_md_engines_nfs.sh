#!/usr/bin/env bash
# fio's metadata engines on the libnfs family: the same job file habit with
# nfs_url= set (after the ioengine line) runs as rw=metadata jobs of the
# nfs engine against ganesha (NFSv3), 2 local agents: exact create / stat /
# unlink counts and bytes, no errors, and the export is empty afterwards.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export"
nfs_server_start "$T/export" || fail "NFS server did not start"
cat >"$T/md.fio" <<EOF2
[global]
filesize=1k

[mk]
ioengine=filecreate
nfs_url=$NFS_URL3
nrfiles=25

[st]
stonewall
ioengine=filestat
nfs_url=$NFS_URL3
nrfiles=15

[rm]
stonewall
ioengine=filedelete
nfs_url=$NFS_URL3
nrfiles=10
EOF2
"$NFSTORM" run --dry-run "$T/md.fio" >"$T/dry" 2>&1 || fail "dry-run: $(tail -n2 "$T/dry")"
[ "$(grep -c 'ioengine=nfs' "$T/dry")" -eq 3 ] || fail "dry-run: $(grep 'job ' "$T/dry")"
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/md.json" "$T/md.fio" >"$T/out" 2>&1 \
  || fail "run: $(tail -n3 "$T/out")"
py "$T/md.json" <<'PY'
import json, sys
phases = json.load(open(sys.argv[1]))["phases"]
want = [{"create": (50, 0)},
        {"create": (30, 30 * 1024), "stat": (30, 0)},
        {"create": (20, 20 * 1024), "unlink": (20, 0)}]
assert len(phases) == 3, len(phases)
for ph, ops in zip(phases, want):
    got = {k: v for k, v in ph["ops"].items() if v["ops"]}
    assert ph["rw"] == "metadata" and set(got) == set(ops), (ph["name"], sorted(got))
    for op, (n, nbytes) in ops.items():
        o = got[op]
        assert (o["ops"], o["bytes"], o["errors"]) == (n, nbytes, 0), (ph["name"], op, o)
        assert o["ops"] == sum(a["ops"][op]["ops"] for a in ph["agents"]), (ph["name"], op)
PY
[ -z "$(ls -A "$T/export")" ] || fail "the export is not clean: $(ls -A "$T/export" | head -5)"
echo "filecreate/filestat/filedelete over libnfs: exact op counts, export clean"
