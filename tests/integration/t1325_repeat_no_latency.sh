#!/usr/bin/env bash
# A repetition in which no op completed has no latency: faultfs fails every
# read of repetition 2 with EIO, and `nfstorm report SET --include-failed`
# keeps it in the IOPS statistics (its 0 is a true rate) but leaves it out
# of the latency statistics (p50 over 2 values, not (a+b+0)/3), and says
# so in text, HTML and JSON.  compare leaves it out of latency too.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faultfs_lib.sh"
faultfs_mount "eio,file=r.dat,skip=16,count=16"
start_agent "$FFS_M"
head -c 65536 /dev/urandom >"$FFS_B/r.dat"    # beside faultfs: no read counted
timeout 60 "$NFSTORM" run --agents "$AGENT_ADDR" --repeat 3 --quiet --json "$T/s.json" --name=r --rw=read \
  --bs=4k --size=64k --filename=r.dat >"$T/o" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "a set with a failed repetition: exit $rc, want 1: $(tail -n3 "$T/o")"
[ "$(grep -c '^kind=eio' "$FFS_LOG")" -eq 16 ] || fail "faultfs failed $(grep -c '^kind=eio' "$FFS_LOG") reads, want 16"
timeout 20 "$NFSTORM" report "$T/s.json" --include-failed --json "$T/r.json" --html "$T/r.html" >"$T/r" 2>&1
py "$T/s.json" "$T/r.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
reps = [rep["phases"][0]["ops"]["read"] for rep in s["repetitions"]]
assert [x["ops"] - x["errors"] for x in reps] == [16, 0, 16], [(x["ops"], x["errors"]) for x in reps]
m = r["summary"]["phases"][0]["ops"]["read"]
p50 = [reps[k]["lat_ns"]["p50"] for k in (0, 2)]
assert m["lat_p50_ns"]["n"] == 2 and m["lat_p50_ns"]["repetitions"] == [1, 3], m["lat_p50_ns"]
assert abs(m["lat_p50_ns"]["mean"] - sum(p50) / 2) <= 1e-6 * max(p50), (m["lat_p50_ns"]["mean"], p50)
assert min(m["lat_p50_ns"]["values"]) > 0, m["lat_p50_ns"]["values"]
assert m["lat_p50_ns"]["no_latency_repetitions"] == [2] and m["lat_p99_ns"]["no_latency_repetitions"] == [2]
assert m["iops"]["n"] == 3 and "no_latency_repetitions" not in m["iops"], m["iops"]
PY
[ $? -eq 0 ] || fail "set JSON summary"
grep -Eq '^ +lat p50 +[0-9.]+[num]?s .* 2$' "$T/r" || fail "p50 not over 2 repetitions: $(cat "$T/r")"
grep -Eq '^r +read +IOPS .* 3$' "$T/r" || fail "IOPS not over 3 repetitions: $(cat "$T/r")"
grep -q "repetition 2 left out of the read latency statistics: no read op completed, so it has no latency" "$T/r" \
  || fail "not said in the text: $(cat "$T/r")"
grep -q "<li>repetition 2 left out of the read latency statistics: no read op completed" "$T/r.html" \
  || fail "not said in the HTML"
grep -Eq '<td class="l">0(ns)?(,|<)|, 0ns' "$T/r.html" && fail "HTML lists a latency of 0"
# without --include-failed the failed repetition is left out as before, and not said twice
timeout 20 "$NFSTORM" report "$T/s.json" >"$T/r2" 2>&1
grep -q "left out of the read latency statistics" "$T/r2" && fail "said for a repetition already left out: $(cat "$T/r2")"
grep -q "repetition 2 left out of the statistics (failed" "$T/r2" || fail "failed repetition not left out: $(cat "$T/r2")"
# compare --include-failed: no 0 latency either
timeout 20 "$NFSTORM" compare "$T/s.json" "$T/s.json" --format json --include-failed >"$T/c" 2>&1 || fail "compare: $(cat "$T/c")"
py "$T/c" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
m = {x["metric"]: x for x in c["phases"][0]["metrics"] if x.get("op") in ("read", None)}
assert m["lat_p50_ns"]["inputs"][0]["n"] == 2 and m["lat_p99_ns"]["inputs"][0]["n"] == 2 and m["iops"]["inputs"][0]["n"] == 3, m
PY
[ $? -eq 0 ] || fail "compare JSON"
echo "a repetition without a completed op: out of the latency statistics (2 of 3), kept in IOPS, said"
