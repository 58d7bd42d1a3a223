#!/usr/bin/env bash
# A repeat set whose repetitions ran on different numbers of agents (R1
# review of issue 13): `run --repeat` keeps its agents for the whole set,
# so such a set is hand-made, and its means would mix a 2-agent and a
# 1-agent run (a compare then said "the runs' records agree").  report and
# compare refuse it with one line naming the repetition and the counts,
# exit 2; the set as the run wrote it still loads, and so does a set whose
# repetition k was swapped for another 2-agent run of the same plan.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
job=(--directory="$D" --name=r --rw=randread --bs=4k --size=4m --runtime=300ms --time_based)
timeout 60 "$NFSTORM" run --local 2 --repeat 2 --quiet --json "$T/s.json" "${job[@]}" >"$T/s.out" 2>&1 \
  || fail "set: $(tail -n3 "$T/s.out")"
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/one.json" "${job[@]}" >"$T/o.out" 2>&1 \
  || fail "one: $(tail -n3 "$T/o.out")"
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/two.json" "${job[@]}" >"$T/t.out" 2>&1 \
  || fail "two: $(tail -n3 "$T/t.out")"
py "$T/s.json" "$T/one.json" "$T/two.json" "$T" <<'PY'
import json, sys
s, one, two, T = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4]
assert [len(r["agents"]) for r in s["repetitions"]] == [2, 2], [len(r["agents"]) for r in s["repetitions"]]
assert len(one["agents"]) == 1 and len(two["agents"]) == 2
s["repetitions"][1] = one; json.dump(s, open(T + "/mixed.json", "w"))
s["repetitions"][1] = two; json.dump(s, open(T + "/swapped.json", "w"))
PY
for cmd in "report $T/mixed.json" "compare $T/mixed.json $T/s.json" "compare $T/s.json $T/mixed.json --format json"; do
  timeout 20 "$NFSTORM" $cmd >"$T/out" 2>"$T/err"; rc=$?
  [ $rc -eq 2 ] || fail "$cmd: exit $rc, want 2: $(head -c 300 "$T/err")"
  [ "$(cat "$T/err")" = "nfstorm: $T/mixed.json: repetitions[1].agents: 1 agent, repetitions[0] has 2" ] \
    || fail "$cmd: message: $(cat "$T/err")"
  [ ! -s "$T/out" ] || fail "$cmd: wrote a report: $(head -c 200 "$T/out")"
done
for f in s swapped; do
  timeout 20 "$NFSTORM" report "$T/$f.json" >"$T/out" 2>&1 || fail "report $f: $(cat "$T/out")"
  grep -q "^repeat set (unlabelled): 2 of 2 repetitions" "$T/out" || fail "report $f: $(head -3 "$T/out")"
  timeout 20 "$NFSTORM" compare "$T/$f.json" "$T/s.json" >"$T/out" 2>&1 || fail "compare $f: $(cat "$T/out")"
  grep -q "2 repetitions, 2 agents, 1 phase (baseline)" "$T/out" || fail "compare $f: $(head -8 "$T/out")"
done
echo "set agent counts ok"
