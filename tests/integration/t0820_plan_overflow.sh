#!/usr/bin/env bash
# Checked offset arithmetic (issue 9, defect 6): a plan whose regions pass
# the largest file offset is refused at plan time (exit 2, the key and its
# value named) before any agent is contacted, with the real agent count;
# the largest accepted value runs; and an agent refuses such a plan when a
# coordinator sends it anyway (a proxy rewrites offset_increment in flight).
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D"
alog=$(ls "$T"/agent.*.log | grep -v out | head -1)

# 1. the issue's plan: 8 EiB offset + 8 EiB increment wrapped to 0 before
timeout 20 "$NFSTORM" run --agents "$AGENT_ADDR" --name=o --ioengine=null --rw=write --bs=4k --size=1m \
  --offset=8388608t --offset_increment=8388608t --numjobs=2 >"$T/o1" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "offset overflow: exit $rc, want 2: $(tail -n1 "$T/o1")"
grep -q "job 'o': offset=9223372036854775808 (8EiB): the region .* exceeds the largest file offset, 9223372036854775807" "$T/o1" \
  || fail "offset overflow message: $(cat "$T/o1")"
[ "$(grep -c . "$T/o1")" -eq 1 ] || fail "not a one-line error: $(cat "$T/o1")"
grep -q "plan from" "$alog" && fail "the agent was sent the refused plan"

# 2. the agent count matters: 4 EiB x global job 2 only overflows with 3
#    agents (the addresses are never dialled: nothing listens on port 1)
timeout 20 "$NFSTORM" run --agents 127.0.0.1:1,127.0.0.1:1,127.0.0.1:1 --name=g --ioengine=null --rw=write \
  --bs=4k --size=1m --offset_increment=4194304t >"$T/o2" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "3 agents x 4 EiB increment: exit $rc, want 2: $(tail -n1 "$T/o2")"
grep -q "job 'g': offset_increment=4611686018427387904 (4EiB): the region of global job 2 " "$T/o2" \
  || fail "agent-count overflow message: $(cat "$T/o2")"
timeout 20 "$NFSTORM" run --dry-run --local 2 --name=g --ioengine=null --rw=write --bs=4k --size=1m \
  --offset_increment=4194304t >"$T/o3" 2>&1 || fail "2 agents x 4 EiB increment refused: $(tail -n1 "$T/o3")"

# 3. boundaries: global job 1's region ending exactly at 2^63-1 (the
#    largest file size, off_t) is accepted and runs on the null engine;
#    one byte more is refused
max=$(( 9223372036854775807 - 1048576 ))    # offset_increment x 1 + 1 MiB = 2^63-1
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/b.json" --name=b --ioengine=null --rw=write \
  --bs=4k --size=1m --numjobs=2 --offset_increment=$max >"$T/o4" 2>&1 \
  || fail "largest offset_increment refused: $(tail -n1 "$T/o4")"
py "$T/b.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]["ops"] == 512
PY
timeout 20 "$NFSTORM" run --agents "$AGENT_ADDR" --name=b --ioengine=null --rw=write --bs=4k --size=1m \
  --numjobs=2 --offset_increment=$((max + 1)) >"$T/o5" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "offset_increment one past the limit: exit $rc, want 2: $(tail -n1 "$T/o5")"
grep -q "offset_increment=$((max + 1)) " "$T/o5" || fail "value not named: $(cat "$T/o5")"

# 4. a coordinator that skips the check: the agent refuses the plan itself
timeout 30 python3 "$(dirname "$0")/py/rewrite_plan.py" "$T/port" "${AGENT_ADDR##*:}" offset_increment \
  9223372036854775808 2>"$T/proxy.log" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
timeout 30 "$NFSTORM" run --agents "127.0.0.1:$(cat "$T/port")" --name=w --ioengine=null --rw=write --bs=4k \
  --size=1m --numjobs=2 --offset_increment=1m >"$T/o6" 2>&1; rc=$?
grep -q "1 value(s) of offset_increment" "$T/proxy.log" || fail "proxy did not rewrite the plan: $(cat "$T/proxy.log")"
[ $rc -ne 0 ] || fail "agent ran a plan whose offsets wrap: $(tail -n3 "$T/o6")"
grep -q "plan refused: job 'w': offset_increment=9223372036854775808 (8EiB): the region of global job 1 " "$T/o6" \
  || fail "agent refusal not reported: $(cat "$T/o6")"
kill -0 "$AGENT_PID" || fail "agent died"
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=after --ioengine=null --rw=write --bs=4k \
  --size=1m >"$T/o7" 2>&1 || fail "agent does not serve after refusing: $(tail -n1 "$T/o7")"
echo "offset arithmetic checked: refused at plan time (exit 2) and by the agent"
