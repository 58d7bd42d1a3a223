#!/usr/bin/env bash
# A repeat set with one failed repetition (an agent's error in repetition 2,
# as a faulty file system gives): `nfstorm report` leaves it out of the
# mean, sd and CI and says so (its value and why), `--include-failed` keeps
# it, `nfstorm compare` leaves it out too and lists it; no interval below 0.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
timeout 60 "$NFSTORM" run --local 1 --repeat 3 --json "$T/s.json" --quiet --directory="$D" --name=r --rw=randread \
  --bs=4k --size=1m --runtime=300ms --time_based >"$T/out" 2>"$T/err" || fail "run --repeat 3: $(tail -n3 "$T/err")"
# repetition 2's phase failed: the agent reported an I/O error
py "$T/s.json" "$T/f.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["repetitions"][1]["phases"][0]["agents"][0]["error"] = "read: Input/output error"
json.dump(s, open(sys.argv[2], "w"))
PY
[ $? -eq 0 ] || fail "cannot edit the set"
timeout 20 "$NFSTORM" report "$T/f.json" --json "$T/r.json" >"$T/r" 2>"$T/re"; rc=$?
[ $rc -eq 1 ] || fail "report of a set with a failed repetition: exit $rc, want 1: $(cat "$T/re")"
grep -q "ran to its end with verdict ok" "$T/r" || fail "no rule in the heading: $(head -3 "$T/r")"
grep -Eq '^r +read +IOPS .* 2$' "$T/r" || fail "IOPS not over 2 repetitions: $(cat "$T/r")"
grep -q "repetition 2 left out of the statistics (failed: .*Input/output error): read IOPS [0-9]" "$T/r" \
  || fail "the failed repetition is not shown: $(cat "$T/r")"
grep -q "verdicts: 2/3 ok, 1/3 failed" "$T/r" || fail "verdicts not counted: $(cat "$T/r")"
py "$T/r.json" "$T/s.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
iops = r["summary"]["phases"][0]["ops"]["read"]["iops"]
want = [s["repetitions"][k]["phases"][0]["ops"]["read"]["iops"] for k in (0, 2)]
assert iops["n"] == 2 and iops["repetitions"] == [1, 3], iops
assert abs(iops["mean"] - sum(want) / 2) < 1e-6 * iops["mean"], (iops["mean"], want)
assert iops["left_out_repetitions"] == [2], iops
assert abs(iops["left_out_values"][0] - s["repetitions"][1]["phases"][0]["ops"]["read"]["iops"]) < 1e-6 * iops["mean"]
assert iops["ci95"] is None or iops["ci95"][0] >= 0, iops["ci95"]
lo = r["summary"]["phases"][0]["left_out"]
assert len(lo) == 1 and lo[0]["repetition"] == 2 and lo[0]["verdict"] == "failed" and "Input/output" in lo[0]["reason"], lo
assert r["summary"]["include_failed"] is False
PY
[ $? -eq 0 ] || fail "set JSON summary"
timeout 20 "$NFSTORM" report "$T/f.json" --include-failed >"$T/ri" 2>&1
grep -q "failed ones included (--include-failed)" "$T/ri" || fail "--include-failed not said: $(head -3 "$T/ri")"
grep -Eq '^r +read +IOPS .* 3$' "$T/ri" || fail "--include-failed: IOPS not over 3 repetitions: $(cat "$T/ri")"
grep -q "left out" "$T/ri" && fail "--include-failed still leaves out: $(cat "$T/ri")"

# compare: the same rule, listed
timeout 20 "$NFSTORM" compare "$T/s.json" "$T/f.json" --labels good,bad >"$T/c" 2>&1 || fail "compare: $(cat "$T/c")"
grep -q "^left out of the statistics" "$T/c" || fail "compare does not list what it left out: $(cat "$T/c")"
grep -q "  r (randread, 4k), bad: repetition 2 left out (failed: .*Input/output error): read IOPS " "$T/c" \
  || fail "compare: the failed repetition not named: $(cat "$T/c")"
timeout 20 "$NFSTORM" compare "$T/s.json" "$T/f.json" --format json --include-failed >"$T/cj" 2>&1 || fail "compare json"
py "$T/cj" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
m = c["phases"][0]["metrics"][0]
assert m["metric"] == "iops" and m["inputs"][1]["n"] == 3 and m["inputs"][1]["left_out"] == 0, m
assert c["inputs"][1]["include_failed"] is True
PY
[ $? -eq 0 ] || fail "compare --include-failed JSON"
expect_fail "--include-failed without --repeat" "include-failed without --repeat" \
  "$NFSTORM" run --local 1 --include-failed --directory="$D" --name=r --rw=read --bs=4k --size=1m
echo "failed repetition left out (shown, counted), --include-failed keeps it, compare lists it"
