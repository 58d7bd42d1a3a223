#!/usr/bin/env bash
# nfstorm-test: serial (network namespaces, a shaped link)
# One agent throttled alone: two agents in two namespaces made here read
# over libnfs from one ganesha; only agent 1's link is shaped by tc tbf (to
# 16 Mbit/s, 2 MB/s).  At 2 MB/s for the fleet (1 MB/s each) both keep up;
# at 8 MB/s (4 MB/s each) agent 1 cannot, and the point is invalid by the
# per-agent rule, naming agent 1 (and only it).
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
command -v ip >/dev/null && command -v tc >/dev/null || skip "no ip(8) or tc(8)"
source "$ROOT/tests/nfs_server.sh"
tag=$(printf '%04x' $((RANDOM % 65536))); oct=$((RANDOM % 100 * 2 + 20))
NS=(); LINKS=()
net_cleanup() {
  for x in "${NS[@]:-}"; do [ -n "$x" ] && ip netns del "$x" 2>/dev/null; done
  for l in "${LINKS[@]:-}"; do [ -n "$l" ] && ip link del "$l" 2>/dev/null; done
}
trap 'nfs_server_stop; cleanup; net_cleanup' EXIT
ip netns add "sa${tag}x" 2>/dev/null || skip "ip netns is not permitted here"
ip netns del "sa${tag}x"
# 10.216.<oct+i>.0/30 exist only on these veth pairs, inside this test; each
# namespace reaches the server's address (on pair 0) through its own pair
# and has no default route
SRV=10.216.$oct.1
for i in 0 1; do
  ns="sa${tag}$i"; h="sah${tag}$i"; n="san${tag}$i"; o=$((oct + i))
  ip netns add "$ns" || fail "cannot add namespace"
  NS+=("$ns"); LINKS+=("$h")
  ip link add "$h" type veth peer name "$n" || fail "cannot add veth"
  ip link set "$n" netns "$ns"
  ip addr add "10.216.$o.1/30" dev "$h"; ip link set "$h" up
  ip netns exec "$ns" ip addr add "10.216.$o.2/30" dev "$n"
  ip netns exec "$ns" ip link set "$n" up
  ip netns exec "$ns" ip link set lo up
  [ $i = 1 ] && { ip netns exec "$ns" ip route add "$SRV/32" via "10.216.$o.1" || fail "cannot route to the server"; }
done
tc qdisc add dev "sah${tag}1" root tbf rate 16mbit burst 16kb latency 100ms || fail "cannot shape with tbf"

mkdir -p "$T/export" "$T/d"
export NFS_BIND_ADDR=$SRV
nfs_server_start "$T/export" || fail "NFS server did not start"
addrs=()
for i in 0 1; do
  ip netns exec "sa${tag}$i" "$AGENT" --listen "10.216.$((oct + i)).2:7878" --insecure --allow "$T/d" \
    --allow-nfs "nfs://$SRV$(cd "$T/export" && pwd -P)" >"$T/a$i.out" 2>"$T/a$i.log" &
  PIDS+=($!)
  addrs+=("10.216.$((oct + i)).2:7878")
done
for i in 0 1; do
  wait_grep "$T/a$i.out" "^listening on " 10 || fail "agent $i did not start: $(cat "$T/a$i.log")"
done
timeout 60 "$NFSTORM" run --agents "${addrs[0]},${addrs[1]}" --interval 500ms --json "$T/s.json" --name=bw \
  --ioengine=nfs "--nfs_url=$NFS_URL3" --rw=read --bs=64k --size=8m --iodepth=4 \
  --sweep=rate --sweep_values=2m,8m --sweep_valid=cv:25 --sweep_point_time=1s >"$T/out" 2>&1 ||
  fail "sweep failed: $(tail -n3 "$T/out")"
py "$T/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sweeps"][0]
lo, hi = s["points"]
print("8m point: %s" % hi["reasons"])
assert lo["valid"] is True, lo
a0, a1 = hi["agents"]
assert a0["share_pct"] >= 90 and a1["share_pct"] < 75, (a0, a1)
assert hi["valid"] is False and "agent 1 achieved %.0f%% of its share" % a1["share_pct"] in hi["reasons"], hi["reasons"]
assert not any(r.startswith("agent 0") for r in hi["reasons"]), hi["reasons"]
PY
grep -Eq "^capacity: 2MiB/s .*; 2 points, 1 invalid \((achieved [0-9.]+% of the requested load|agent 1 achieved [0-9]+% of its share)\)$" "$T/out" ||
  fail "headline: $(grep '^capacity' "$T/out")"
echo "the shaped agent fails the per-agent rule"
