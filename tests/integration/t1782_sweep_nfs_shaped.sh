#!/usr/bin/env bash
# nfstorm-test: serial (network namespaces, a shaped link)
# A bandwidth sweep over libnfs against nfs-ganesha behind a rate-shaped
# link: the agent runs in a network namespace made here, the server listens
# on the root side of the namespace's veth pair, and that side's egress (the
# read data) is shaped by tc tbf to 40 Mbit/s (5 MB/s).  sweep=rate finds a
# capacity within 15% of the shaped rate, the points above it invalid by the
# achieved-rate rule.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
command -v ip >/dev/null && command -v tc >/dev/null || skip "no ip(8) or tc(8)"
source "$ROOT/tests/nfs_server.sh"
tag=$(printf '%04x' $((RANDOM % 65536))); oct=$((RANDOM % 200 + 20))
ns="sw${tag}"; h="swh${tag}"; n="swn${tag}"
net_cleanup() { ip netns del "$ns" 2>/dev/null; ip link del "$h" 2>/dev/null; }
trap 'nfs_server_stop; cleanup; net_cleanup' EXIT
ip netns add "$ns" 2>/dev/null || skip "ip netns is not permitted here"
# 10.214.<oct>.0/30 exists only on this veth pair, inside this test; the
# namespace has no default route
ip link add "$h" type veth peer name "$n" || fail "cannot add veth"
ip link set "$n" netns "$ns"
ip addr add "10.214.$oct.1/30" dev "$h"; ip link set "$h" up
ip netns exec "$ns" ip addr add "10.214.$oct.2/30" dev "$n"
ip netns exec "$ns" ip link set "$n" up
ip netns exec "$ns" ip link set lo up
tc qdisc add dev "$h" root tbf rate 40mbit burst 32kb latency 100ms || fail "cannot shape $h with tbf"

mkdir -p "$T/export" "$T/d"
export NFS_BIND_ADDR=10.214.$oct.1
nfs_server_start "$T/export" || fail "NFS server did not start"
ip netns exec "$ns" "$AGENT" --listen "10.214.$oct.2:7878" --insecure --allow "$T/d" \
  --allow-nfs "nfs://10.214.$oct.1$(cd "$T/export" && pwd -P)" >"$T/a.out" 2>"$T/a.log" &
PIDS+=($!)
wait_grep "$T/a.out" "^listening on 10.214.$oct.2:7878" 10 || fail "agent did not start: $(cat "$T/a.log")"

# the layout (uploads) is not shaped; the points read at 1m..32m B/s
timeout 90 "$NFSTORM" run --agents "10.214.$oct.2:7878" --interval 500ms --json "$T/s.json" --name=bw \
  --ioengine=nfs "--nfs_url=$NFS_URL3" --rw=read --bs=64k --size=16m --iodepth=4 \
  --sweep=rate --sweep_start=1m --sweep_max=32m --sweep_resolution=10 --sweep_valid=cv:25 \
  --sweep_point_time=1s >"$T/out" 2>&1 || fail "sweep failed: $(tail -n3 "$T/out")"
py "$T/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sweeps"][0]
shaped = 40e6 / 8
cap, pts = s["capacity"], s["points"]
print("shaped %.2f MB/s, capacity %.2f MB/s (achieved %.2f) in %d points" %
      (shaped / 1e6, cap["value"] / 1e6, (cap["achieved"] or 0) / 1e6, len(pts)))
assert s["unit"] == "B/s" and cap["bracketed"] is True, cap
assert abs(cap["value"] - shaped) <= 0.15 * shaped, (cap, [(p["requested"], p["achieved"], p["reasons"]) for p in pts])
for p in pts:
    if p["requested"] > 1.2 * shaped:
        assert not p["valid"] and any(r.startswith("achieved ") for r in p["reasons"]), p
        assert p["achieved"] <= 1.05 * shaped, p
PY
echo "bandwidth sweep found the shaped link"
