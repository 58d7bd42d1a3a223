#!/usr/bin/env bash
# One run at a time on a pool: while an 8 s run holds it, a second
# submitter waits ("waiting: the pool is busy with a run from ADDR since
# HH:MM:SS"), then runs on all three agents once the first ended; one with
# --no-wait exits 2 at once naming the run that holds the pool; one with
# --pool-wait 1s gives up with exit 2 after about a second.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dialin_lib.sh"
. "$(dirname "$0")/pool_lib.sh"
D=$T/d; mkdir -p "$D"

start_serve
for n in a b c; do dial_agent $n "$D" --label $n; done
pool_has 3
slow="--name=s --rw=write --bs=4k --size=64k --time_based --runtime=8 --rate_iops=20 --filename=$D/s.\${agent}"
fast="--name=f --rw=write --bs=4k --size=32k --filename=$D/f.\${agent}"

prun "$T/o1" "$T/e1" $slow --json "$T/r1.json" &
p1=$!; PIDS+=($p1)
for _ in $(seq 100); do grep -q 'run from .* started on 3 agents' "$T/serve.log" && break; sleep 0.05; done
from=$(sed -n 's/^nfstorm serve: run from \(127\.0\.0\.1:[0-9]*\) started on 3 agents.*/\1/p' "$T/serve.log" | head -n 1)
[ -n "$from" ] || fail "the first run did not start: $(cat "$T/serve.log")"

# --no-wait: refused at once, naming the run and when it started
t0=$(date +%s%N)
prun "$T/o2" "$T/e2" $fast --no-wait; rc=$?
[ $rc = 2 ] || fail "--no-wait: exit $rc, want 2: $(cat "$T/e2")"
[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 1500 ] || fail "--no-wait took over 1.5 s"
grep -Eq "^nfstorm: pool 127\.0\.0\.1:$CPORT: the pool is busy with a run from $from since [0-9]{2}:[0-9]{2}:[0-9]{2} \(--no-wait\)$" "$T/e2" ||
  fail "--no-wait: message: $(cat "$T/e2")"
[ ! -s "$T/o2" ] || fail "--no-wait printed a report: $(cat "$T/o2")"

# --pool-wait 1s: gives up while the first still runs
t0=$(date +%s%N)
prun "$T/o3" "$T/e3" $fast --pool-wait 1s; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $rc = 2 ] || fail "--pool-wait 1s: exit $rc, want 2: $(cat "$T/e3")"
[ $ms -ge 900 ] && [ $ms -lt 2500 ] || fail "--pool-wait 1s gave up after $ms ms"
grep -q "still busy with a run from $from since" "$T/e3" || fail "--pool-wait: message: $(cat "$T/e3")"

# a waiting submitter: told, then run after the first
prun "$T/o4" "$T/e4" $fast --json "$T/r4.json" || fail "the waiting run: exit $?: $(tail -n 3 "$T/e4")"
grep -Eq "^nfstorm: waiting: the pool is busy with a run from $from since [0-9]{2}:[0-9]{2}:[0-9]{2}$" "$T/e4" ||
  fail "the waiting run did not say it waits: $(head -n 3 "$T/e4")"
wait $p1 || fail "the first run: exit $?: $(tail -n 3 "$T/e1")"
py "$T/r1.json" "$T/r4.json" <<'PY'
import json, sys
r1, r4 = (json.load(open(f)) for f in sys.argv[1:])
assert len(r1["agents"]) == 3 and len(r4["agents"]) == 3, (len(r1["agents"]), len(r4["agents"]))
assert [a["ops"]["write"]["ops"] for a in r4["phases"][0]["agents"]] == [8, 8, 8]
assert all(a["ops"]["write"]["ops"] > 0 for a in r1["phases"][0]["agents"])
PY
# serve's order: first ended, then the waiting one started
awk '/ended: exit status 0/ && !e {e=NR} /started on 3 agents/ {s[++n]=NR} END {exit !(n==2 && e && s[2] > e)}' "$T/serve.log" ||
  fail "the waiting run started before the first ended: $(cat "$T/serve.log")"
exit 0
