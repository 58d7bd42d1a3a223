#!/usr/bin/env bash
# Issue 10, "fleets mix versions": a peer of another protocol version is
# refused at connect time, naming both versions, on both sides, in every
# direction and path; never a decode error, never a hang.  The other
# version is a scripted peer (py/version_peer.py) whose hello/welcome
# also lacks keys this version requires, so only reading the version
# first can say "version" rather than "bad welcome".
#   coordinator dials (run, clean): a future agent's welcome; an agent's
#     refusal carrying its version; an older agent's refusal without it
#   a listening agent dialled by a future coordinator; it still serves
#   an agent dialling out (--coordinator): refused by the coordinator's
#     hello and by a coordinator's error, and it keeps dialling
#   a listening coordinator (run --listen) dialled by a future agent, and
#     by an agent of another version that refuses its hello
. "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
. "$(dirname "$0")/dialin_lib.sh"
PEER=$ROOT/tests/integration/py/version_peer.py
PV=$("$NFSTORM" --version | sed -n 's/.*(protocol \([0-9]*\)).*/\1/p')
[ -n "$PV" ] || fail "no protocol version in --version"
OV=$((PV + 2))   # a version that is not ours
JOB="--name=x --rw=write --bs=4k --size=64k"
mkdir -p "$T/d"

# fake_agent NAME ANSWER [V]: a scripted agent; sets FADDR
fake_agent() {
  python3 "$PEER" agent "$T/$1.port" "$2" ${3:-} >"$T/$1.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do [ -s "$T/$1.port" ] && break; sleep 0.05; done
  FADDR=127.0.0.1:$(cat "$T/$1.port")
}

# ---- the coordinator dials: run and clean ----
for case in "welcome 99" "welcome 1" "error $((PV + 1))" "olderror"; do
  set -- $case
  name=${1}${2:-}
  fake_agent "$name" "$@"
  if [ "$1" = olderror ]; then
    want="^nfstorm: agent 0 \($FADDR\): protocol version mismatch: agent speaks 1, coordinator $PV$"
  else
    want="^nfstorm: agent $FADDR speaks protocol $2, this coordinator $PV: upgrade one of them$"
  fi
  for cmd in run clean; do
    start=$(date +%s%N)
    timeout 20 "$NFSTORM" $cmd --agents "$FADDR" --quiet $JOB --filename="$T/d/f" >"$T/$name.$cmd" 2>&1; rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ $rc -ne 124 ] || fail "$name $cmd: hung"
    [ $rc -eq 1 ] || fail "$name $cmd: exit $rc, want 1: $(cat "$T/$name.$cmd")"
    [ $cmd = clean ] && w=${want/#^nfstorm: /^nfstorm: clean: } || w=$want
    grep -Eq "$w" "$T/$name.$cmd" || fail "$name $cmd: no /$w/ in: $(cat "$T/$name.$cmd")"
    ! grep -Eq "bad welcome|missing key|unexpected message" "$T/$name.$cmd" ||
      fail "$name $cmd: a decode error instead of the version: $(cat "$T/$name.$cmd")"
    [ $ms -lt "$(bound_ms 5000)" ] || fail "$name $cmd: took $ms ms (goal 5 s + 2 baselines of ${BASE_MS} ms)"
  done
  [ "$(grep -c "^hello version=$PV$" "$T/$name.log")" = 2 ] || fail "$name: hellos: $(cat "$T/$name.log")"
  if [ "$1" = welcome ]; then   # it is told why, by run and by clean
    [ "$(grep -c "^got error text=protocol version mismatch: coordinator speaks $PV, agent $2 version=$PV$" "$T/$name.log")" = 2 ] ||
      fail "$name: the agent was not told: $(cat "$T/$name.log")"
  fi
  echo "ok: $name: $(grep -o 'agent .*' "$T/$name.run" | head -1)"
done

# ---- a listening agent, dialled by a future coordinator ----
start_agent "$T/d"
port=${AGENT_ADDR##*:}
python3 "$PEER" dial "$port" 99 >"$T/dial.out" 2>&1 || fail "dial peer: $(cat "$T/dial.out")"
grep -qx "got error text=protocol version mismatch: agent speaks $PV, coordinator 99 version=$PV" "$T/dial.out" ||
  fail "the agent's refusal: $(cat "$T/dial.out")"
sed -n 2p "$T/dial.out" | grep -qx closed || fail "the agent did not hang up: $(cat "$T/dial.out")"
alog=$(ls "$T"/agent.*.log | head -1)
grep -Eq "warn: coordinator 127\.0\.0\.1:[0-9]+ speaks protocol 99, this agent $PV: upgrade one of them$" "$alog" ||
  fail "the agent's log: $(cat "$alog")"
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet $JOB --filename="$T/d/f" --json "$T/r.json" >"$T/after" 2>&1 ||
  fail "the agent no longer serves: $(cat "$T/after")"
py "$T/r.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
b = json.dumps(r)
assert '"bytes": 65536' in b, "the run after the refusal wrote 64 KiB"
PYEOF
echo "ok: a listening agent refuses protocol 99 naming both, then serves a run"

# ---- an agent dialling out: refused by hello (99), then by error (3) ----
python3 "$PEER" coordinator $CPORT 99 "$PV" $OV >"$T/coord.out" 2>&1 &
CP=$!; PIDS+=($CP)
sleep 0.3
dial_agent dialer "$T/d" --label rack1
for _ in $(seq 150); do kill -0 $CP 2>/dev/null || break; sleep 0.1; done
kill -0 $CP 2>/dev/null && fail "the dialling agent did not dial twice: $(cat "$T/coord.out") $(cat "$T/dialer.log")"
sed -n 1p "$T/coord.out" | grep -qx "got error text=protocol version mismatch: agent speaks $PV, coordinator 99 version=$PV" ||
  fail "dialling agent's refusal: $(cat "$T/coord.out")"
grep -qx "second: welcome version=$PV" "$T/coord.out" || fail "no second dial: $(cat "$T/coord.out")"
grep -Eq "coordinator 127\.0\.0\.1:$CPORT speaks protocol 99, this agent $PV: upgrade one of them \(retrying" "$T/dialer.log" ||
  fail "dialling agent's log (hello): $(cat "$T/dialer.log")"
for _ in $(seq 30); do
  grep -q "speaks protocol $OV, this agent" "$T/dialer.log" && break; sleep 0.1
done
grep -Eq "coordinator 127\.0\.0\.1:$CPORT speaks protocol $OV, this agent $PV: upgrade one of them \(retrying" "$T/dialer.log" ||
  fail "dialling agent's log (error): $(cat "$T/dialer.log")"
kill -0 "$DPID" || fail "the dialling agent exited"
stop_agent dialer
echo "ok: a dialling agent refuses protocol 99, is refused by protocol $OV, names both and keeps dialling"

# ---- a listening coordinator, dialled by a future agent ----
python3 "$PEER" welcome $CPORT 99 >"$T/welcome.out" 2>&1 &
PIDS+=($!)
( sleep 0.2; exec python3 "$PEER" refuse $CPORT $OV >"$T/refuse.out" 2>&1 ) &
PIDS+=($!)
crun "$T/listen" $JOB --filename="$T/d/f" --expect 1 --expect-timeout 3s; rc=$?
[ $rc = 2 ] || fail "listen: exit $rc, want 2: $(cat "$T/listen")"
grep -Eq "^nfstorm: refused: agent 127\.0\.0\.1:[0-9]+ speaks protocol 99, this coordinator $PV: upgrade one of them$" "$T/listen" ||
  fail "listen: no refusal line: $(cat "$T/listen")"
grep -Eq "^nfstorm: refused: agent 127\.0\.0\.1:[0-9]+ speaks protocol $OV, this coordinator $PV: upgrade one of them$" "$T/listen" ||
  fail "listen: no line for the agent that refused our hello: $(cat "$T/listen") / peer: $(cat "$T/refuse.out")"
grep -qx "hello version=$PV" "$T/refuse.out" || fail "listen: refuse peer: $(cat "$T/refuse.out")"
grep -qx "nfstorm: expected 1 agent, 0 joined within 3s" "$T/listen" || fail "listen: it counted: $(cat "$T/listen")"
wait_grep "$T/welcome.out" '^got error text=' 5
grep -qx "got error text=protocol version mismatch: coordinator speaks $PV, agent 99 version=$PV" "$T/welcome.out" ||
  fail "listen: the agent was not told: $(cat "$T/welcome.out")"
! grep -q "not an nfstorm agent" "$T/listen" || fail "listen: a decode error: $(cat "$T/listen")"
echo "ok: a listening coordinator refuses protocol 99, logs protocol $OV refusing it, names both; neither counts"
