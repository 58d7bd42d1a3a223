#!/usr/bin/env bash
# The fio job suite's plans that run (tests/fio-jobs/MANIFEST: accepted or
# warned, not "dry"), each really run on one local agent in a temporary
# directory: exit 0, every phase's verdict ok with no failed op, and the
# bytes read and written over all phases exactly what the job file asks for
# (size x numjobs, x loops, io_size, number_ios x bs), or per op its bytes
# and count, its block size, a phase ended early (exitall, ss), or some ops
# for time-based plans.  The fio bandwidth log log-files.fio asks for is
# written.  Also filename_format's $clientuid: with two agents, each writes
# files named with its own index.
source "$(dirname "$0")/lib.sh"
# a copy: the plans write fio's log files into the working directory
J=$T/jobs; mkdir -p "$J"; cp "$ROOT"/tests/fio-jobs/* "$J"/
export NFSTORM_JOB_BS=8k NFSTORM_JOB_SIZE=512k
unset NFSTORM_JOB_NOT_SET
n=0
while read -r f status nwarn expect; do
  case "$f" in ''|'#'*) continue ;; esac
  [ "$status" = refused ] || [ "$expect" = dry ] && continue
  n=$((n + 1))
  (cd "$J" && timeout 60 "$NFSTORM" run --local 1 --quiet --json "$T/r.$n.json" "$f") >"$T/out" 2>&1 \
    || fail "$f: run failed: $(tail -n 2 "$T/out")"
  echo "$T/r.$n.json $f $expect" >>"$T/ran"
done <"$J/MANIFEST"
[ $n -eq 59 ] || fail "ran $n plans, want 59"
# numjobs without group_reporting: fio's log file per clone (thread numbers 1..4), each one's own
got=$(cd "$J" && ls per-clone_iops.* | tr '\n' ' ')
[ "$got" = "per-clone_iops.1.agent0 per-clone_iops.1.log per-clone_iops.2.agent0 per-clone_iops.2.log per-clone_iops.3.agent0 per-clone_iops.3.log per-clone_iops.4.agent0 per-clone_iops.4.log " ] \
  || fail "numjobs-per-clone.fio: log files $got"
for k in 1 2 3 4; do [ -s "$J/per-clone_iops.$k.log" ] || fail "per-clone_iops.$k.log is empty"; done
grep -q ', 1, 0, 0$' "$J/per-clone_iops.1.log" && ! grep -q ', 0, 0, 0$' "$J/per-clone_iops.1.log" \
  || fail "per-clone_iops.1.log (a writer's) is not writes alone: $(head -2 "$J/per-clone_iops.1.log")"
grep -q ', 0, 0, 0$' "$J/per-clone_iops.3.log" && ! grep -q ', 1, 0, 0$' "$J/per-clone_iops.3.log" \
  || fail "per-clone_iops.3.log (a reader's) is not reads alone: $(head -2 "$J/per-clone_iops.3.log")"
# every result against its MANIFEST line, in one interpreter
py "$T/ran" <<'PY'
import json, sys
for line in open(sys.argv[1]):
  path, f, expect = line.split()
  res = json.load(open(path))
  total = ops = 0
  per, early = {}, False
  for ph in res["phases"]:
      assert ph["verdict"] == "ok", (f, ph["name"], ph["verdict"], ph["reasons"])
      early = early or bool((ph.get("control") or {}).get("ended_early"))
      for op, o in ph["ops"].items():
          assert o["errors"] == 0, (f, ph["name"], op, o["errors"])
          b, n = per.get(op, (0, 0))
          per[op] = (b + o["bytes"], n + o["ops"])
          if op in ("read", "write"):
              total += o["bytes"]
              ops += o["ops"]
  if expect == "run":
      assert ops > 0, (f, "no ops")
  elif expect.isdigit():
      assert total == int(expect), (f, "bytes", total, "want", expect)
  else:
      for tok in expect.split(","):
          if tok == "early":
              assert early, (f, "no phase ended early")
          elif "/" in tok:
              op, bs = tok.split("/")
              b, n = per.get(op, (0, 0))
              assert n > 0 and b == n * int(bs), (f, op, "bytes", b, "ops", n, "want bs", bs)
          else:
              op, wb, wn = tok.split(":")
              b, n = per.get(op, (0, 0))
              assert n > 0, (f, op, "no ops")
              assert wb == "*" or b == int(wb), (f, op, "bytes", b, "want", wb)
              assert wn == "*" or n == int(wn), (f, op, "ops", n, "want", wn)
PY
# log-files.fio: write_bw_log=logged, log_avg_msec=500: fio's name, 5 fields
L=$J/logged_bw.1.log
[ -s "$L" ] || fail "no $L: $(ls "$J" | grep -v '\.fio$' | tr '\n' ' ')"
awk -F', ' 'NF != 5 || $2 !~ /^[0-9]+$/ || $3 != 0 {bad++} END {exit bad > 0 || NR == 0}' "$L" \
  || fail "bandwidth log: $(head -n 3 "$L")"

# $clientuid is the agent's index: two agents, two sets of files
D=$T/fmt; mkdir -p "$D"
timeout 60 "$NFSTORM" run --local 2 --quiet --directory="$D" --name=fmt --rw=write --bs=4k --size=64k \
  --numjobs=2 '--filename_format=$jobname.$clientuid.$jobnum.$filenum' >"$T/out" 2>&1 \
  || fail "filename_format run: $(tail -n 2 "$T/out")"
got=$(cd "$D" && ls | sort | tr '\n' ' ')
[ "$got" = "fmt.0.0.0 fmt.0.1.0 fmt.1.0.0 fmt.1.1.0 " ] || fail "files: $got"
for x in "$D"/*; do [ "$(stat -c %s "$x")" -eq 65536 ] || fail "$x: $(stat -c %s "$x") bytes"; done
echo "fio job suite: $n plans ran with the bytes they ask for; \$clientuid names each agent's files"
