#!/usr/bin/env bash
# nfstorm-test: serial (200 agent processes starting at once)
# 200 agents in one run (issue 10): 200 real agent processes dial one
# coordinator (`run --listen --expect 200`), all join, all start, and the
# merge is exact at that width: every agent did its rate-limited ops, the
# fleet's ops are the sum of the agents' and of the intervals', each
# interval's columns are 200 long and add up to it, the start skew is over
# all 200, and the report rebuilt from the journal is the run's JSON byte
# for byte.  It prints the join and start-up times (not asserted: this is a
# shared 2-core machine).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
N=200
D=$T/d; mkdir -p "$D"
ulimit -n 4096 2>/dev/null || true
t0=$(date +%s.%N)
timeout 120 "$NFSTORM" run --listen 127.0.0.1:$CPORT --secret-file "$SECRET" --expect $N --expect-timeout 60s \
  --interval 500ms --json "$T/r.json" --name=f --ioengine=null --rw=randread --bs=4k --size=1m --rate_iops=10 \
  --runtime=3 --time_based >"$T/out" 2>"$T/err" &
cpid=$!
for i in $(seq $N); do
  "$AGENT" --coordinator 127.0.0.1:$CPORT --secret-file "$SECRET" --allow "$D" --label "f$i" >/dev/null 2>&1 &
  PIDS+=($!)
done
wait $cpid; rc=$?
t1=$(date +%s.%N)
[ $rc -eq 0 ] || fail "the run exits $rc: $(grep -v 'agent joined' "$T/err" | tail -n 3)"
[ "$(grep -c 'agent joined' "$T/err")" -eq $N ] || fail "$(grep -c 'agent joined' "$T/err") joined, want $N"
grep -q "phase 1/1 f: started on $N agents" "$T/err" || fail "no start on $N agents: $(grep started "$T/err")"

py "$T/r.json" $N <<'PY'
import json, sys
from iv_agents import agents_n
r = json.load(open(sys.argv[1])); n = int(sys.argv[2]); ph = r["phases"][0]
assert len(r["agents"]) == n and len(ph["agents"]) == n, (len(r["agents"]), len(ph["agents"]))
assert not any(a.get("lost") for a in r["agents"]), [a["id"] for a in r["agents"] if a.get("lost")]
# labels sort the indices: f1, f10, f100, f101, ... (by label, as strings)
per = [a["ops"]["read"]["ops"] for a in ph["agents"]]
# 10 IOPS for 3 s each: 30 on an idle machine; every agent did I/O (a
# starved one may do fewer: once under ASan one did 11)
assert all(p >= 1 for p in per) and max(per) <= 31, (min(per), max(per))
tot = ph["ops"]["read"]["ops"]
assert tot == sum(per), (tot, sum(per))
assert tot == sum(i["ops"].get("read", {}).get("ops", 0) for i in ph["intervals"])
for k, iv in enumerate(ph["intervals"]):
    a = agents_n(iv, n)
    assert sum(x["ops"].get("read", {}).get("ops", 0) for x in a) == iv["ops"].get("read", {}).get("ops", 0), k
    assert iv["nreported"] == sum(x["reported"] for x in a), k
assert ph["start_skew_agents"] == n, ph["start_skew_agents"]
assert ph["verdict"] == "ok", (ph["verdict"], ph["reasons"][:3])
print("%d agents: %d ops, start skew %.1f ms" % (n, tot, ph["start_skew_ns"] / 1e6))
PY
timeout 60 "$NFSTORM" report "$T/r.json.journal" --json "$T/j.json" >/dev/null 2>"$T/rep.err" ||
  fail "report of the journal: $(head -2 "$T/rep.err")"
cmp -s "$T/r.json" "$T/j.json" || fail "the JSON rebuilt from the journal differs from the run's"
echo "ok: $N dial-in agents in one run, merge exact, journal re-render exact ($(echo "$t1 - $t0" | bc) s in all)"
