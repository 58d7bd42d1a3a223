#!/usr/bin/env bash
# nfstorm-test: serial (network namespaces and routes)
# Multi-host: the coordinator in the root namespace, three agents in three
# network namespaces with their own addresses (made and removed here).  One
# agent's link is cut mid-run: it is treated as lost, the others finish,
# the run is partial (exit 3), and the cut-off agent stops its own I/O when
# its lease runs out.
source "$(dirname "$0")/lib.sh"
command -v ip >/dev/null || skip "no ip(8)"
tag=$(printf '%04x' $((RANDOM % 65536)))
NS=(); LINKS=(); ROUTE=""
netns_cleanup() {
  for n in "${NS[@]:-}"; do [ -n "$n" ] && ip netns del "$n" 2>/dev/null; done
  for l in "${LINKS[@]:-}"; do [ -n "$l" ] && ip link del "$l" 2>/dev/null; done
  [ -n "$ROUTE" ] && ip route del blackhole "$ROUTE" metric 4000 2>/dev/null
}
trap 'cleanup; netns_cleanup' EXIT
ip netns add "nfs${tag}x" 2>/dev/null || skip "ip netns is not permitted here"
ip netns del "nfs${tag}x"
# Before any address of the test subnet exists: a blackhole route for all of
# it, so while a link is down the root namespace's packets to it are dropped
# here instead of following the default route off the machine.
ip route add blackhole 10.213.0.0/16 metric 4000 2>/dev/null || \
  ip route show | grep -q "^blackhole 10.213.0.0/16" || fail "cannot add the blackhole route for 10.213.0.0/16"
ROUTE=10.213.0.0/16
# 10.213.<i>.0/30 exists only on these veth pairs, inside this test
for i in 0 1 2; do
  ns="nfs${tag}$i"; h="nh${tag}$i"; n="nn${tag}$i"
  ip netns add "$ns" || fail "cannot add namespace"
  NS+=("$ns"); LINKS+=("$h")
  ip link add "$h" type veth peer name "$n" || fail "cannot add veth"
  ip link set "$n" netns "$ns"
  ip addr add "10.213.$i.1/30" dev "$h"; ip link set "$h" up
  ip netns exec "$ns" ip addr add "10.213.$i.2/30" dev "$n"
  ip netns exec "$ns" ip link set "$n" up
  ip netns exec "$ns" ip link set lo up
done
D=$T/d; mkdir -p "$D"
addrs=(); apids=()
for i in 0 1 2; do
  mkdir -p "$D/$i"
  ip netns exec "nfs${tag}$i" "$AGENT" --listen "10.213.$i.2:7878" --insecure --lease 3s --allow "$D/$i" \
    >"$T/a$i.out" 2>"$T/a$i.log" &
  apids+=($!); PIDS+=($!)
  addrs+=("10.213.$i.2:7878")
done
for i in 0 1 2; do
  for _ in $(seq 50); do grep -q "^listening on" "$T/a$i.out" 2>/dev/null && break; sleep 0.1; done
  grep -q "^listening on 10.213.$i.2:7878" "$T/a$i.out" || fail "agent $i did not start: $(cat "$T/a$i.log")"
done
list=$(IFS=,; echo "${addrs[*]}")
timeout 60 "$NFSTORM" run --agents "$list" --quiet --agent-timeout 3s --json "$T/r.json" --name=p \
  --rw=write --bs=64k --size=1g --runtime=10 --time_based --rate=20m --fallocate=none >"$T/o" 2>&1 &
c=$!
wait_intervals "$T/r.json.journal" 6 || fail "no 2 intervals of the 3 agents: $(tail -n2 "$T/o")"
g1=$(files_sig "$D/1"); sleep 0.5; g2=$(files_sig "$D/1")
[ "$g1" != "$g2" ] || fail "agent 1's file did not change while it ran: the check below cannot see"
ip link set "nh${tag}1" down          # the partition: agent 1's packets go nowhere
# ... and certainly not off the machine: the kernel's route to the cut agent
# is the blackhole (or the cut veth itself), never another interface
via=$(ip -o route get 10.213.1.2 2>&1)
case "$via" in
  blackhole*|*"dev nh${tag}1 "*|*"unreachable"*|*"Invalid argument"*) ;;
  *) ip link set "nh${tag}1" up; fail "with the link cut, packets to 10.213.1.2 would go: $via" ;;
esac
sleep 5
a=$(files_sig "$D/1"); sleep 2; b=$(files_sig "$D/1")
wait $c; rc=$?
[ $rc -eq 3 ] || fail "exit status $rc, want 3 (partial): $(tail -n2 "$T/o")"
grep -q "agent 1 (10.213.1.2:7878)" "$T/o" || fail "the cut agent is not named: $(tail -n2 "$T/o")"
[ "$a" = "$b" ] || fail "the cut-off agent kept writing past its lease (its file changed)"
grep -q "lease expired" "$T/a1.log" || fail "agent 1 did not stop on its lease: $(tail -n3 "$T/a1.log")"
py "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); ph = r["phases"][0]
assert [a.get("lost", False) for a in r["agents"]] == [False, True, False], r["agents"]
w = [a["ops"]["write"]["ops"] for a in ph["agents"]]
assert w[1] > 0 and w[0] > 2 * w[1] and w[2] > 2 * w[1], w     # the others ran 10 s, agent 1 about 3
assert ph["ops"]["write"]["ops"] == sum(w), (ph["ops"]["write"]["ops"], w)
PY
echo "partition: agent 1 lost, the others complete"
