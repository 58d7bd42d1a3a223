#!/usr/bin/env bash
# t1432: a full export (a 16 MiB tmpfs mounted under the export before the
# server starts, as the issue's check lays it out), NFSv3 and NFSv4: three
# jobs writing 8 MiB each fill it during the phase (each file fits, so the
# layout passes), the job's error and the report name the server's
# status (NFS3ERR_NOSPC / NFS4ERR_NOSPC), and the telemetry counts it under
# WRITE by that name, in the JSON and the text report's NFS section.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
E=$T/export; mkdir -p "$E/small"
mount -t tmpfs -o size=16m tmpfs "$E/small" 2>/dev/null || skip "cannot mount a tmpfs here"
chmod 777 "$E" "$E/small"
trap 'nfs_server_stop; umount "$E/small" 2>/dev/null; cleanup' EXIT
nfs_server_start "$E" || fail "NFS server did not start"

for v in 3 4; do
  url=$NFS_URL3; [ $v = 4 ] && url=$NFS_URL4
  timeout 60 "$NFSTORM" run --local 1 --json "$T/f$v.json" --name=f --ioengine=nfs "--nfs_url=$url" \
    --directory=small --numjobs=3 --rw=write --bs=256k --size=8m >"$T/f$v" 2>&1; rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "v$v: 24 MiB into 16 MiB: exit $rc"
  grep -q "failed: ENOSPC (No space left on device)" "$T/f$v" \
    || fail "v$v: not named ENOSPC: $(grep -m1 -iE 'error|fail' "$T/f$v" | cut -c1-200)"
  grep -qi "bad address" "$T/f$v" && fail "v$v: 'Bad address'"
  py "$T/f$v.json" "$T/f$v" "$v" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read(); v = sys.argv[3]
ph = d["phases"][0]
name = "NFS%sERR_NOSPC" % v
w = ph["nfs"]["rpc"]["WRITE"]
assert w["status"].get(name, 0) >= 1, "v%s: WRITE statuses %s" % (v, w["status"])
assert w["errors"] == sum(w["status"].values()) + w["status_other"], w
assert name in ph["agents"][0]["error"], ph["agents"][0].get("error")
assert ph["ran"], "v%s: the phase did not run" % v
assert ph["verdict"] == "failed" and any(name in r for r in ph["reasons"]), ph["reasons"]
m = re.search(r"^  nfs errors:.* WRITE %s x(\d+)" % name, text, re.M)
assert m and int(m.group(1)) == w["status"][name], "v%s: no NFS error line for %s" % (v, name)
print("v%s: WRITE %d calls, %s x%d" % (v, w["calls"], name, w["status"][name]))
PY
  rm -f "$E/small/"*
done
echo "t1432: PASS"
