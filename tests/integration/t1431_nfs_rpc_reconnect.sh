#!/usr/bin/env bash
# t1431: the NFS server restarts in the middle of an NFSv3 phase: the
# engine's telemetry counts the reconnect (>= 1 per job that was connected,
# reconnects as libnfs re-established them) and the calls libnfs sent again
# on the new connection as retransmits, in the phase's and the agent's
# "nfs", in the interval of the outage, and in the text report's NFS line.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export"
nfs_server_start "$T/export" || fail "NFS server did not start"

timeout 60 "$NFSTORM" run --local 1 --json "$T/r.json" --name=rs --ioengine=nfs "--nfs_url=$NFS_URL3" \
  --rw=randwrite --bs=4k --size=4m --iodepth=16 --numjobs=2 --time_based --runtime=6 --interval=500ms \
  --error_threshold=50% >"$T/out" 2>&1 &
run=$!
wait_intervals "$T/r.json.journal" 3 || fail "no 3 intervals before the restart: $(tail -n2 "$T/out")"
nfs_server_restart || fail "ganesha did not restart"
wait $run || fail "run with a restart failed: $(tail -n 3 "$T/out")"
py "$T/r.json" "$T/out" <<'PY'
import json, re, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
text = open(sys.argv[2]).read()
nfs, ag = ph["nfs"], ph["agents"][0]["nfs"]
print("restart: reconnects %d, retransmits %d, timeouts %d, WRITE calls %d (errors %d)"
      % (nfs["reconnects"], nfs["retransmits"], nfs["timeouts"], nfs["rpc"]["WRITE"]["calls"],
         nfs["rpc"]["WRITE"]["errors"]))
assert nfs == ag, "fleet != agent"
assert nfs["reconnects"] >= 1, "no reconnect counted: %s" % {k: nfs[k] for k in ("reconnects", "retransmits", "timeouts")}
assert nfs["reconnects"] <= 2 * 20, nfs["reconnects"]
ivs = [iv.get("nfs", {}) for iv in ph["intervals"]]
assert sum(i.get("reconnects", 0) for i in ivs) == nfs["reconnects"], "intervals do not add up"
assert sum(i.get("retransmits", 0) for i in ivs) == nfs["retransmits"], "intervals do not add up"
first = [k for k, i in enumerate(ivs) if i.get("reconnects")]
assert first and first[0] >= 2, "reconnect before the restart: interval %s" % first
# the calls kept going after the outage: the intervals after the first
# reconnect carry WRITE calls (a job's reconnect can fall late in its
# backoff, so no one interval is required; the run lasts 4.5 s past it)
after = [i.get("rpc", {}).get("WRITE", {}).get("calls", 0) for i in ivs[first[0] + 1:]]
assert sum(after) > 200, "no WRITE calls after the outage: %s" % after
m = re.search(r"^nfs: \d+ RPCs, \d+ failed, (\d+) retransmits, (\d+) timeouts, (\d+) reconnects(; .*)?$", text, re.M)
assert m and int(m.group(1)) == nfs["retransmits"] and int(m.group(3)) == nfs["reconnects"], m and m.group(0)
PY
echo "t1431: PASS"
