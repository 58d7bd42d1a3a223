#!/usr/bin/env bash
# Defect 9 and the verdicts: an agent that takes part in a phase but
# completes no op fails the phase (exit 1, agent and phase named in the
# JSON's reasons and on stderr).  Agent 1 is SIGSTOPped from just after the
# start until after its job's window (startdelay=2 runtime=1), so it wakes
# up with the window over and issues nothing; it is back well before the
# agent timeout, so it is not lost.  Its idle start instant must not count
# in the start skew, and its "done" is true (it sent its phase-done).
source "$(dirname "$0")/lib.sh"
mkdir -p "$T/d0" "$T/d1"
start_agent "$T/d0"; A0=$AGENT_ADDR
start_agent "$T/d1"; A1=$AGENT_ADDR; P1=$AGENT_PID
timeout 60 "$NFSTORM" run --agents "$A0,$A1" --json "$T/z.json" --name=z --ioengine=null --rw=read \
  --bs=4k --size=1m --startdelay=2 --runtime=1 --time_based >"$T/out" 2>"$T/err" &
c=$!
for _ in $(seq 200); do grep -q "started on" "$T/err" && break; sleep 0.05; done
grep -q "started on" "$T/err" || fail "the phase never started: $(tail -n2 "$T/err")"
sleep 0.3; kill -STOP "$P1"; sleep 4; kill -CONT "$P1"
wait $c; rc=$?
[ $rc -eq 1 ] || fail "exit status $rc, want 1 (an agent completed no op): $(tail -n2 "$T/err")"
grep -q "phase z: agent 1 (127.0.0.1:[0-9]*): completed no op" "$T/err" ||
  fail "stderr does not name the phase and the agent: $(tail -n1 "$T/err")"
grep -q "^verdict: failed" "$T/out" || fail "the text report does not end with the verdict: $(tail -n1 "$T/out")"
py "$T/z.json" "$A1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); ph = r["phases"][0]
assert r["verdict"] == "failed" and r["exit_status"] == 1, (r["verdict"], r["exit_status"])
assert ph["verdict"] == "failed", ph["verdict"]
want = "agent 1 (%s): completed no op" % sys.argv[2]
assert want in ph["reasons"], ph["reasons"]
assert not any("agent 0" in x for x in ph["reasons"]), ph["reasons"]
a0, a1 = ph["agents"]
assert a0["ops"]["read"]["ops"] > 1000 and a1["ops"] == {}, (a0["ops"]["read"]["ops"], a1["ops"])
assert a1["done"] is True and a1["participating"] is True
# one agent issued ops: no skew to measure, never the idle agent's lateness
assert ph["start_skew_agents"] == 1 and ph["start_skew_ns"] == 0, (ph["start_skew_agents"], ph["start_skew_ns"])
PY
# nfstorm report gives the same verdict from the JSON
timeout 20 "$NFSTORM" report "$T/z.json" --json "$T/re.json" >"$T/ro" 2>&1
py "$T/re.json" "$A1" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"][0]
assert ph["verdict"] == "failed" and "agent 1 (%s): completed no op" % sys.argv[2] in ph["reasons"], ph["reasons"]
PY
grep -q "^verdict: failed" "$T/ro" || fail "nfstorm report does not end with the verdict: $(tail -n1 "$T/ro")"
echo "ok: an agent with no op fails the phase (exit 1), named in reasons and on stderr"
