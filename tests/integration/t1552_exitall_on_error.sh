#!/usr/bin/env bash
# Issue 22 item 4, fio's exitall_on_error: a job thread that ends on an
# error (faultfs refuses its writes with ENOSPC) ends the phase's other
# jobs at once, on its own agent (agent/job.c) and on the fleet's other
# agents (the coordinator stops them), and the phase's control and the
# report name the job and the error.  Without the key the sibling job runs
# its whole runtime (checked too: the key is what ends it).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "nospc,file=bad*,len=1m"
plan() {  # plan FILE AGENTS_OF_BAD AGENTS_OF_LONG [exitall_on_error]
  printf '[global]\ndirectory=%s\nbs=64k\n' "$FFS_M" >"$1"
  printf '[bad]\nrw=write\nfilename=bad.dat\nsize=4m\nfallocate=none\nagents=%s\n%s\n' "$2" "${4:-}" >>"$1"
  printf '[long]\nrw=write\nfilename=long.$agent\nsize=1m\ntime_based\nruntime=20\nagents=%s\n' "$3" >>"$1"
}
check() {  # check NAME: the phase ended within seconds, naming job and error
  py "$T/$1.json" "$FFS_M" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
why = (p.get("control") or {}).get("why", "")
want = "exitall_on_error: agent 0: job 'bad': %s/bad.dat: write failed: ENOSPC" % sys.argv[2]
assert why.startswith(want), (why, want)
assert p["control"]["ended_early"] is True, p["control"]
assert any(r.startswith("ended early: " + want) for r in p["reasons"]), p["reasons"]
assert max(a["duration_s"] for a in p["agents"]) < 10, [a["duration_s"] for a in p["agents"]]
assert p["ops"]["write"]["ops"] > 0, p["ops"]
PY
}
# one agent: the failing job's sibling there ends with it
plan "$T/one.fio" 0 0 exitall_on_error
SECONDS=0
timeout 60 "$NFSTORM" run "$T/one.fio" --local 1 --quiet --json "$T/one.json" >"$T/one.out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "one agent: exit $rc, want 1: $(tail -n3 "$T/one.out")"
[ $SECONDS -lt 15 ] || fail "one agent: the sibling job ran on (${SECONDS}s)"
check one
grep -q "exitall_on_error: agent 0: job 'bad': .*bad.dat: write failed: ENOSPC" "$T/one.out" \
  || fail "report: $(cat "$T/one.out")"
# the fleet: the error on agent 0 ends agent 1's job
plan "$T/two.fio" 0 1 exitall_on_error
timeout 60 "$NFSTORM" run "$T/two.fio" --local 2 --quiet --json "$T/two.json" >"$T/two.out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "two agents: exit $rc, want 1: $(tail -n3 "$T/two.out")"
check two
# the saved result re-renders the same control
"$NFSTORM" report "$T/two.json" --json "$T/two2.json" >"$T/re" 2>&1
py "$T/two.json" "$T/two2.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["phases"][0].get("control") for f in sys.argv[1:3])
assert a == b, (a, b)
PY
# without the key the sibling on the failing agent runs its runtime out
plan "$T/off.fio" 0 0
sed -i 's/^runtime=20$/runtime=3/' "$T/off.fio"
timeout 60 "$NFSTORM" run "$T/off.fio" --local 1 --quiet --json "$T/off.json" >"$T/off.out" 2>&1
py "$T/off.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
assert "control" not in p, p.get("control")
assert max(a["duration_s"] for a in p["agents"]) > 2.5, [a["duration_s"] for a in p["agents"]]
PY
echo "exitall_on_error ends the phase on every agent, naming the job and its error"
