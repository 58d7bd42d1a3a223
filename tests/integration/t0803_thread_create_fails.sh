#!/usr/bin/env bash
# A phase whose job threads cannot be created (RLIMIT_NPROC, set on the
# running agent with prlimit) fails with a clear error naming the thread,
# and the agent is idle again: once the limit is raised, the next run is
# served.  Both the first and a later pthread_create fail (issue 9,
# defect 5).  The agent runs as nobody: root ignores RLIMIT_NPROC; and
# nobody itself moves the agent's soft limit (below a hard limit of 4096),
# which needs no capability.
source "$(dirname "$0")/lib.sh"
command -v setpriv >/dev/null && command -v prlimit >/dev/null || skip "no setpriv/prlimit"
[ "$(id -u)" -eq 0 ] || skip "needs root to run the agent as nobody"
# RLIMIT_NPROC counts every task of the user, other processes' (zombies too)
others=$(ps -L -u nobody --no-headers | wc -l)
D=$T/d; mkdir -p "$D"; chmod 755 "$T"; chmod 777 "$D"
log=$T/agent.log
asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# nobody may not reach the checkout (a clone in a private directory): run a
# copy from $T, with the libnfs its rpath finds beside it ($ORIGIN/../deps)
mkdir -p "$T/x/bin"; cp "$AGENT" "$T/x/bin/"; AGENT=$T/x/bin/nfstorm-agent
[ -d "$ROOT/deps/libnfs/lib" ] && mkdir -p "$T/x/deps/libnfs" && cp -a "$ROOT/deps/libnfs/lib" "$T/x/deps/libnfs/"
chmod -R a+rX "$T/x"
asnobody "$AGENT" --version >/dev/null 2>&1 || skip "nobody cannot run the agent here"
setpriv --reuid=nobody --regid=nogroup --clear-groups bash -c 'ulimit -u 4096 && exec "$@"' agent "$AGENT" --listen 127.0.0.1:0 --insecure --allow "$D" \
  >"$T/agent.out" 2>"$log" &
AGENT_PID=$!; PIDS+=("$AGENT_PID")
for _ in $(seq 50); do grep -q '^listening on ' "$T/agent.out" 2>/dev/null && break; sleep 0.1; done
AGENT_ADDR=$(sed -n 's/^listening on //p' "$T/agent.out")
[ -n "$AGENT_ADDR" ] || fail "agent did not start: $(cat "$log")"

run() {  # run NAME NUMJOBS: one short write run
  timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/$1.json" --name="$1" --rw=write \
    --bs=4k --size=256k --numjobs="$2" --directory="$D" >"$T/$1" 2>&1
}
# a first run starts libuv's thread pool (4 threads): the limit counts them
run warm 1 || fail "first run failed: $(tail -n1 "$T/warm")"
ntasks() { ls /proc/$AGENT_PID/task | wc -l; }
# (the run's job thread may still be being joined as the coordinator
# exits: the count once it has held still for 0.3 s)
tasks=$(ntasks); same=0
for _ in $(seq 100); do
  sleep 0.1; now=$(ntasks)
  if [ "$now" = "$tasks" ]; then same=$((same + 1)); [ $same -ge 3 ] && break; else same=0; tasks=$now; fi
done
[ "$(ps -L -u nobody --no-headers | wc -l)" -eq $((others + tasks)) ] || skip "nobody's tasks change under us"

# the first job thread cannot be made
asnobody prlimit --pid "$AGENT_PID" --nproc=$((others + tasks)):4096 || fail "prlimit failed"
run first 2; rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "first thread refused: exit $rc"
grep -q "cannot create job thread 1 of 2: EAGAIN" "$T/first" \
  || fail "first thread refused without a clear error: $(tail -n1 "$T/first")"
# a later one cannot be made: thread 3 of 4
asnobody prlimit --pid "$AGENT_PID" --nproc=$((others + tasks + 2)):4096 || fail "prlimit failed"
run later 4; rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "later thread refused: exit $rc"
grep -q "cannot create job thread 3 of 4: EAGAIN" "$T/later" \
  || fail "later thread refused without a clear error: $(tail -n1 "$T/later")"
for _ in $(seq 100); do [ "$(ntasks)" -eq "$tasks" ] && break; sleep 0.05; done
[ "$(ntasks)" -eq "$tasks" ] || fail "threads of the failed phase were left running ($(ntasks), want $tasks)"
# the agent is idle: with the limit raised it serves the next run at once
asnobody prlimit --pid "$AGENT_PID" --nproc=4096:4096 || fail "prlimit failed"
run after 4 || fail "agent not served after failed thread starts: $(tail -n1 "$T/after")"
py "$T/after.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 256
PY
echo "first and later pthread_create failures reported; agent served afterwards"
