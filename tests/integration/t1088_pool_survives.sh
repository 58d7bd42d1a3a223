#!/usr/bin/env bash
# A pool survives its submitters and its agents: a submitter killed
# (SIGKILL) mid-run has its run stopped (serve logs it, the agents see the
# run end and rejoin the pool) and the next submission succeeds on all
# three; an agent that goes leaves the pool ("agent left") and the next run
# has the other two.  SIGTERM of serve mid-run: the submitter exits 1
# saying so, the agents go back to dialling and a new serve on the same
# port gets them back for a run.
. "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
D=$T/d; mkdir -p "$D"
slow="--name=s --rw=write --bs=4k --size=64k --time_based --runtime=20 --rate_iops=20 --filename=$D/s.\${agent}"
fast="--name=f --rw=write --bs=4k --size=32k --filename=$D/f.\${agent}"
nstarted() { grep -c 'started on 3 agents' "$T/serve.log"; }
wait_started() {
  for _ in $(seq 100); do [ "$(nstarted)" -ge "$1" ] && return 0; sleep 0.05; done
  fail "run $1 did not start: $(tail -n 3 "$T/serve.log")"
}

start_serve
for n in a b c; do dial_agent $n "$D" --label $n; done
pool_has 3

# the submitter killed mid-run
"$NFSTORM" run --pool 127.0.0.1:$CPORT --secret-file "$SECRET" $slow >"$T/o1" 2>"$T/e1" &
p1=$!; PIDS+=($p1)
wait_started 1
sleep 1
t0=$(date +%s%N)
kill -9 $p1; wait $p1 2>/dev/null
for _ in $(seq 100); do grep -q 'ended: exit status 130 (its submitter went)' "$T/serve.log" && break; sleep 0.05; done
grep -q 'ended: exit status 130 (its submitter went)' "$T/serve.log" || fail "the orphaned run was not stopped: $(tail -n 4 "$T/serve.log")"
pool_has 3
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $ms -lt "$(bound_ms 5000)" ] || fail "agents took $ms ms to come back after the run stopped (a 20 s run; goal 5 s + 2 baselines of ${BASE_MS} ms)"
prun "$T/o2" "$T/e2" $fast --json "$T/r2.json" || fail "run after the killed submitter: exit $?: $(tail -n 3 "$T/e2")"
py "$T/r2.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]] == [8, 8, 8], r["phases"][0]["agents"]
PY

# an agent lost: it leaves the pool, the next run has two
pool_has 3
stop_agent c
for _ in $(seq 100); do grep -q 'agent left: .* labels\|agent left: ' "$T/serve.log" && break; sleep 0.05; done
pool_has 2
grep -Eq '^nfstorm serve: agent left: [^ ]+ \(127\.0\.0\.1:[0-9]+\): connection closed  \[2 in the pool\]$' "$T/serve.log" ||
  fail "no 'agent left' line: $(tail -n 3 "$T/serve.log")"
prun "$T/o3" "$T/e3" $fast --json "$T/r3.json" || fail "run with two: exit $?: $(tail -n 3 "$T/e3")"
py "$T/r3.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]] == [8, 8], r["phases"][0]["agents"]
PY
dial_agent c "$D" --label c
pool_has 3

# SIGTERM of serve mid-run
"$NFSTORM" run --pool 127.0.0.1:$CPORT --secret-file "$SECRET" $slow >"$T/o4" 2>"$T/e4" &
p4=$!; PIDS+=($p4)
wait_started 3
sleep 1
ls -d "$T"/nfstorm-serve.* >/dev/null 2>&1 || fail "the running run's directory is not in \$TMPDIR ($T)"
kill "$SPID"
wait $p4; rc=$?
[ $rc = 1 ] || fail "the submitter of a run serve stopped: exit $rc, want 1: $(tail -n 3 "$T/e4")"
grep -q "^nfstorm: pool 127\.0\.0\.1:$CPORT: nfstorm serve is shutting down: the run was stopped$" "$T/e4" ||
  fail "the submitter was not told why: $(tail -n 3 "$T/e4")"
for _ in $(seq 100); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$SPID" 2>/dev/null && fail "serve did not exit on SIGTERM"
wait "$SPID"; [ $? = 0 ] || fail "serve's exit status after SIGTERM is not 0"
# (serve's run directories are made in $TMPDIR, $T here: start_serve)
left=$(ls -d "$T"/nfstorm-serve.* 2>/dev/null)
[ -z "$left" ] || fail "serve left a run directory behind: $left"
# the agents dial again; a new serve gets them back
start_serve
pool_has 3
prun "$T/o5" "$T/e5" $fast --expect 3 --expect-timeout 20s --json "$T/r5.json" || fail "run on the restarted pool: exit $?: $(tail -n 3 "$T/e5")"
py "$T/r5.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [a["ops"]["write"]["ops"] for a in r["phases"][0]["agents"]] == [8, 8, 8], r["phases"][0]["agents"]
PY
exit 0
