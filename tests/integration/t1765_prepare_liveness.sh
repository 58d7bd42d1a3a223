#!/usr/bin/env bash
# Issue 23 item 4: preparation has a liveness rule.  Pings alone do not
# keep an agent in a run: an authenticated peer that answers every ping
# but never sends ready is lost after --prepare-timeout (the run goes on
# with the real agent: partial, exit 3, naming it and why); one whose
# layout progress stops is lost after --agent-timeout (alone: the run
# fails, naming it); and a real agent whose layout write hangs on a stuck
# mount (faultfs wslow: the write sleeps 8 s while the agent's loop still
# answers) is lost the same way, within seconds.  Before, each of these
# held the run until Ctrl-C.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fake_agent.sh"
source "$(dirname "$0")/faultfs_lib.sh"
D=$T/d; mkdir -p "$D"
head -c 32 /dev/urandom | base64 >"$T/secret"; chmod 600 "$T/secret"
AGENT_AUTH="--secret-file $T/secret"
start_agent "$D"; real=$AGENT_ADDR

# 1. never ready: lost after --prepare-timeout 2s, the real agent's run is whole
fake_agent neverready "$T/secret"
SECONDS=0
timeout 40 "$NFSTORM" run --agents "$FAKE_ADDR,$real" --secret-file "$T/secret" --quiet --prepare-timeout 2s \
  --json "$T/r1.json" --name=w --rw=write --bs=4k --size=256k '--filename='"$D"'/f.${agent}' >"$T/o1" 2>&1; rc=$?
took=$SECONDS
[ $rc -ne 124 ] || fail "a peer that never sends ready held the run for 40 s"
[ $rc -eq 3 ] || fail "never ready: exit status $rc, want 3 (partial): $(tail -n 3 "$T/o1")"
[ $took -le 12 ] || fail "never ready: the run took ${took}s with --prepare-timeout 2s"
grep -Eq "partial run: 1 of 2 agents lost: agent 0 \($FAKE_ADDR\) at [0-9.]+ s \(not ready for phase 0 after [2-5]\.[0-9] s of preparation without layout progress \(--prepare-timeout\)\)" "$T/o1" ||
  fail "never ready: no reason naming the agent: $(tail -n 3 "$T/o1")"
py "$T/r1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [a.get("lost", False) for a in r["agents"]] == [True, False], r["agents"]
assert r["phases"][0]["agents"][1]["ops"]["write"]["ops"] == 64, r["phases"][0]["agents"][1]
PY

# 2. a layout reported but stuck: lost after --agent-timeout 2s; alone, the run fails naming it
fake_agent stuckprogress "$T/secret"
SECONDS=0
timeout 40 "$NFSTORM" run --agents "$FAKE_ADDR" --secret-file "$T/secret" --quiet --agent-timeout 2s \
  --name=r --rw=read --bs=4k --size=1m --filename=f >"$T/o2" 2>&1; rc=$?
took=$SECONDS
[ $rc -ne 124 ] || fail "a stuck layout held the run for 40 s"
[ $rc -ne 0 ] && [ $rc -ne 3 ] || fail "stuck layout: exit status $rc, want a failure: $(tail -n 3 "$T/o2")"
[ $took -le 10 ] || fail "stuck layout: the run took ${took}s with --agent-timeout 2s"
grep -Eq "all agents lost; the last, agent 0 \($FAKE_ADDR\): its layout for phase 0 made no progress for [2-5]\.[0-9] s \(4096 of 1048576 bytes laid out; --agent-timeout\)" "$T/o2" ||
  fail "stuck layout: no reason naming the agent: $(tail -n 3 "$T/o2")"

# 3. a real agent on a mount whose 5th write hangs 15 s: lost within seconds
faultfs_mount "wslow,file=lay*,skip=4,count=1,ms=8000"
start_agent "$FFS_M"; stuck=$AGENT_ADDR
SECONDS=0
timeout 40 "$NFSTORM" run --agents "$real,$stuck" --secret-file "$T/secret" --quiet --agent-timeout 2s \
  --json "$T/r3.json" --name=lay --rw=read --bs=64k --size=16m '--filename=lay.${agent}' >"$T/o3" 2>&1; rc=$?
took=$SECONDS
[ $rc -eq 3 ] || fail "stuck mount: exit status $rc, want 3 (partial): $(tail -n 3 "$T/o3")"
[ $took -le 7 ] || fail "stuck mount: the run took ${took}s (the write hangs 8 s; --agent-timeout 2s)"
grep -q "^kind=wslow file=lay.1" "$FFS_LOG" || fail "the slow write never happened: the test proves nothing"
grep -Eq "partial run: 1 of 2 agents lost: agent 1 \($stuck\) at [0-9.]+ s \(its layout for phase 0 made no progress for [2-5]\.[0-9] s \([0-9]+ of 16777216 bytes laid out; --agent-timeout\)\)" "$T/o3" ||
  fail "stuck mount: no reason naming the agent: $(tail -n 3 "$T/o3")"
py "$T/r3.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [a.get("lost", False) for a in r["agents"]] == [False, True], r["agents"]
assert r["phases"][0]["agents"][0]["ops"]["read"]["ops"] == 256, r["phases"][0]["agents"][0]
PY
echo "never ready: lost after --prepare-timeout; stuck layout (fake and real mount): lost after --agent-timeout; ${took}s"
