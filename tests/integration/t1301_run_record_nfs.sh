#!/usr/bin/env bash
# t1301: the run record of libnfs jobs against ganesha: each agent's phase
# storage names the URL, the version the server negotiated (3 and 4) and
# the sizes requests are split at (> 0, equal on both agents: the server's
# maxima for v3, the engine's default for v4, where libnfs gets none, and
# "options" says which); the header shows them;
# `nfstorm report` of the JSON and of the journal print the same header.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export"
nfs_server_start "$T/export" || fail "NFS server did not start"
for v in 3 4; do
  url=$NFS_URL3; [ $v = 4 ] && url=$NFS_URL4
  timeout 60 "$NFSTORM" run --local 2 --quiet --target "ganesha-v$v" --json "$T/v$v.json" --name=n$v \
    --ioengine=nfs "--nfs_url=$url" --rw=randwrite --bs=4k --size=1m --iodepth=4 --runtime=1 --time_based \
    >"$T/run$v.txt" 2>&1 || fail "v$v: $(tail -n 3 "$T/run$v.txt")"
  py "$T/v$v.json" "$url" "$v" <<'PY'
import json, sys
path, url, v = sys.argv[1:]
r = json.load(open(path))
assert r["record"]["target"] == "ganesha-v" + v
sizes = set()
for a in r["phases"][0]["agents"]:
    st = a["storage"]
    assert len(st) == 1, st
    st = st[0]
    assert st["kind"] == "nfs" and st["url"] == url and st["fstype"] == "nfs", st
    assert st["nfsvers"] == v, (st["nfsvers"], v)
    assert st["rsize"] > 0 and st["wsize"] > 0, st
    # ganesha answers FSINFO (v3) with its maxima; libnfs reports none for v4
    assert st["options"] == ("sizes=server" if v == "3" else "sizes=engine-default"), st["options"]
    assert st["rsize"] % 4096 == 0 and st["wsize"] % 4096 == 0, st
    sizes.add((st["rsize"], st["wsize"]))
assert len(sizes) == 1, sizes
PY
  line=$(grep "^storage: " "$T/run$v.txt")
  [ "${line#storage: "$url" }" != "$line" ] || fail "v$v: storage line without the URL: $line"
  echo "${line#storage: "$url" }" | grep -Eq "^\(libnfs, NFSv$v, rsize [0-9.]+[KM]iB, wsize [0-9.]+[KM]iB( \(the engine's: the server gave none\))?\); agents 0-1, phase n$v$" \
    || fail "v$v: storage line: $line"
  sed -n '2,/^$/p' "$T/run$v.txt" >"$T/h.run"
  for f in v$v.json v$v.json.journal; do
    timeout 20 "$NFSTORM" report "$T/$f" >"$T/rep" 2>&1 || fail "report $f: $(tail -n1 "$T/rep")"
    sed -n '2,/^$/p' "$T/rep" | cmp -s - "$T/h.run" || fail "v$v: header from $f differs"
  done
done
echo "t1301: PASS ($(grep -h '^storage:' "$T/run3.txt" "$T/run4.txt" | tr '\n' ' '))"
