#!/usr/bin/env bash
# Open-loop rates without coordinated omission: a rate-limited nfs run
# during which the server is paused (SIGSTOP) for 1 s.  Response time is
# measured from when each op was due, so its p99.9 shows the second; the
# service time (issue to completion) of all but the one op caught in the
# pause stays short, so its p99.9 does not.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../nfs_server.sh"
command -v ganesha.nfsd >/dev/null || skip "nfs-ganesha is not installed"
E=$T/export; mkdir -p "$E"; chmod 777 "$E"
nfs_server_start "$E" || skip "cannot start the NFS server here"
trap 'nfs_server_stop; cleanup' EXIT
"$NFSTORM" run --local 1 --quiet --json "$T/r.json" --name=co --ioengine=nfs "--nfs_url=$NFS_URL3" \
  --filename=co.dat --rw=randread --bs=4k --size=4m --rate_iops=600 --runtime=4 --time_based \
  >"$T/o" 2>&1 &
c=$!
# pause in the middle of the run: 1 s into the phase (layout and start
# take a moment, longer on a loaded machine)
wait_intervals "$T/r.json.journal" 1 || fail "the phase did not start: $(tail -n2 "$T/o")"
sleep 0.3
kill -STOP "$NFS_PID"; sleep 1; kill -CONT "$NFS_PID"
wait $c || fail "run failed: $(tail -n2 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]
assert o["errors"] == 0, o["errors"]
assert o["ops"] > 2000, o["ops"]                      # 600/s for 4 s, fewer after the stall
rt, st = o["lat_ns"]["p999"], o["svc_ns"]["p999"]
assert rt >= 0.85e9, "response p99.9 %.3f s misses the 1 s stall" % (rt / 1e9)
assert st < 0.2e9, "service p99.9 %.3f s: the stall leaked into service times" % (st / 1e9)
assert o["svc_ns"]["max"] >= 0.85e9, "the op caught in the pause should show it"
print("response p99.9 %.3f s, service p99.9 %.4f s" % (rt / 1e9, st / 1e9))
PY
echo "coordinated omission avoided"
