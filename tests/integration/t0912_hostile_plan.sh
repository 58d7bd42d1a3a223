#!/usr/bin/env bash
# The agent re-validates every decoded plan (issue 15, item 4): a
# coordinator that skips its checks (a proxy rewrites one field of the plan
# in flight) gets "plan refused" naming the field, for bsrange_max=0,
# time_based with runtime 0, startdelay and thinktime near 2^64, an agent
# index outside the run, and a start instant far from the agent's clock; and the operator's own caps (--max-threads,
# --max-files, --max-memory) refuse a plan with the figures.  The agent
# serves normally afterwards.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
start_agent "$D" --max-threads 8 --max-files 100 --max-memory 64m
alog=$(ls "$T"/agent.*.log | grep -v out | head -1)
port=${AGENT_ADDR##*:}

# rewritten KEY VALUE REGEX JOB...: the proxied run fails with REGEX
rewritten() {
  local key=$1 val=$2 re=$3 rc; shift 3
  rm -f "$T/pport"
  timeout 30 python3 "$(dirname "$0")/py/rewrite_plan.py" "$T/pport" "$port" "$key" "$val" 2>"$T/proxy.log" &
  PIDS+=($!)
  for _ in $(seq 50); do [ -s "$T/pport" ] && break; sleep 0.1; done
  timeout 30 "$NFSTORM" run --agents "127.0.0.1:$(cat "$T/pport")" --quiet --name=h --ioengine=null "$@" \
    >"$T/o" 2>&1; rc=$?
  grep -q "value(s) of $key set" "$T/proxy.log" || fail "$key: proxy did not rewrite: $(cat "$T/proxy.log")"
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "$key=$val: exit $rc: $(tail -n2 "$T/o")"
  grep -Eq -- "$re" "$T/o" || fail "$key=$val: output does not match /$re/: $(cat "$T/o")"
  kill -0 "$AGENT_PID" || fail "agent died on $key=$val"
}
rewritten bsrange_max 0 "plan refused: job 'h': bsrange must be min-max with 0 < min <= max" \
  --rw=randread --bsrange=4k-8k --size=1m
rewritten runtime_ns 0 "plan refused: job 'h': time_based requires runtime=" \
  --rw=read --bs=4k --size=1m --runtime=2 --time_based
rewritten startdelay_ns 18446744073709551615 "plan refused: job 'h': startdelay=18446744073709551615ns .* exceeds" \
  --rw=read --bs=4k --size=1m --startdelay=1
rewritten thinktime_ns 18446744073709551614 "plan refused: job 'h': thinktime=18446744073709551614ns .* exceeds" \
  --rw=read --bs=4k --size=1m --thinktime=1
rewritten agent_index 7 "bad plan: plan: 'agent_index' = 7 out of range for 1 agents" \
  --rw=read --bs=4k --size=1m
grep -q "plan refused" "$alog" || fail "agent did not log its refusals"

# the start instant, rewritten in the start message: near 2^64 (jobs would
# wait forever, t0 + runtime wrap) and at 1 ns (the sampler would owe
# years of intervals): refused, the run over, nothing measured
for t0 in 18446744073709551615 1; do
  rm -f "$T/pport"
  timeout 30 python3 "$(dirname "$0")/py/rewrite_plan.py" "$T/pport" "$port" t0_ns $t0 start 2>"$T/proxy.log" &
  PIDS+=($!)
  for _ in $(seq 50); do [ -s "$T/pport" ] && break; sleep 0.1; done
  timeout 30 "$NFSTORM" run --agents "127.0.0.1:$(cat "$T/pport")" --quiet --json "$T/t0.json" --name=s \
    --ioengine=null --rw=read --bs=4k --size=1m >"$T/o" 2>&1; rc=$?
  grep -q "value(s) of t0_ns set" "$T/proxy.log" || fail "t0=$t0: proxy did not rewrite: $(cat "$T/proxy.log")"
  [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "t0=$t0: exit $rc: $(tail -n2 "$T/o")"
  grep -Eq "start for phase 0 refused: its instant is [0-9.e+]+ s (ahead of|behind) this agent's clock \(allowed: 10 s behind to 3600 s ahead\)" "$T/o" \
    || fail "t0=$t0: $(cat "$T/o")"
  kill -0 "$AGENT_PID" || fail "agent died on t0=$t0"
done

# the operator's caps, with the figures
expect_fail "--max-threads" "plan refused: phase 0 \('t'\) has 9 job threads on this agent, more than its --max-threads 8" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=t --ioengine=null --rw=read --bs=4k --size=64k --numjobs=9
expect_fail "--max-files" "plan refused: phase 0 \('f'\) uses 101 files on this agent, more than its --max-files 100" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=f --ioengine=null --rw=read --bs=4k --size=404k --nrfiles=101
expect_fail "--max-memory" "plan refused: phase 0 \('m'\) needs ~[0-9.]+MiB on this agent, more than its --max-memory 64(\.0)?MiB" \
  "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=m --ioengine=null --rw=read --bs=16m --size=16m --iodepth=8
# at the caps: served
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --json "$T/r.json" --name=ok --ioengine=null --rw=read \
  --bs=4k --size=400k --nrfiles=100 >"$T/o" 2>&1 || fail "a plan at --max-files refused: $(tail -n1 "$T/o")"
py "$T/r.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["phases"][0]["ops"]["read"]["ops"] == 100
PY
timeout 30 "$NFSTORM" run --agents "$AGENT_ADDR" --quiet --name=ok8 --ioengine=null --rw=read --bs=4k --size=64k \
  --numjobs=8 >"$T/o" 2>&1 || fail "a plan at --max-threads refused: $(tail -n1 "$T/o")"

# bad flags
for f in "--max-threads 0" "--max-files x" "--max-memory 0"; do
  # shellcheck disable=SC2086
  timeout 5 "$AGENT" --insecure --allow "$D" $f >"$T/a" 2>&1; rc=$?
  [ $rc -eq 2 ] && grep -q "^nfstorm-agent: ${f%% *} " "$T/a" || fail "$f: exit $rc: $(cat "$T/a")"
done
echo "hostile plans refused by the agent; --max-threads/--max-files/--max-memory hold"
