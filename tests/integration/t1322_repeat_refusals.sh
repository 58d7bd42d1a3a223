#!/usr/bin/env bash
# --repeat and --repeat-interval refuse bad values (exit 2, naming the flag,
# before any agent starts); --dry-run says it would repeat; `report` refuses
# what does not apply to a set, and a hostile set file names the key.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
job=(--directory="$D" --name=r --rw=randread --bs=4k --size=1m --runtime=1)
refuse() {  # NAME REGEX ARGS...: exit status 2, one line matching REGEX
  local name=$1 re=$2; shift 2
  timeout 20 "$NFSTORM" "$@" >"$T/out" 2>&1; local rc=$?
  [ $rc -eq 2 ] || fail "$name: exit $rc, want 2: $(head -c 300 "$T/out")"
  grep -Eq -- "$re" "$T/out" || fail "$name: output does not match /$re/: $(head -c 300 "$T/out")"
  [ "$(grep -c . "$T/out")" -eq 1 ] || fail "$name: want one line: $(cat "$T/out")"
}
refuse "repeat 0" "^nfstorm: --repeat: bad value '0' \(want 1\.\.1000\)$" run --local 1 --repeat 0 "${job[@]}"
refuse "repeat abc" "^nfstorm: --repeat: bad value 'abc'" run --local 1 --repeat abc "${job[@]}"
refuse "repeat 1001" "^nfstorm: --repeat: bad value '1001'" run --local 1 --repeat=1001 "${job[@]}"
refuse "repeat -1" "^nfstorm: --repeat: bad value '-1'" run --local 1 --repeat -1 "${job[@]}"
refuse "repeat no value" "^nfstorm: --repeat needs a value$" run --local 1 "${job[@]}" --repeat
refuse "interval bad" "^nfstorm: --repeat-interval: bad value '5parsecs'" run --local 1 --repeat 2 --repeat-interval 5parsecs "${job[@]}"
refuse "interval huge" "^nfstorm: --repeat-interval: bad value '2d'" run --local 1 --repeat 2 --repeat-interval 2d "${job[@]}"
refuse "interval alone" "^nfstorm: --repeat-interval without --repeat$" run --local 1 --repeat-interval 1s "${job[@]}"
refuse "clean --repeat" "^nfstorm: clean: only plan and agent options apply .*--repeat" clean --local 1 --repeat 2 "${job[@]}"
ls "$D" | grep -q . && fail "a refused run laid out files: $(ls "$D")"

timeout 20 "$NFSTORM" run --local 2 --repeat 4 --repeat-interval 90s --dry-run "${job[@]}" >"$T/dry" 2>&1 \
  || fail "dry run: $(tail -n3 "$T/dry")"
grep -q '^repeat: the plan would run 4 times on the same agents, waiting 90s between repetitions$' "$T/dry" \
  || fail "dry run does not say it would repeat: $(tail -n3 "$T/dry")"

# a set to break (from a plan file, on an agent of --hosts dialled again for
# each repetition), and a plain result
start_agent "$D"
echo "$AGENT_ADDR" >"$T/hosts"
printf '[r]\ndirectory=%s\nrw=randread\nbs=4k\nsize=1m\nruntime=1\n' "$D" >"$T/plan.fio"
timeout 60 "$NFSTORM" run "$T/plan.fio" --hosts "$T/hosts" --quiet --repeat 2 --json "$T/s.json" >"$T/run" 2>&1 \
  || fail "run: $(tail -n3 "$T/run")"
py "$T/s.json" "$AGENT_ADDR" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["completed"] == 2 and [r["agents"][0]["addr"] for r in s["repetitions"]] == [sys.argv[2]] * 2, s["completed"]
assert all(r["phases"][0]["ops"]["read"]["ops"] > 0 for r in s["repetitions"])
PY
timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/p.json" "${job[@]}" >"$T/run" 2>&1 || fail "plain run: $(tail -n3 "$T/run")"
refuse "report --csv of a set" "^nfstorm: report: --csv: .*s\.json is a repeat set; give --repetition K" report "$T/s.json" --csv "$T/x.csv"
refuse "repetition 3 of 2" "^nfstorm: report: --repetition: .*s\.json holds repetitions 1\.\.2, not 3$" report "$T/s.json" --repetition 3
refuse "repetition 0" "^nfstorm: report: --repetition: bad value '0'" report "$T/s.json" --repetition 0
refuse "repetition of a plain run" "is a single run, not a repeat set$" report "$T/p.json" --repetition 1
refuse "repetition of a journal" "is a journal \(one run\)" report "$T/s.json.rep1.journal" --repetition 1
[ ! -e "$T/x.csv" ] || fail "a refused report wrote its CSV"
edit() {  # NAME PYTHON-EDIT REGEX: the set edited, report refuses it naming the key
  python3 - "$T/s.json" "$T/bad.json" "$2" <<'PY' || fail "edit $1"
import json, sys
s = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(s, open(sys.argv[2], "w"))
PY
  refuse "$1" "$3" report "$T/bad.json"
}
edit "huge repeat" 's["repeat"] = 10**9' "^nfstorm: .*bad\.json: repeat: want an integer in 1\.\.1000$"
edit "n mismatch" 's["repeat"] = 1' "^nfstorm: .*bad\.json: repetitions: has 2 elements, more than repeat \(1\)$"
edit "no repetitions" 'del s["repetitions"]' "^nfstorm: .*bad\.json: repetitions: missing$"
edit "missing key inside" 'del s["repetitions"][1]["phases"][0]["ops"]' "^nfstorm: .*bad\.json: repetitions\[1\]\.phases\[0\]\.ops: missing$"
edit "bad histogram inside" 's["repetitions"][0]["phases"][0]["ops"]["read"]["lat_ns"]["hist"]["runs"] = [0, 1, 0]' \
  "^nfstorm: .*bad\.json: repetitions\[0\]\.phases\[0\]\.ops\.read\.lat_ns\.hist: bucket 0 given with count 0"
edit "other plan" 's["repetitions"][1]["phases"][0]["bs"] = 8192' "^nfstorm: .*bad\.json: repetitions\[1\]\.phases\[0\]: 'r' \(randread, bs 8192\) is not"
edit "version" 's["nfstorm_repeat_set"] = 7' "^nfstorm: .*bad\.json: nfstorm_repeat_set: unsupported version \(want 1\)$"
echo "repeat refusals ok"
