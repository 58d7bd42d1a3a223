#!/usr/bin/env bash
# --allow-nfs covers the whole URL (issue 15, item 3): parameters that set
# the identity the server sees (uid=, gid=, ...) are refused unless the
# agent's rule carries the same value, with a reason naming the parameter;
# unknown parameters are refused by name; ports and version stay free; a
# rule carrying uid=1000 allows exactly uid=1000, and the file it makes is
# owned by 1000 on the (no_root_squash) export.  Bad rules stop the agent.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export" "$T/local"; chmod 777 "$T/export"
nfs_server_start "$T/export" || fail "NFS server did not start"
job=(--rw=write --bs=4k --size=64k --ioengine=nfs)

# 1. a plain rule: identity parameters refused, tuning ones free
start_agent "$T/local" --allow-nfs "nfs://127.0.0.1$T/export"
expect_fail "uid=0&gid=0" "plan refused: .*&uid=0&gid=0: parameter uid=0 changes the identity or security the server sees; no --allow-nfs rule for this export allows it" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=u "--nfs_url=$NFS_URL3&uid=0&gid=0" --filename=asroot "${job[@]}"
[ -e "$T/export/asroot" ] && fail "a refused URL created $T/export/asroot"
expect_fail "unknown parameter" "plan refused: .*: unknown NFS URL parameter 'frobnicate'" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=u "--nfs_url=$NFS_URL3&frobnicate=1" --filename=f "${job[@]}"
expect_fail "parameter twice" "plan refused: .*: parameter 'nfsport' given twice" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=u "--nfs_url=$NFS_URL3&nfsport=1" --filename=f "${job[@]}"
expect_fail "other export" "plan refused: nfs://127\.0\.0\.1/elsewhere.* is outside the allowed NFS exports" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=u "--nfs_url=${NFS_URL3/$T\/export//elsewhere}" --filename=f "${job[@]}"
expect_fail "dot-dot" "plan refused: .*: '\.\.' in the NFS path" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=u "--nfs_url=${NFS_URL3/$T\/export/$T/export/..}" --filename=f "${job[@]}"
# libnfs decodes %XX in the whole URL before it parses it, and reads "3;uid=0" as version 3: an escaped '..',
# '?' or '&', and a value that is not one plain word, are refused (issue 23, item 11); nothing is created
mkdir -p "$T/outside"; chmod 777 "$T/outside"
expect_fail "escaped dot-dot" "plan refused: .*a '%' escape in an NFS URL is refused" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=u "--nfs_url=${NFS_URL3/$T\/export/$T/export/%2e%2e/outside}" --filename=esc "${job[@]}"
expect_fail "escaped parameter" "plan refused: .*a '%' escape in an NFS URL is refused" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=u "--nfs_url=$NFS_URL3%26uid%3D0" --filename=esc "${job[@]}"
expect_fail "semicolon value" "plan refused: .*parameter mountport's value '[0-9]*;uid=0' is not a plain word" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=u "--nfs_url=$NFS_URL3;uid=0" --filename=semi "${job[@]}"
[ -n "$(find "$T/outside" "$T/export" -name 'esc*' -o -name 'semi*')" ] && fail "a refused URL created a file"
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=p "--nfs_url=$NFS_URL3" --filename=plain "${job[@]}" \
  >"$T/o" 2>&1 || fail "plain URL with ports refused: $(tail -n1 "$T/o")"
[ "$(stat -c %s "$T/export/plain")" = 65536 ] || fail "plain run did not write 64 KiB"
kill "$AGENT_PID"

# 2. a rule carrying uid=1000: exactly uid=1000 passes
start_agent "$T/local" --allow-nfs "nfs://127.0.0.1$T/export?uid=1000"
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=k "--nfs_url=$NFS_URL3&uid=1000" --filename=as1000 \
  "${job[@]}" >"$T/o" 2>&1 || fail "uid=1000 refused under a rule carrying uid=1000: $(tail -n1 "$T/o")"
[ "$(stat -c %u "$T/export/as1000")" = 1000 ] || fail "as1000 owned by $(stat -c %u "$T/export/as1000"), not 1000"
expect_fail "uid=1001" "plan refused: .*: parameter uid=1001: the --allow-nfs rule for this export allows only uid=1000" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=k "--nfs_url=$NFS_URL3&uid=1001" --filename=f "${job[@]}"
expect_fail "gid=0 under a uid rule" "plan refused: .*: parameter gid=0 changes the identity" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=k "--nfs_url=$NFS_URL3&uid=1000&gid=0" --filename=f "${job[@]}"
kill -0 "$AGENT_PID" || fail "agent died"

# 3. rules are checked at start
timeout 5 "$AGENT" --insecure --allow "$T/local" --allow-nfs "nfs://127.0.0.1/x?uid" >"$T/a" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "rule with a bare parameter: exit $rc"
grep -q "^nfstorm-agent: --allow-nfs nfs://127.0.0.1/x?uid: --allow-nfs rule: parameter 'uid' has no value$" "$T/a" \
  || fail "bad rule message: $(cat "$T/a")"
timeout 5 "$AGENT" --insecure --allow "$T/local" --allow-nfs "nfs://127.0.0.1/x?bogus=1" >"$T/a" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "unknown NFS URL parameter 'bogus'" "$T/a" || fail "unknown rule parameter: exit $rc: $(cat "$T/a")"
echo "allow-nfs covers parameters: uid=0 refused, uid=1000 exactly under its rule, unknown refused by name"
