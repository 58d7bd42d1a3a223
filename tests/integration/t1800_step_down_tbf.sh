#!/usr/bin/env bash
# nfstorm-test: serial (a network namespace, a shaped link)
# A throttle found in the time series: two agents in a namespace made here
# read over libnfs from ganesha across one veth shaped by tc tbf to
# 32 Mbit/s; 4 s into the 10 s phase the test lowers the rate to 6 Mbit/s
# (tc change), as a file system that ran out of burst credits would.  The
# report must say the throughput stepped down about -80%, fleet-wide, at
# 4 s give or take two intervals (500 ms each), and each agent's own
# series must show the step there too; `nfstorm report` re-renders the
# same line from the JSON and from the journal, and the HTML marks the step
# on its time charts.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
command -v ip >/dev/null && command -v tc >/dev/null || skip "no ip(8) or tc(8)"
source "$ROOT/tests/nfs_server.sh"
tag=$(printf '%04x' $((RANDOM % 65536))); oct=$(($$ % 250 + 1))
NS="st${tag}n"; HOSTDEV="st${tag}h"
net_cleanup() {
  ip netns del "$NS" 2>/dev/null
  ip link del "$HOSTDEV" 2>/dev/null
}
trap 'nfs_server_stop; cleanup; net_cleanup' EXIT
ip netns add "$NS" 2>/dev/null || skip "ip netns is not permitted here"
# 10.218.<oct>.0/30 exists only on this veth pair, inside this test; the
# namespace reaches the server on the pair's other end and has no default route
SRV=10.218.$oct.1; CLI=10.218.$oct.2
ip link add "$HOSTDEV" type veth peer name "st${tag}c" || fail "cannot add veth"
ip link set "st${tag}c" netns "$NS"
ip addr add "$SRV/30" dev "$HOSTDEV" || fail "$SRV is taken: another test's link?"
ip link set "$HOSTDEV" up
ip netns exec "$NS" ip addr add "$CLI/30" dev "st${tag}c"
ip netns exec "$NS" ip link set "st${tag}c" up
ip netns exec "$NS" ip link set lo up
ip netns exec "$NS" ip route show | grep -q '^default' && fail "the namespace has a default route"
# reads flow server -> agents: shape the host side's egress
tc qdisc add dev "$HOSTDEV" root tbf rate 32mbit burst 32kb latency 50ms || skip "tc tbf is not available"

mkdir -p "$T/export" "$T/d"
export NFS_BIND_ADDR=$SRV
nfs_server_start "$T/export" || fail "NFS server did not start"
addrs=""
for i in 0 1; do
  ip netns exec "$NS" "$AGENT" --listen "$CLI:$((7878 + i))" --insecure --allow "$T/d" \
    --allow-nfs "nfs://$SRV$(cd "$T/export" && pwd -P)" >"$T/a$i.out" 2>"$T/a$i.log" &
  PIDS+=($!)
  addrs+="${addrs:+,}$CLI:$((7878 + i))"
done
for i in 0 1; do
  wait_grep "$T/a$i.out" "^listening on " 10 || fail "agent $i did not start: $(cat "$T/a$i.log")"
done
"$NFSTORM" run --agents "$addrs" --interval 500ms --json "$T/r.json" --html "$T/r.html" --eta=always \
  --name=bw --ioengine=nfs "--nfs_url=$NFS_URL3" --rw=read --bs=16k --size=4m \
  --iodepth=4 --time_based --runtime=10s >"$T/out" 2>"$T/err" &
RUN=$!
PIDS+=("$RUN")
# the live line of the phase's interval at 4 s: lower the rate now
wait_grep "$T/err" '\[1/1 bw\] 4s left' 40 || fail "the phase did not reach 4 s: $(tail -n3 "$T/err")"
tc qdisc change dev "$HOSTDEV" root tbf rate 6mbit burst 32kb latency 50ms || fail "tc change"
wait "$RUN" || fail "run failed: $(tail -n5 "$T/err")"
grep -E 'stepped' "$T/out"

py "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ph = r["phases"][0]
assert r["change_detection"] == {"min_pct": 20.0, "min_intervals": 5}, r["change_detection"]
ch = [c for c in ph["changes"] if c["metric"] == "throughput"]
fleet = [c for c in ch if c["scope"] == "fleet"]
assert len(fleet) == 1, ph["changes"]
f = fleet[0]
# tc change ran as the 4 s live line came (the line follows the interval's
# end by the agents' reporting, well under 250 ms): within two intervals
# (1 s) of 4.0-4.25 s
assert f["direction"] == "down" and 3.0 <= f["at_s"] <= 5.25, f
assert -90 <= f["pct"] <= -65, f            # 32 -> 6 Mbit/s is -81%
assert f["fleet_wide"] is True and f["agents"] == [0, 1], f
assert ph["time_to_throttle_s"] == f["at_s"], ph.get("time_to_throttle_s")
for a in (0, 1):
    mine = [c for c in ch if c["scope"] == "agent" and c["agent"] == a]
    assert mine, (a, ph["changes"])
    m = mine[0]
    assert m["direction"] == "down" and abs(m["at_s"] - f["at_s"]) <= 1.0, m
    assert m["pct"] <= -50 and m["agents"] == [a], m
    # two TCP flows through one tbf need not share it evenly: an agent's
    # share may shift later (a smaller step), but there is no other throttle
    assert all(abs(c["pct"]) < 50 and c["at_s"] > m["at_s"] for c in mine[1:]), mine
print("fleet step at %.1f s, %.0f%%; agents at %s" % (f["at_s"], f["pct"],
      [c["at_s"] for c in ch if c["scope"] == "agent"]))
PY
line=$(grep -E '^throughput stepped down from [0-9.]+[KM]iB/s to [0-9.]+[KM]iB/s at [0-9.]+ s \(-[0-9]+%\), fleet-wide$' "$T/out") ||
  fail "no fleet-wide step-down line: $(grep stepped "$T/out")"
"$NFSTORM" report "$T/r.json" --html "$T/re.html" >"$T/re.out" 2>&1 || fail "report failed: $(tail -n3 "$T/re.out")"
grep -qxF "$line" "$T/re.out" || fail "report re-rendered another line: $(grep stepped "$T/re.out")"
"$NFSTORM" report "$T/r.json.journal" >"$T/rj.out" 2>&1 || fail "report of the journal failed: $(tail -n3 "$T/rj.out")"
grep -qxF "$line" "$T/rj.out" || fail "the journal re-rendered another line: $(grep stepped "$T/rj.out")"
for h in "$T/r.html" "$T/re.html"; do
  # every time chart (bandwidth, throughput, latency, fairness) marks it
  n=$(grep -o 'data-band="change"' "$h" | wc -l)
  [ "$n" -ge 4 ] || fail "$h: $n change marks on the time charts"
  grep -qF "$line" "$h" || fail "$h does not state the step"
done
echo "step-down found: $line"
