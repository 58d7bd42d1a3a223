# shellcheck shell=bash
# netns_nfs.sh: an NFS server across a shaped link, for tests that need a
# real network between the nfs engine and ganesha.  Source it after lib.sh
# and nfs_server.sh, then:
#   netns_nfs_up RATE   a network namespace with a veth to the root one
#                       (10.215.X.2 inside, 10.215.X.1 outside, X from the
#                       test's pid), both directions shaped to RATE with
#                       tc tbf (rate, not delay: this kernel has no netem),
#                       ganesha bound to 10.215.X.1 serving $T/export, and
#                       an agent inside the namespace (no default route)
#                       listening on 10.215.X.2:7878.
# After it: NETNS (the namespace), NETNS_AGENT (ADDR:PORT for --agents),
# NETNS_HOST (the outside address), NFS_URL3 / NFS_URL4, NETNS_EXPORT.
# netns_nfs_down (on EXIT) removes what netns_nfs_up made, exactly that.
NETNS=""; NETNS_LINK=""

netns_nfs_down() {
  nfs_server_stop
  [ -n "$NETNS" ] && ip netns del "$NETNS" 2>/dev/null
  [ -n "$NETNS_LINK" ] && ip link del "$NETNS_LINK" 2>/dev/null
  NETNS=""; NETNS_LINK=""
}

netns_nfs_up() {
  local rate=$1 x=$(( $$ % 250 + 1 )) tag
  command -v ip >/dev/null || skip "no ip(8)"
  command -v tc >/dev/null || skip "no tc(8)"
  command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
  tag=$(printf '%04x' $((RANDOM % 65536)))
  ip netns add "nfsn$tag" 2>/dev/null || skip "ip netns is not permitted here"
  NETNS="nfsn$tag"; NETNS_LINK="nsh$tag"
  ip link add "$NETNS_LINK" type veth peer name "nsn$tag" || fail "cannot add a veth"
  ip link set "nsn$tag" netns "$NETNS"
  NETNS_HOST=10.215.$x.1
  ip addr add "$NETNS_HOST/30" dev "$NETNS_LINK" || fail "10.215.$x.1 is taken: another test's link?"
  ip link set "$NETNS_LINK" up
  ip netns exec "$NETNS" ip addr add "10.215.$x.2/30" dev "nsn$tag"
  ip netns exec "$NETNS" ip link set "nsn$tag" up
  ip netns exec "$NETNS" ip link set lo up
  # the same rate both ways; a burst of a few packets, a queue of 2 MB
  tc qdisc add dev "$NETNS_LINK" root tbf rate "$rate" burst 32kb limit 2mb \
    || skip "tc tbf is not available"
  ip netns exec "$NETNS" tc qdisc add dev "nsn$tag" root tbf rate "$rate" burst 32kb limit 2mb \
    || fail "tc tbf inside the namespace"
  ip netns exec "$NETNS" ip route show | grep -q '^default' && fail "the namespace has a default route"
  NETNS_EXPORT=$T/export; mkdir -p "$NETNS_EXPORT"; chmod 777 "$NETNS_EXPORT"
  NFS_BIND_ADDR=$NETNS_HOST nfs_server_start "$NETNS_EXPORT" || fail "NFS server did not start on $NETNS_HOST"
  mkdir -p "$T/nsallow"
  ip netns exec "$NETNS" "$AGENT" --listen "10.215.$x.2:7878" --insecure --allow "$T/nsallow" \
    --allow-nfs "nfs://$NETNS_HOST/" >"$T/nsagent.out" 2>"$T/nsagent.log" &
  PIDS+=($!)
  wait_grep "$T/nsagent.out" "^listening on 10.215.$x.2:7878" 10 \
    || fail "the agent in the namespace did not start: $(cat "$T/nsagent.log")"
  NETNS_AGENT=10.215.$x.2:7878
}
