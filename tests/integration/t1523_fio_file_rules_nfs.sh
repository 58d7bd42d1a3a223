#!/usr/bin/env bash
# fio's file rules through the NFS engine (ganesha on loopback): a job
# without size reads the existing file's size from the server; a missing
# file is an error naming it, and neither that job nor allow_file_create=0
# creates anything on the export.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
E=$T/export; mkdir -p "$E"; chmod 777 "$E"
head -c $((2 * 1024 * 1024)) /dev/zero >"$E/have.dat"; chmod 666 "$E/have.dat"
nfs_server_start "$E" || skip "cannot start the NFS server here"
run() { timeout 60 "$NFSTORM" run --local 1 --quiet --ioengine=nfs "--nfs_url=$NFS_URL3" "$@" >"$T/o" 2>&1; }

run --json "$T/r.json" --name=fromfile --filename=have.dat --rw=randread --bs=16k \
  || fail "sized by its file: $(tail -n2 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]
assert (o["ops"], o["bytes"]) == (128, 2 << 20), (o["ops"], o["bytes"])
PY
run --name=nofile --filename=none.dat --rw=read && fail "a missing file was accepted"
grep -q "job 'nofile': no size= and a file to size it from is missing: .*none.dat" "$T/o" || fail "$(tail -n2 "$T/o")"
run --name=nocreate --filename=new.dat --rw=write --size=64k --allow_file_create=0 \
  && fail "allow_file_create=0 created a file"
grep -q "job 'nocreate': allow_file_create=0 and a file is missing: .*new.dat" "$T/o" || fail "$(tail -n2 "$T/o")"
[ -e "$E/none.dat" ] || [ -e "$E/new.dat" ] && fail "a file was created: $(ls "$E")"
echo "file rules over NFS"
