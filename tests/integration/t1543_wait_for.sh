#!/usr/bin/env bash
# wait_for=NAME: the job starts once NAME finished.  NAME in the phase being
# built starts a new phase (as stonewall), NAME in an earlier phase is
# already done; no forward reference, unique waitee names (fio's rules).
source "$(dirname "$0")/lib.sh"
cat >"$T/w.fio" <<'FIO'
[global]
ioengine=null
size=1M
rw=read
[first]
[second]
[after]
wait_for=first
[also]
wait_for=second
FIO
timeout 30 "$NFSTORM" run "$T/w.fio" --local 1 --quiet --json "$T/w.json" >"$T/out" 2>&1 || fail "$(tail -n3 "$T/out")"
py "$T/w.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
assert [(p["name"], p["njobs"]) for p in ph] == [("first", 2), ("after", 2)], [(p["name"], p["njobs"]) for p in ph]
for p in ph:
    assert p["ops"]["read"]["ops"] == 2 * 256, p["ops"]["read"]
assert ph[1]["verdict"] == "ok" and ph[0]["verdict"] == "ok"
PY
printf '[global]\nsize=1M\n[a]\nwait_for=b\n[b]\n' >"$T/fwd.fio"
expect_fail forward "^nfstorm: $T/fwd.fio:3: job 'a': wait_for=b: no earlier job of that name \(the waitee must come first\)$" \
  "$NFSTORM" run "$T/fwd.fio" --parse-only
printf '[global]\nsize=1M\n[a]\n[a]\n[c]\nwait_for=a\n' >"$T/dup.fio"
expect_fail duplicate "wait_for=a: more than one earlier job has that name" "$NFSTORM" run "$T/dup.fio" --parse-only
echo "wait_for orders jobs by phases"
