#!/usr/bin/env bash
# Failed ops name their cause on the nfs engine too (issue 21, item 2),
# against ganesha, NFSv3 and NFSv4: a file truncated on the server while a
# read phase runs gives `short read at offset X (file is 0 bytes)` (the
# size from a GETATTR; the export keeps no attribute cache, so the server
# answers what the file is), and a full export (a 16 MiB tmpfs, as t1432)
# gives the server's status, NFS3ERR_NOSPC / NFS4ERR_NOSPC, as the failed
# writes' cause in the text and the JSON.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
# one tmpfs per version: the server may keep the first one's files open
# (its descriptor cache) after they are removed, and their space with them
E=$T/export; mkdir -p "$E/small3" "$E/small4"
mount -t tmpfs -o size=16m tmpfs "$E/small3" 2>/dev/null || skip "cannot mount a tmpfs here"
mount -t tmpfs -o size=16m tmpfs "$E/small4" 2>/dev/null || { umount "$E/small3"; skip "cannot mount a tmpfs here"; }
chmod 777 "$E" "$E/small3" "$E/small4"
trap 'nfs_server_stop; umount "$E/small3" "$E/small4" 2>/dev/null; cleanup' EXIT
NFS_EXPORT_EXTRA="Attr_Expiration_Time = 0;" nfs_server_start "$E" || fail "NFS server did not start"
host=$(hostname)
for v in 3 4; do
  url=$NFS_URL3; [ $v = 4 ] && url=$NFS_URL4
  head -c 262144 /dev/urandom >"$E/r.dat"
  timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r$v.json" --name=r --ioengine=nfs "--nfs_url=$url" \
    --filename=r.dat --rw=randread --bs=4k --size=256k --runtime=3 --time_based >"$T/r$v" 2>&1 &
  c=$!
  wait_intervals "$T/r$v.json.journal" 1 || fail "v$v: no interval: $(tail -n2 "$T/r$v")"
  truncate -s 0 "$E/r.dat"
  wait $c; rc=$?
  [ $rc -eq 1 ] || fail "v$v: reads of a truncated file: exit $rc, want 1: $(tail -n2 "$T/r$v")"
  grep -Eq "^  agent 0 \($host\) read: [0-9]+ x short read at offset [0-9]+ \(file is 0 bytes\) in r.dat$" "$T/r$v" \
    || fail "v$v: no short read cause: $(grep -A3 '^errors' "$T/r$v")"

  timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/f$v.json" --name=f --ioengine=nfs "--nfs_url=$url" \
    --directory=small$v --numjobs=3 --rw=write --bs=256k --size=8m >"$T/f$v" 2>&1; rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "v$v: 24 MiB into 16 MiB: exit $rc"
  grep -Eq "^  agent 0 \($host\) write: [0-9]+ x NFS${v}ERR_NOSPC, first at offset [0-9]+ in small$v/f\.0\.[0-2]\.0$" \
    "$T/f$v" || fail "v$v: no NFS${v}ERR_NOSPC cause: $(grep -A4 '^errors' "$T/f$v")"
  py "$T/r$v.json" "$T/f$v.json" "$v" <<'PY'
import json, sys
v = sys.argv[3]
ph = json.load(open(sys.argv[1]))["phases"][0]
rd = ph["ops"]["read"]
c = ph["agents"][0]["errors"]["read"]
assert c["failed"] == rd["errors"] > 0 and c["other"] == 0, (c, rd)
sr = [x for x in c["causes"] if x["kind"] == "short_read"]
assert len(sr) == 1 and sr[0]["file_size"] == 0 and sr[0]["file"] == "r.dat", c["causes"]
assert rd["lat_ns"]["hist"]["count"] == rd["ops"] - rd["errors"], rd
ph = json.load(open(sys.argv[2]))["phases"][0]
w = ph["ops"]["write"]
c = ph["agents"][0]["errors"]["write"]
name = "NFS%sERR_NOSPC" % v
nospc = [x for x in c["causes"] if x["kind"] == "nfs" and x["name"] == name]
assert len(nospc) == 1 and nospc[0]["count"] >= 1 and nospc[0]["text"] == name, c["causes"]
assert c["failed"] == w["errors"] == sum(x["count"] for x in c["causes"]) + c["other"], (c, w)
assert ph["errors"]["write"]["failed"] == w["errors"], ph["errors"]
assert w["lat_ns"]["hist"]["count"] == w["ops"] - w["errors"], w
PY
done
echo "ok: the nfs engine's failed ops name a short read's file size and the server's NFS status"
