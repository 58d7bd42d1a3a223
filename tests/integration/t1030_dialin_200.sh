#!/usr/bin/env bash
# 200 dial-in agents in one run (null engine, rate-limited, 2 s): every
# one joins, the JSON holds 200 agents each with reads, and the
# per-agent ops add up to the merged total.  Prints how long the gather,
# the run and the whole took.
# nfstorm-test: serial (200 agent processes starting at once would skew a neighbour's timings, and theirs)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
N=${NFSTORM_T1030_AGENTS:-200}
need=$((N * 2 + 64))   # the coordinator's sockets, its files, ours
[ "$(ulimit -n)" -ge "$need" ] || ulimit -n "$need" 2>/dev/null || skip "ulimit -n $(ulimit -n) is below $need (for $N agents)"
D=$T/d; mkdir -p "$D"
t0=$(date +%s%N)
for i in $(seq "$N"); do
  "$AGENT" --coordinator 127.0.0.1:$CPORT --secret-file "$SECRET" --allow "$D" --quiet >>"$T/agents.log" 2>&1 &
  PIDS+=($!)
done
t1=$(date +%s%N)
crun "$T/o" --name=n --ioengine=null --rw=randread --bs=4k --size=1m --rate_iops=20 --time_based \
  --runtime=2s --expect "$N" --expect-timeout 60s --quiet --json "$T/r.json" ||
  fail "run: exit $?: $(tail -n 5 "$T/o"; tail -n 5 "$T/agents.log")"
t2=$(date +%s%N)
py "$T/r.json" "$N" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert len(r["agents"]) == n, len(r["agents"])
assert sorted(a["id"] for a in r["agents"]) == list(range(n))
ph = r["phases"][0]
ops = [a["ops"]["read"]["ops"] for a in ph["agents"]]
assert len(ops) == n and all(o > 0 for o in ops), [i for i, o in enumerate(ops) if o <= 0]
assert sum(ops) == ph["ops"]["read"]["ops"], (sum(ops), ph["ops"]["read"]["ops"])
PY
echo "ok: $N dial-in agents, each with reads: agents started in $(( (t1 - t0) / 1000000 )) ms, gather + 2 s run + report $(( (t2 - t1) / 1000000 )) ms, JSON $(stat -c %s "$T/r.json") bytes"
