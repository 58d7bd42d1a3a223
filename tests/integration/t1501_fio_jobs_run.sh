#!/usr/bin/env bash
# The fio job suite's plans that run (tests/fio-jobs/MANIFEST: accepted or
# warned, not "dry"), each really run on one local agent in a temporary
# directory: exit 0, every phase's verdict ok with no failed op, and the
# bytes read and written over all phases exactly what the job file asks for
# (size x numjobs, x loops, io_size, number_ios x bs), or some ops for
# time-based plans and block size mixes.  Also filename_format's
# $clientuid: with two agents, each writes files named with its own index.
source "$(dirname "$0")/lib.sh"
J=$ROOT/tests/fio-jobs
export NFSTORM_JOB_BS=8k NFSTORM_JOB_SIZE=512k
unset NFSTORM_JOB_NOT_SET
n=0
while read -r f status nwarn expect; do
  case "$f" in ''|'#'*) continue ;; esac
  [ "$status" = refused ] || [ "$expect" = dry ] && continue
  n=$((n + 1))
  (cd "$J" && timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r.json" "$f") >"$T/out" 2>&1 \
    || fail "$f: run failed: $(tail -n 2 "$T/out")"
  py "$T/r.json" "$f" "$expect" <<'PY'
import json, sys
res, f, expect = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
total = ops = 0
for ph in res["phases"]:
    assert ph["verdict"] == "ok", (f, ph["name"], ph["verdict"], ph["reasons"])
    for op in ("read", "write"):
        o = ph["ops"].get(op)
        if o:
            assert o["errors"] == 0, (f, ph["name"], op, o["errors"])
            total += o["bytes"]
            ops += o["ops"]
if expect == "run":
    assert ops > 0, (f, "no ops")
else:
    assert total == int(expect), (f, "bytes", total, "want", expect)
PY
done <"$J/MANIFEST"
[ $n -eq 41 ] || fail "ran $n plans, want 41"

# $clientuid is the agent's index: two agents, two sets of files
D=$T/fmt; mkdir -p "$D"
timeout 60 "$NFSTORM" run --local 2 --quiet --directory="$D" --name=fmt --rw=write --bs=4k --size=64k \
  --numjobs=2 '--filename_format=$jobname.$clientuid.$jobnum.$filenum' >"$T/out" 2>&1 \
  || fail "filename_format run: $(tail -n 2 "$T/out")"
got=$(cd "$D" && ls | sort | tr '\n' ' ')
[ "$got" = "fmt.0.0.0 fmt.0.1.0 fmt.1.0.0 fmt.1.1.0 " ] || fail "files: $got"
for x in "$D"/*; do [ "$(stat -c %s "$x")" -eq 65536 ] || fail "$x: $(stat -c %s "$x") bytes"; done
echo "fio job suite: $n plans ran with the bytes they ask for; \$clientuid names each agent's files"
