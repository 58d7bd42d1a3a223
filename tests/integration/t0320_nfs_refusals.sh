#!/usr/bin/env bash
# t0320: NFS targets that cannot work are refused before any timed I/O:
# an unreachable server, a missing export (on one of two agents) and a URL
# outside the agent's --allow-nfs list.  Each run exits 1 with a message
# naming the agent, the URL and the reason, and no interval was measured.
source "$(dirname "$0")/lib.sh"
command -v ganesha.nfsd >/dev/null 2>&1 || skip "ganesha.nfsd is not installed"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; cleanup' EXIT
mkdir -p "$T/export/0" "$T/local"
chmod 777 "$T/export/0"
nfs_server_start "$T/export" || fail "NFS server did not start"

job=(--rw=randwrite --bs=4k --size=1m --iodepth=4 --runtime=5 --time_based --ioengine=nfs)

# no_io JSON: the run measured nothing
no_io() {
  py "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for ph in r["phases"]:
    assert not ph["finished"], "a phase finished"
    assert not ph["intervals"], "intervals were measured: %s" % ph["intervals"][:1]
PY
}

# 1. unreachable: nothing listens on port 1
bad="nfs://127.0.0.1/nowhere?nfsport=1&mountport=1"
expect_fail unreachable "agent 0 \(.*\): .*nfs://127\.0\.0\.1/nowhere\?nfsport=1&mountport=1: mount failed: server 127\.0\.0\.1 unreachable: cannot connect to port 1: Connection refused" \
  "$NFSTORM" run --local 1 --quiet --json "$T/unreach.json" --name=u "--nfs_url=$bad" "${job[@]}"
no_io "$T/unreach.json"

# 2. missing export on agent 1 only (NFSv4 pseudo path /nfstorm/1);
#    agent 0, whose export /nfstorm/0 exists, must not start either
url4=${NFS_URL4/\/nfstorm\?//nfstorm/\$\{agent\}?}
expect_fail "missing export" "agent 1 \(.*\): .*nfs://127\.0\.0\.1/nfstorm/1\?version=4.*: mount failed: .*NOENT" \
  "$NFSTORM" run --local 2 --quiet --json "$T/missing.json" --name=m "--nfs_url=$url4" "${job[@]}"
no_io "$T/missing.json"
# prepare may create and size agent 0's file (zeros); no workload data in it
f0=$T/export/0/m.0.0.0
[ ! -f "$f0" ] || cmp -s "$f0" <(head -c "$(stat -c %s "$f0")" /dev/zero) \
  || fail "missing export: agent 0 wrote data into its file"

# 3. outside --allow-nfs: the agent allows another export only
start_agent "$T/local" --allow-nfs "nfs://127.0.0.1/elsewhere"
expect_fail "outside --allow-nfs" "agent 0 \(.*\): plan refused: .*nfs://127\.0\.0\.1/tmp.* is outside the allowed NFS exports \(--allow-nfs\)" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/outside.json" --name=o "--nfs_url=$NFS_URL3" "${job[@]}"
[ -z "$(ls -A "$T/export" | grep -v '^0$')" ] || fail "outside --allow-nfs: files appeared in the export: $(ls "$T/export")"
echo "t0320: PASS"
