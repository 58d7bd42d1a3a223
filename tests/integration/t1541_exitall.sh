#!/usr/bin/env bash
# exitall across a fleet: a phase ends on every agent once one agent's
# exitall job finished (its own other jobs end there; the coordinator's
# phase-end ends the other agents'), the verdict stays ok and says why;
# exit_what=all skips the later phases (not run, not failed).
source "$(dirname "$0")/lib.sh"
timeout 30 "$NFSTORM" run "$ROOT/tests/fixtures/exitall-fleet.fio" --local 2 --quiet --json "$T/a.json" >"$T/out" 2>&1 || fail "$(tail -n3 "$T/out")"
py "$T/a.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
p = ph[0]
# agent 1's 20-s job was ended with agent 0's 1-s one: within a second
d = {a["id"]: a["duration_s"] for a in p["agents"]}
assert 0.9 < d[0] < 1.5 and d[1] < d[0] + 1.0, d
assert p["verdict"] == "ok", (p["verdict"], p["reasons"])
assert p["reasons"] == ["ended early: exitall (job 'short'): agent 0 finished first"], p["reasons"]
assert p["control"]["ended_early"] is True and p["control"]["skipped"] is False, p["control"]
assert p["ops"]["read"]["ops"] > 0 and p["ops"]["read"]["errors"] == 0, p["ops"]
# the run goes on: the next phase ran in full
assert ph[1]["ran"] and ph[1]["verdict"] == "ok" and 0.9 < ph[1]["duration_s"] < 1.5, ph[1]
assert "control" not in ph[1], ph[1]
PY

# one agent, both jobs there: its own exitall thread ends the other;
# exit_what=all then ends the run (the later phase is skipped, exit 0)
sed -e 's/^agents=.*$//' -e 's/^exitall$/exitall\nexit_what=all/' "$ROOT/tests/fixtures/exitall-fleet.fio" >"$T/b.fio"
timeout 30 "$NFSTORM" run "$T/b.fio" --local 1 --quiet --json "$T/b.json" >"$T/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "exit_what=all: exit $rc: $(tail -n3 "$T/out")"
py "$T/b.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ph = d["phases"]
assert 0.9 < ph[0]["duration_s"] < 1.5, ph[0]["duration_s"]
assert ph[0]["verdict"] == "ok", ph[0]["reasons"]
assert ph[1]["ran"] is False and ph[1]["verdict"] == "ok", ph[1]
assert ph[1]["control"]["skipped"] is True, ph[1]["control"]
assert ph[1]["reasons"] == ["not run: exit_what=all ended the run before this phase"], ph[1]["reasons"]
PY
# on a standing agent, exit_what=all leaves it idle: the next run on it runs
mkdir -p "$T/ag"
start_agent "$T/ag"
timeout 30 "$NFSTORM" run "$T/b.fio" --agents "$AGENT_ADDR" --quiet --json "$T/s1.json" >"$T/out" 2>&1 \
  || fail "standing agent, exit_what=all: $(tail -n3 "$T/out")"
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/s2.json" --name=again --ioengine=null \
  --size=1M --rw=read >"$T/out" 2>&1 || fail "the agent is not idle after exit_what=all: $(tail -n3 "$T/out")"
py "$T/s2.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
assert p["verdict"] == "ok" and p["ops"]["read"]["ops"] == 256, p
PY
# a saved result re-renders the same: control and the skipped phase's verdict
"$NFSTORM" report "$T/b.json" --json "$T/b2.json" >"$T/re" 2>&1 || fail "report: $(tail -n3 "$T/re")"
grep -q "^  - not run: exit_what=all ended the run before this phase$" "$T/re" || fail "report: $(cat "$T/re")"
py "$T/b.json" "$T/b2.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["phases"] for f in sys.argv[1:3])
assert [p.get("control") for p in a] == [p.get("control") for p in b], (a[1].get("control"), b[1].get("control"))
assert [p["verdict"] for p in b] == ["ok", "ok"] and b[1]["reasons"] == a[1]["reasons"], b[1]
PY
expect_fail exit_what "^nfstorm: --exit_what: bad value 'some' \(want group, stonewall or all\)$" \
  "$NFSTORM" run --parse-only --name=x --size=1M --exitall --exit_what=some
echo "exitall ends a phase on every agent"
