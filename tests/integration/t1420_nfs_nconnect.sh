#!/usr/bin/env bash
# t1420: nconnect=N opens N TCP connections per job to the NFS server and
# spreads requests over all of them (issue 14).  While a job runs, ss counts
# the agent's established connections to ganesha's NFS port (nconnect=1 ->
# 1, nconnect=4 -> 4, nconnect=4 with numjobs=2 -> 8) and each one's data
# segments sent; the agent's debug log names every connection with its op
# count, and those counts add up to the ops in the result (plus the
# layout's one write per job).  nconnect=17 is
# refused with the plan's line and key.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
command -v ss >/dev/null 2>&1 || skip "ss (iproute2) is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export" "$T/local"
nfs_server_start "$T/export" || fail "NFS server did not start"

# The agent's established sockets to the NFS port: "segs" per line.
nfs_conns() {
  ss -tnpiH state established "( dport = :$NFS_PORT )" 2>/dev/null |
    awk -v pid="pid=$1," '
      /^[0-9]/ || /^ *[0-9]/ { keep = index($0, pid) > 0; next }
      keep { s = 0; if (match($0, /data_segs_out:[0-9]+/)) s = substr($0, RSTART + 14, RLENGTH - 14); print s; keep = 0 }'
}

case_run() {   # NCONNECT NUMJOBS WANT
  local n=$1 jobs=$2 want=$3 tag=c$1j$2 max=0 segs=""
  start_agent "$T/local" --verbose --allow-nfs "nfs://127.0.0.1$T/export"
  local log; log=$(ls -t "$T"/agent.*.log | grep -v '\.out$' | head -n 1)
  timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$tag.json" --name=$tag \
    --ioengine=nfs "--nfs_url=$NFS_URL3" --nconnect=$n --numjobs=$jobs --rw=randwrite --bs=4k \
    --size=1m --iodepth=4 --runtime=1 --time_based >"$T/$tag.out" 2>&1 &
  local run=$!
  # sample while the timed window runs: keep the largest set seen
  for _ in $(seq 40); do
    sleep 0.1
    mapfile -t now < <(nfs_conns "$AGENT_PID")
    if [ ${#now[@]} -gt "$max" ]; then max=${#now[@]}; fi
    if [ ${#now[@]} -eq "$want" ]; then segs="${now[*]}"; fi
    kill -0 $run 2>/dev/null || break
  done
  wait $run || fail "$tag: run failed: $(tail -n 3 "$T/$tag.out")"
  [ "$max" -eq "$want" ] || fail "$tag: saw at most $max connections to port $NFS_PORT, want $want"
  [ -n "$segs" ] || fail "$tag: never saw all $want connections at once"
  for s in $segs; do
    [ "$s" -ge 20 ] || fail "$tag: a connection sent only $s data segments ($segs)"
  done
  kill "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null
  py "$T/$tag.json" "$log" "$n" "$jobs" <<'PY'
import json, re, sys
path, log, n, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ph = json.load(open(path))["phases"][0]
w = ph["ops"]["write"]
assert w["errors"] == 0 and w["ops"] > 100, w
per = {}
for m in re.finditer(r"nfs: agent 0 job (\d+): connection (\d+) of (\d+): (\d+) ops", open(log).read()):
    job, c, of, ops = map(int, m.groups())
    assert of == n, m.group(0)
    per[(job, c)] = ops
assert sorted(per) == [(j, c) for j in range(jobs) for c in range(1, n + 1)], sorted(per)
assert all(v > 0 for v in per.values()), per
# the engine also counts the layout's one-byte write per job (before the window)
assert w["ops"] <= sum(per.values()) <= w["ops"] + jobs, (sum(per.values()), w["ops"])
print("nconnect=%d numjobs=%d: %d ops, per connection %s" % (n, jobs, w["ops"], sorted(per.values())))
PY
}

case_run 1 1 1
case_run 4 1 4
case_run 4 2 8

expect_fail "nconnect=17" "--nconnect: bad value '17' \(want 1 to 16 TCP connections per job\)" \
  "$NFSTORM" run --local 1 --quiet --name=x --ioengine=nfs "--nfs_url=$NFS_URL3" --nconnect=17 --rw=write --size=64k
printf '[x]\nioengine=nfs\nnfs_url=%s\nrw=write\nsize=64k\nnconnect=0\n' "$NFS_URL3" >"$T/bad.fio"
rc=0; "$NFSTORM" run --local 1 --quiet "$T/bad.fio" >"$T/bad.out" 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "nconnect=0 in a job file: exit $rc, want 2"
grep -q "bad.fio:6: bad value for 'nconnect': '0'" "$T/bad.out" || fail "nconnect=0: $(cat "$T/bad.out")"
echo "t1420: PASS"
