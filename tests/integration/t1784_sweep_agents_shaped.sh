#!/usr/bin/env bash
# nfstorm-test: serial (a network namespace, a shaped link)
# sweep=agents: the scale-out curve against a shaped server.  Four agents in
# one namespace made here share its veth link to ganesha, shaped by tc tbf
# to 40 Mbit/s (5 MB/s): one agent already fills it, so the fleet's
# throughput stays flat at the link's rate as agents are added and the
# throughput per agent relative to one agent falls as 1/K.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
command -v ip >/dev/null && command -v tc >/dev/null || skip "no ip(8) or tc(8)"
source "$ROOT/tests/nfs_server.sh"
tag=$(printf '%04x' $((RANDOM % 65536))); oct=$((RANDOM % 200 + 20))
ns="sg${tag}"; h="sgh${tag}"; n="sgn${tag}"
net_cleanup() { ip netns del "$ns" 2>/dev/null; ip link del "$h" 2>/dev/null; }
trap 'nfs_server_stop; cleanup; net_cleanup' EXIT
ip netns add "$ns" 2>/dev/null || skip "ip netns is not permitted here"
# 10.217.<oct>.0/30 exists only on this veth pair; no default route inside
ip link add "$h" type veth peer name "$n" || fail "cannot add veth"
ip link set "$n" netns "$ns"
ip addr add "10.217.$oct.1/30" dev "$h"; ip link set "$h" up
ip netns exec "$ns" ip addr add "10.217.$oct.2/30" dev "$n"
ip netns exec "$ns" ip link set "$n" up
ip netns exec "$ns" ip link set lo up
tc qdisc add dev "$h" root tbf rate 40mbit burst 32kb latency 100ms || fail "cannot shape $h with tbf"
mkdir -p "$T/export" "$T/d"
export NFS_BIND_ADDR=10.217.$oct.1
nfs_server_start "$T/export" || fail "NFS server did not start"
addrs=()
for i in 0 1 2 3; do
  ip netns exec "$ns" "$AGENT" --listen "10.217.$oct.2:$((7878 + i))" --insecure --allow "$T/d" \
    --allow-nfs "nfs://10.217.$oct.1$(cd "$T/export" && pwd -P)" >"$T/a$i.out" 2>"$T/a$i.log" &
  PIDS+=($!)
  addrs+=("10.217.$oct.2:$((7878 + i))")
done
for i in 0 1 2 3; do
  wait_grep "$T/a$i.out" "^listening on " 10 || fail "agent $i did not start: $(cat "$T/a$i.log")"
done
list=$(IFS=,; echo "${addrs[*]}")
timeout 90 "$NFSTORM" run --agents "$list" --interval 500ms --json "$T/s.json" --name=so \
  --ioengine=nfs "--nfs_url=$NFS_URL3" --rw=read --bs=64k --size=4m --iodepth=4 \
  --sweep=agents --sweep_values=1,2,4 --sweep_point_time=2s --ramp_time=1 --sweep_valid=cv:25 >"$T/out" 2>&1 ||
  fail "sweep failed: $(tail -n3 "$T/out")"
py "$T/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sweeps"][0]
shaped = 40e6 / 8
pts = s["points"]
print("agents 1,2,4: %s MB/s; per agent relative to one: %s" %
      ([round(p["achieved_bw"] / 1e6, 2) for p in pts], [round(p["per_agent_relative"], 2) for p in pts]))
assert [p["requested"] for p in pts] == [1, 2, 4] and [len(p["agents"]) for p in pts] == [1, 2, 4], pts
for p in pts:   # flat: every point fills the link
    assert abs(p["achieved_bw"] - shaped) <= 0.15 * shaped, p["achieved_bw"]
    assert abs(p["per_agent_relative"] * p["requested"] - 1) <= 0.15, p["per_agent_relative"]
PY
echo "the scale-out curve is flat at the shaped link"
