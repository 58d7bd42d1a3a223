#!/usr/bin/env bash
# t1726: the libnfs engine lays a file out with data when fio would (any job
# that reads, overwrite=1): a fresh randrw rwmixread=100 job's file in
# ganesha's export (a local directory) has blocks for its whole size
# afterwards, and data, not zeroes.  Before, a mixed job's file was extended
# by one byte at its end and stayed sparse: the server answered its reads
# from a hole.  A plain write job's file stays sparse, as in fio.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export"
nfs_server_start "$T/export" || fail "NFS server did not start"
M=$((8 << 20))

run() {   # NAME ARGS...: one short nfs job on a new 8 MiB file
  local name=$1; shift
  timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/$name.json" --name="$name" --ioengine=nfs \
    "--nfs_url=$NFS_URL3" --bs=4k --size=8m --number_ios=32 --filename="$name.dat" "$@" >"$T/$name.out" 2>&1 ||
    fail "$name: $(tail -n3 "$T/$name.out")"
}
blocks() { echo $(( $(stat -c '%b * %B' "$T/export/$1") )); }

run mix --rw=randrw --rwmixread=100
[ "$(stat -c %s "$T/export/mix.dat")" -eq $M ] || fail "mix.dat: size $(stat -c %s "$T/export/mix.dat")"
[ "$(blocks mix.dat)" -ge $M ] || fail "randrw rwmixread=100 over libnfs: $(blocks mix.dat) bytes allocated, want $M (sparse)"
[ "$(head -c 4096 "$T/export/mix.dat" | tr -d '\0' | wc -c)" -gt 0 ] || fail "mix.dat: the first block is zeroes"
py "$T/mix.json" <<'PY'
import json, sys
rd = json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]
assert rd["ops"] == 32 and rd["errors"] == 0, rd
PY

run ow --rw=write --overwrite=1
[ "$(blocks ow.dat)" -ge $M ] || fail "overwrite=1 over libnfs: $(blocks ow.dat) bytes allocated, want $M"

run w --rw=write
[ "$(stat -c %s "$T/export/w.dat")" -eq $M ] || fail "w.dat: size $(stat -c %s "$T/export/w.dat")"
[ "$(blocks w.dat)" -le $((1 << 20)) ] || fail "a write job's file over libnfs: $(blocks w.dat) bytes allocated, want sparse"

"$NFSTORM" run --dry-run --local 1 --name=j --ioengine=nfs "--nfs_url=$NFS_URL3" --rw=write --size=8m 2>&1 |
  grep -q '^      layout: sizes to 8MiB per file, sparse (no data; nfs has no fallocate)$' ||
  fail "dry-run of an nfs write job: $("$NFSTORM" run --dry-run --local 1 --name=j --ioengine=nfs "--nfs_url=$NFS_URL3" --rw=write --size=8m 2>&1 | grep layout)"
echo "t1726: PASS"
