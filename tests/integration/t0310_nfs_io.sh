#!/usr/bin/env bash
# t0310: the nfs engine end to end on 2 local agents against ganesha, NFSv3
# and NFSv4: 4k randwrite then randread (iodepth 16, numjobs 2) with exact
# merges, no errors and the files' sizes in the export; then the bytes a
# sequential write puts in the export through libnfs equal those the psync
# engine writes into a local directory for the same plan (the job loop's
# buffers are seeded from the plan, agent and thread, not the engine).
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export" "$T/local"
nfs_server_start "$T/export" || fail "NFS server did not start"

for v in 3 4; do
  url=$NFS_URL3; [ $v = 4 ] && url=$NFS_URL4
  for rw in randwrite randread; do
    timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/v$v$rw.json" --name=io$v --ioengine=nfs \
      "--nfs_url=$url" --rw=$rw --bs=4k --size=4m --iodepth=16 --numjobs=2 --runtime=1 --time_based \
      >"$T/out" 2>&1 || fail "v$v $rw: $(tail -n 3 "$T/out")"
    check_merge "$T/v$v$rw.json" $rw 4096
    py "$T/v$v$rw.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["finished"], "phase not finished"
PY
  done
  for a in 0 1; do for t in 0 1; do
    f=$T/export/io$v.$a.$t.0
    [ -f "$f" ] || fail "v$v: no file $f in the export"
    [ "$(stat -c %s "$f")" -eq $((4 * 1024 * 1024)) ] || fail "v$v: $f has $(stat -c %s "$f") bytes, want 4 MiB"
  done; done

  # Same plan through psync into a local dir and through nfs into the export.
  # (scramble_buffers=0: the default stamps each write with a per-run value,
  # as fio stamps the time, so two runs never write the same bytes)
  common=(--name=same$v --rw=write --bs=64k --size=2m --iodepth=1 --scramble_buffers=0)
  timeout 60 "$NFSTORM" run --local 1 --quiet "${common[@]}" "--directory=$T/local" >"$T/out" 2>&1 \
    || fail "v$v psync write: $(tail -n 3 "$T/out")"
  timeout 60 "$NFSTORM" run --local 1 --quiet "${common[@]}" --ioengine=nfs "--nfs_url=$url" >"$T/out" 2>&1 \
    || fail "v$v nfs write: $(tail -n 3 "$T/out")"
  cmp "$T/local/same$v.0.0.0" "$T/export/same$v.0.0.0" || fail "v$v: bytes written through libnfs differ from psync's"
  [ "$(stat -c %s "$T/export/same$v.0.0.0")" -eq $((2 * 1024 * 1024)) ] || fail "v$v: same$v has the wrong size"
done
echo "t0310: PASS"
