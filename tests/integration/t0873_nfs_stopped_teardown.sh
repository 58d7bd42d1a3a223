#!/usr/bin/env bash
# The NFS server stops answering (SIGSTOP) in the middle of a phase: the
# run ends with its verdict, and the agent is idle for the next coordinator
# at once (reviewer's finding, issue 9 defects 1 and 5).  Ending the phase
# used to close each file with a synchronous NFS call that waited the 10 s
# RPC timeout, one job after the other: the next coordinator waited 20 s
# for 2 jobs of 1 file (minutes for more files), past lease + 5 s.
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'kill -CONT $NFS_PID 2>/dev/null; nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export"
nfs_server_start "$T/export" || fail "NFS server did not start"
D=$T/d; mkdir -p "$D"
start_agent "$D" --allow-nfs "$NFS_URL3" --lease 2s

timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/r.json" --name=t --ioengine=nfs \
  "--nfs_url=$NFS_URL3" --rw=randwrite --bs=4k --size=4m --iodepth=4 --numjobs=2 --runtime=4 \
  --time_based >"$T/out" 2>&1 &
c=$!
wait_intervals "$T/r.json.journal" 2 || fail "the phase did not start: $(tail -n2 "$T/out")"
kill -STOP "$NFS_PID"
wait $c; rc=$?
[ $rc -eq 1 ] || fail "run with the server stopped: exit $rc, want 1: $(tail -n2 "$T/out")"
py "$T/r.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
w = p["ops"]["write"]
assert p["verdict"] == "failed", p["verdict"]
assert w["ops"] > 0 and 0 < w["errors"] <= 8, w     # the ops out when it stopped (2 jobs x 4)
PY
# the server is still stopped: a run that does not use it is served at once
SECONDS=0
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/n.json" --name=n --rw=write --bs=4k \
  --size=1m --filename="$D/n" >"$T/n" 2>&1 || fail "next run: $(tail -n1 "$T/n")"
[ $SECONDS -le "$(bound_s 7)" ] || fail "next run served after ${SECONDS}s (goal: lease 2 s + 5 s, + 2 baselines of ${BASE_MS} ms)"
py "$T/n.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 256
PY
kill -CONT "$NFS_PID"
echo "server stopped mid-phase: exit 1, next run served in ${SECONDS}s"
