#!/usr/bin/env bash
# A full NFS export (ganesha exporting a 16 MiB tmpfs), NFSv3 and NFSv4:
# the agent refuses a phase that cannot fit with the server's figures
# (FSSTAT); an export that fills up during a write phase ends the job at
# once with ENOSPC and the server's status (NFS3ERR_NOSPC / NFS4ERR_NOSPC)
# named, never "Bad address"; the agent serves the next run (issue 9,
# defects 11 and 14, agent side).
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
E=$T/export; mkdir -p "$E"
mount -t tmpfs -o size=16m tmpfs "$E" 2>/dev/null || skip "cannot mount a tmpfs here"
chmod 777 "$E"
trap 'nfs_server_stop; umount "$E" 2>/dev/null; cleanup' EXIT
nfs_server_start "$E" || fail "NFS server did not start"
start_agent "$T" --allow-nfs "nfs://127.0.0.1/"
run() {  # run NAME URL ARGS...
  local name=$1 url=$2; shift 2
  timeout 90 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$name.json" --name="$name" \
    --ioengine=nfs "--nfs_url=$url" "$@" >"$T/$name" 2>&1; rc=$?
}
for v in 3 4; do
  url=$NFS_URL3; [ $v = 4 ] && url=$NFS_URL4
  # 1. pre-flight with the export's figures
  run pre$v "$url" --rw=write --bs=1m --size=64m
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "v$v: 64 MiB into 16 MiB: exit $rc"
  grep -Eq "not enough space: needs 64MiB, 1[0-6](\.[0-9]+)?MiB free on nfs://" "$T/pre$v" \
    || fail "v$v: pre-flight refusal without figures: $(tail -n1 "$T/pre$v")"
  # 1b. two jobs on two URLs of the one export (one with a tuning option
  #     more): their needs are summed on it (before: each URL was a place
  #     of its own, both passed, and the second ran out laying out)
  printf '[global]\nioengine=nfs\nrw=write\nbs=64k\nsize=10m\n[a]\nnfs_url=%s\n[b]\nnfs_url=%s&dircache=0\n' \
    "$url" "$url" >"$T/two$v.fio"
  timeout 90 "$NFSTORM" run "$T/two$v.fio" --agents "$AGENT_ADDR" --quiet >"$T/two$v" 2>&1; rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "v$v: two URLs past the free space: exit $rc: $(tail -n2 "$T/two$v")"
  grep -Eq "job 'a': not enough space: needs 20MiB, 1[0-6](\.[0-9]+)?MiB free on nfs://" "$T/two$v" \
    || { cat "$T/two$v" >&2; fail "v$v: two URLs of one export not summed"; }
  rm -f "$E"/*
  # 2. filled during the phase (in its startdelay, once "started on" says
  #    the space check is behind it): ENOSPC and the NFS status named
  SECONDS=0
  timeout 90 "$NFSTORM" run --agents "$AGENT_ADDR" --json "$T/fill$v.json" --name="fill$v" \
    --ioengine=nfs "--nfs_url=$url" --rw=write --bs=64k --size=8m --startdelay=3 --runtime=60 \
    --time_based >"$T/fill$v" 2>&1 &
  bg=$!
  wait_grep "$T/fill$v" "phase 1/1 fill$v: started on" || fail "v$v: the fill phase did not start: $(tail -n2 "$T/fill$v")"
  dd if=/dev/zero of="$E/filler" bs=1M count=12 status=none 2>/dev/null
  wait $bg; rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "v$v: export full during the phase: exit $rc: $(tail -n2 "$T/fill$v")"
  [ $SECONDS -le "$(bound_s 30)" ] || fail "v$v: export full during the phase: the run went on for ${SECONDS}s (goal 30 s + 2 baselines of ${BASE_MS} ms)"
  grep -q "write failed: ENOSPC (No space left on device)" "$T/fill$v" \
    || fail "v$v: full export not named ENOSPC: $(grep -m1 -iE 'error|fail' "$T/fill$v")"
  grep -q "NFS${v}ERR_NOSPC" "$T/fill$v" || fail "v$v: NFS status not named: $(grep -m1 -i enospc "$T/fill$v")"
  grep -qi "bad address" "$T/fill$v" && fail "v$v: still 'Bad address'"
  rm -f "$E"/*
  # 3. the next run is served
  run after$v "$url" --rw=write --bs=4k --size=1m
  [ $rc -eq 0 ] || fail "v$v: run after a full export: exit $rc: $(tail -n1 "$T/after$v")"
  rm -f "$E"/*
done
echo "full NFS export (v3, v4): refused with figures, ENOSPC and NFSxERR_NOSPC named, agent serves on"
