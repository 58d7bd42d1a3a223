#!/usr/bin/env bash
# nfstorm-test: serial (network namespaces, routes and qdiscs)
# Issue 23 item 12: an agent is not lost when its own load fills its link.
# The agent in a network namespace, the coordinator and nfs-ganesha in the
# root namespace; the server-to-client direction of the veth (the root end's
# egress) shaped as the issue has it, `tbf rate 80mbit burst 64k latency
# 50ms`, with pfifo_fast as tbf's queue instead of its default byte FIFO, so
# that the TOS byte is honoured (docs/fleet.md, "A link the load fills", says
# what Linux does).  A libnfs randread bs=64k iodepth=8 fills the link.
#  1. default --control-tos (lowdelay): the run completes, the agent is not
#     lost, both ends of the control connection carry TOS 0x10 / priority 6,
#     and its round trip stays far below the NFS reads' (which queue ~50 ms);
#  2. --control-tos none on both: the same link delays the control
#     connection by milliseconds (median over 2 ms and 3 times the marked
#     one; measured 4-28 ms against 0.07-0.11 ms), so 1's short round trip
#     is the marking's doing.
# Also issue 21 item 11: run 1's reads crossed the agent's veth (10 Gbit/s,
# on the route to the server) at 80 Mbit/s and are not flagged as faster
# than the link.
source "$(dirname "$0")/lib.sh"
command -v ip >/dev/null || skip "no ip(8)"
command -v tc >/dev/null || skip "no tc(8)"
command -v ss >/dev/null || skip "no ss(8)"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
tag=$(printf '%04x' $(( ($$ + RANDOM) % 65536 )))
ns="lk${tag}"; h="lkh${tag}"; n="lkn${tag}"; net="10.219.$(( RANDOM % 250 ))"
netns_cleanup() {
  ip netns del "$ns" 2>/dev/null
  ip link del "$h" 2>/dev/null
}
trap 'cleanup; nfs_server_stop; netns_cleanup' EXIT
ip netns add "$ns" 2>/dev/null || skip "ip netns is not permitted here"
ip link add "$h" type veth peer name "$n" || fail "cannot add veth"
ip link set "$n" netns "$ns"
ip addr add "$net.1/30" dev "$h"; ip link set "$h" up
ip netns exec "$ns" ip addr add "$net.2/30" dev "$n"
ip netns exec "$ns" ip link set "$n" up
ip netns exec "$ns" ip link set lo up
tc qdisc add dev "$h" root handle 1: tbf rate 80mbit burst 64k latency 50ms || fail "cannot add tbf"
tc qdisc add dev "$h" parent 1:1 handle 10: pfifo_fast || fail "cannot put pfifo_fast under tbf"
mkdir -p "$T/export" "$T/d"
NFS_BIND_ADDR=$net.1 nfs_server_start "$T/export" || fail "NFS server did not start"

# run_shaped NAME TOS: one run through the shaped link; leaves $T/NAME.json,
# $T/NAME.out, and $T/NAME.ss: the control connection's ss lines (root end
# "C", agent end "A") sampled while the phase ran
run_shaped() {
  local name=$1 tos=$2 apid c
  ip netns exec "$ns" "$AGENT" --listen "$net.2:0" --insecure --lease 3s --control-tos "$tos" --verbose \
    --allow "$T/d" --allow-nfs "$NFS_URL3" >"$T/$name.a.out" 2>"$T/$name.a.log" &
  apid=$!; PIDS+=($apid)
  for _ in $(seq 100); do grep -q '^listening on ' "$T/$name.a.out" 2>/dev/null && break; sleep 0.05; done
  local addr; addr=$(sed -n 's/^listening on //p' "$T/$name.a.out")
  [ -n "$addr" ] || fail "$name: agent did not start: $(cat "$T/$name.a.log")"
  timeout 60 "$NFSTORM" run --agents "$addr" --quiet --agent-timeout 3s --control-tos "$tos" \
    --json "$T/$name.json" --name="$name" --ioengine=nfs "--nfs_url=$NFS_URL3" --rw=randread --bs=64k \
    --iodepth=8 --size=64m --runtime=6 --time_based >"$T/$name.out" 2>&1 &
  c=$!
  wait_grep "$T/$name.a.log" "phase 0 '$name' ready" 40 || fail "$name: the phase did not start: $(tail -n3 "$T/$name.a.log")"
  : >"$T/$name.ss"
  while kill -0 $c 2>/dev/null; do
    ss -tinH --tos "dst $addr" 2>/dev/null | tr -s ' \n' ' ' | sed 's/^/C /;s/$/\n/' >>"$T/$name.ss"
    ip netns exec "$ns" ss -tinH --tos "src $addr" 2>/dev/null | tr -s ' \n' ' ' | sed 's/^/A /;s/$/\n/' >>"$T/$name.ss"
    sleep 0.25
  done
  wait $c; RC=$?
  kill $apid 2>/dev/null; wait $apid 2>/dev/null
}

# the control connection's round trip (ms) while the link was full: the
# median of the agent's heartbeat round trips (its ping crosses the free
# direction, the coordinator's pong the shaped one) from when the phase's
# reads began to its end
hb_rtt() {
  sed -n "/phase 0 '$1' ready/,/phase 0 done/s/.*heartbeat round trip to [^:]*:[0-9]*: \([0-9.]*\) ms/\1/p" \
    "$T/$1.a.log" | sort -g | awk '{v[NR]=$1} END {if (NR >= 3) print v[int((NR+1)/2)]}'
}

run_shaped marked lowdelay
[ $RC -eq 0 ] || fail "marked: exit status $RC, want 0: $(tail -n3 "$T/marked.out")"
grep -q "lost\|silent" "$T/marked.out" && fail "marked: $(grep "lost\|silent" "$T/marked.out" | head -n2)"
grep -q '^C ESTAB.* tos:0x10 class_id:0x6' "$T/marked.ss" \
  || fail "the coordinator's end is not marked: $(grep '^C' "$T/marked.ss" | head -n1)"
grep -q '^A ESTAB.* tos:0x10 class_id:0x6' "$T/marked.ss" \
  || fail "the agent's end is not marked: $(grep '^A' "$T/marked.ss" | head -n1)"
rm_=$(hb_rtt marked)
[ -n "$rm_" ] || fail "marked: fewer than 3 heartbeat round trips in the agent's log: $(tail -n3 "$T/marked.a.log")"
py "$T/marked.json" "$rm_" "$n" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); rtt = float(sys.argv[2]); veth = sys.argv[3]
assert not d["agents"][0].get("lost", False), d["agents"][0]
ph = d["phases"][0]
assert ph["finished"], "phase not finished"
rd = ph["ops"]["read"]
mbit = rd["bytes"] * 8 / ph["duration_s"] / 1e6
assert 40 < mbit < 90, "reads at %.1f Mbit/s: not the 80 Mbit/s link" % mbit
p50_ms = rd["lat_ns"]["p50"] / 1e6
assert p50_ms > 25, "read p50 %.1f ms: the link's queue did not fill" % p50_ms
assert rtt < p50_ms / 4, "control RTT %.1f ms vs reads' p50 %.1f ms: the marking was not honoured" % (rtt, p50_ms)
# issue 21 item 11: reads through the 80 Mbit/s link, on a NIC of 10 Gbit/s
# (a veth's speed), on the route to the server: not flagged
a = ph["agents"][0]
assert a["host"]["nic"] == {**a["host"]["nic"], "name": veth, "speed_mbps": 10000, "route": True}, a["host"]["nic"]
assert a["faster_than_link"] is False, a["faster_than_link"]
print("marked: reads %.1f Mbit/s, read p50 %.1f ms, control RTT %.2f ms" % (mbit, p50_ms, rtt))
PY

run_shaped unmarked none
[ $RC -eq 0 ] || [ $RC -eq 3 ] || fail "unmarked: exit status $RC: $(tail -n3 "$T/unmarked.out")"
grep -q '^C ESTAB.* tos:0x10' "$T/unmarked.ss" && fail "--control-tos none still marked: $(grep '^C' "$T/unmarked.ss" | head -n1)"
ru=$(hb_rtt unmarked)
# for the log: every heartbeat round trip of both runs
for x in marked unmarked; do echo "$x: $(sed -n "/phase 0 '$x' ready/,/phase 0 done/s/.*heartbeat round trip to [^:]*:[0-9]*: \([0-9.]*\) ms/\1/p" "$T/$x.a.log" | tr '\n' ' ')" >&2; done
[ -n "$ru" ] || fail "unmarked: fewer than 3 heartbeat round trips in the agent's log: $(tail -n3 "$T/unmarked.a.log")"
py "$T/unmarked.json" "$ru" "$rm_" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); ru, rm = float(sys.argv[2]), float(sys.argv[3])
assert ru > 3 * rm and ru > 2, "unmarked control RTT %.2f ms vs marked %.2f ms: the link did not delay it" % (ru, rm)
print("unmarked: control RTT %.2f ms (marked %.2f ms)" % (ru, rm))
PY
echo "a shaped link full of the agent's reads: the marked control connection is not delayed, the agent not lost"
