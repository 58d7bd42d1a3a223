#!/usr/bin/env bash
# A phase's control outcome is journalled: re-rendered from the journal
# (what is left after the coordinator was killed), an exitall phase still
# says it ended early and why, and the JSON's "control" object is the one
# of the run's own result (the journal had no trace of it: "phase verdict:
# ok" with no reason, a 1-s phase of a 20-s job read as a full run).
source "$(dirname "$0")/lib.sh"
timeout 30 "$NFSTORM" run "$ROOT/tests/fixtures/exitall-fleet.fio" --local 2 --quiet --json "$T/a.json" >"$T/out" 2>&1 || fail "$(tail -n3 "$T/out")"
want="  - ended early: exitall (job 'short'): agent 0 finished first"
grep -qxF "$want" "$T/out" || fail "run: no reason: $(grep -A2 'phase verdict' "$T/out")"
timeout 30 "$NFSTORM" report "$T/a.json.journal" --json "$T/j.json" >"$T/re" 2>&1 || fail "report: $(tail -n2 "$T/re")"
grep -qxF "$want" "$T/re" || fail "journal: no reason: $(grep -A2 'phase verdict' "$T/re")"
py "$T/a.json" "$T/j.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["phases"][0] for f in sys.argv[1:3])
assert a["control"]["ended_early"] is True, a["control"]
assert b.get("control") == a["control"], (b.get("control"), a["control"])
assert b["reasons"] == a["reasons"] and b["verdict"] == "ok", b["reasons"]
PY
echo "an exitall phase re-rendered from the journal says it ended early and why"
