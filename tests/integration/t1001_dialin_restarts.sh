#!/usr/bin/env bash
# Dial-in agents across restarts: an agent killed and restarted between
# runs rejoins; a coordinator killed with SIGKILL mid-run leaves its agents
# idle (they see the connection go, stop their I/O, dial again) and the
# next coordinator's run succeeds; an agent that dials in while a run is
# in progress is not in that run (the coordinator does not listen then:
# refused, it backs off) and is in the next.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
D=$T/d; mkdir -p "$D"
job() { echo "--name=w --rw=write --bs=4k --size=${1:-64k} --filename=$D/f.\${agent} ${2:-}"; }

dial_agent a "$D" --label a
dial_agent b "$D" --label b
crun "$T/o1" $(job) --expect 2 --expect-timeout 20s --json "$T/r1.json" || fail "run 1: $(tail -n 3 "$T/o1")"

# agent b killed and started again: it rejoins the next run
stop_agent b
dial_agent b "$D" --label b
crun "$T/o2" $(job) --expect 2 --expect-timeout 20s --json "$T/r2.json" || fail "run 2 (b restarted): $(tail -n 3 "$T/o2")"
grep -q "labels=b  \[" "$T/o2" || fail "run 2: the restarted agent b did not join: $(grep joined "$T/o2")"

# the coordinator killed mid-run (a 30 s time-based run, killed after its start)
nready() { grep -c "phase 0 'w' ready" "$T/a.log"; }
r0=$(nready)
"$NFSTORM" run --listen 127.0.0.1:$CPORT --secret-file "$SECRET" --expect 2 --quiet \
  $(job 1m "--time_based --runtime=30") >"$T/o3" 2>&1 &
cpid=$!
PIDS+=($cpid)
for _ in $(seq 100); do [ "$(nready)" -gt "$r0" ] && break; sleep 0.1; done
[ "$(nready)" -gt "$r0" ] || fail "run 3 did not start on agent a: $(tail -n 5 "$T/a.log")"
sleep 1
g1=$(files_sig "$D"); sleep 0.3; g2=$(files_sig "$D")
[ "$g1" != "$g2" ] || fail "the files did not change while run 3 ran: the check below cannot see"
nover() { grep -c "session [0-9]* with coordinator .* over" "$T/$1.log"; }
oa=$(nover a); ob=$(nover b)
kill -9 $cpid
wait $cpid 2>/dev/null
t_kill=$(date +%s.%N)
# both agents notice and end the session (their I/O stops), then dial again
for n in a b; do
  o=$([ $n = a ] && echo $oa || echo $ob)
  for _ in $(seq 100); do [ "$(nover $n)" -gt "$o" ] && break; sleep 0.1; done
  [ "$(nover $n)" -gt "$o" ] || fail "agent $n did not end its session after the coordinator died: $(tail -n 5 "$T/$n.log")"
done
t_idle=$(date +%s.%N)
python3 -c "import sys; sys.exit(0 if $t_idle - $t_kill < 5 else 1)" || fail "agents took more than 5 s to go idle"
# the files stop growing: no I/O after the coordinator is gone
s1=$(files_sig "$D"); sleep 1; s2=$(files_sig "$D")
[ "$s1" = "$s2" ] || fail "I/O goes on after the coordinator died (the files changed)"
crun "$T/o4" $(job) --expect 2 --expect-timeout 20s --json "$T/r4.json" || fail "run 4 (after the kill): $(tail -n 3 "$T/o4")"

# a late joiner: c dials in while a 3 s run is going
crun "$T/o5" $(job 1m "--time_based --runtime=3") --expect 2 --expect-timeout 20s --json "$T/r5.json" &
rpid=$!
r0=$(nready)
for _ in $(seq 100); do [ "$(nready)" -gt "$r0" ] && break; sleep 0.1; done
[ "$(nready)" -gt "$r0" ] || fail "run 5 did not start on agent a"
dial_agent c "$D" --label c
wait $rpid || fail "run 5 (with a late joiner): $(tail -n 3 "$T/o5")"
grep -q "labels=c" "$T/o5" && fail "run 5: the late joiner c joined a run in progress: $(grep joined "$T/o5")"
crun "$T/o6" $(job) --expect 3 --expect-timeout 20s --json "$T/r6.json" || fail "run 6 (with c): $(tail -n 3 "$T/o6")"
grep -q "labels=c  \[" "$T/o6" || fail "run 6: c did not join: $(grep joined "$T/o6")"
py "$T/r1.json" "$T/r2.json" "$T/r4.json" "$T/r5.json" "$T/r6.json" <<'PY'
import json, sys
want = [2, 2, 2, 2, 3]
for f, n in zip(sys.argv[1:], want):
    r = json.load(open(f))
    assert len(r["agents"]) == n, (f, len(r["agents"]), n)
    ops = [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]]
    assert all(o > 0 for o in ops), (f, ops)
    if not f.endswith("r5.json"):
        assert ops == [16] * n, (f, ops)
PY
echo "ok: restart rejoined, coordinator SIGKILL: agents idle in $(python3 -c "print(round($t_idle - $t_kill, 1))") s and the next run passed, late joiner waited for the next run"
