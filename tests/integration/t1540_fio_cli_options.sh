#!/usr/bin/env bash
# fio's own command-line options on `nfstorm run`: --parse-only, --showcmd,
# --readonly, --max-jobs, --section, --minimal/--terse-version (fio's terse
# v3: 121 fields without disk stats), --output (stdout stays empty), --eta,
# --status-interval, and job options together with a job file applied as
# fio applies them (before --name: defaults beneath the file's [global]).
source "$(dirname "$0")/lib.sh"
cat >"$T/p.fio" <<'FIO'
[global]
ioengine=null
size=1M
bs=8k
[reader]
rw=read
[writer]
rw=randwrite
stonewall
FIO

# --parse-only: 0 for a good plan, 2 and one line naming the line for a bad one
"$NFSTORM" run "$T/p.fio" --parse-only >"$T/out" 2>&1 || fail "parse-only of a good plan: $(cat "$T/out")"
[ ! -s "$T/out" ] || fail "parse-only printed: $(cat "$T/out")"
printf '[a]\nsize=1M\nbs=4q\n' >"$T/bad.fio"
"$NFSTORM" run "$T/bad.fio" --parse-only >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "parse-only of a bad plan: exit $rc"
[ "$(cat "$T/out")" = "nfstorm: $T/bad.fio:3: bad value for 'bs': '4q'" ] || fail "bad plan: $(cat "$T/out")"

# --showcmd: the plan as fio options, one line
[ "$("$NFSTORM" run "$T/p.fio" --showcmd)" = \
  "fio --ioengine=null --size=1M --bs=8k --name=reader --rw=read --name=writer --rw=randwrite --stonewall" ] \
  || fail "showcmd: $("$NFSTORM" run "$T/p.fio" --showcmd)"

# --readonly refuses the write job by name and key; --section=reader passes
"$NFSTORM" run "$T/p.fio" --readonly --local 1 >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "readonly: exit $rc"
[ "$(cat "$T/out")" = "nfstorm: --readonly: job 'writer' would write (rw=randwrite)" ] || fail "readonly: $(cat "$T/out")"
"$NFSTORM" run "$T/p.fio" --readonly --section=reader --parse-only || fail "readonly with --section=reader"
expect_fail max-jobs "^nfstorm: --max-jobs 1: the plan has 2 jobs per agent" "$NFSTORM" run "$T/p.fio" --max-jobs=1 --parse-only
expect_fail section "^nfstorm: --section nope: the plan has no job section of that name$" "$NFSTORM" run "$T/p.fio" --section=nope
expect_fail terse-version "terse version 3 only" "$NFSTORM" run "$T/p.fio" --terse-version=5

# --section runs only that job; --minimal: one terse v3 line per phase
timeout 30 "$NFSTORM" run "$T/p.fio" --local 1 --section=writer --minimal --eta=never --json "$T/s.json" \
  >"$T/terse" 2>"$T/err" || fail "minimal: $(tail -n3 "$T/err")"
[ "$(wc -l <"$T/terse")" -eq 1 ] || fail "minimal: $(wc -l <"$T/terse") lines: $(cat "$T/terse")"
py "$T/terse" "$T/s.json" <<'PY'
import json, sys
f = open(sys.argv[1]).read().rstrip("\n").split(";")
assert len(f) == 121, len(f)
assert f[0] == "3" and f[2] == "writer" and f[4] == "0", f[:5]
# write status starts at field 46 (5 + 41 of read): KiB written = 1024
assert f[5] == "0" and f[46] == "1024", (f[5], f[46])
d = json.load(open(sys.argv[2]))
assert [p["name"] for p in d["phases"]] == ["writer"], d["phases"]
assert d["phases"][0]["ops"]["write"]["ops"] == 128, d["phases"][0]["ops"]["write"]
PY
grep -Eq 'started on|IOPS' "$T/err" && fail "--eta=never still printed a live line: $(cat "$T/err")"
# --eta=always: the redrawn line (carriage returns) even into a file
timeout 30 "$NFSTORM" run "$T/p.fio" --local 1 --section=writer --minimal --eta=always >/dev/null 2>"$T/err" \
  || fail "eta=always: $(tail -n3 "$T/err")"
grep -q $'\r' "$T/err" || fail "--eta=always: no redrawn line: $(cat "$T/err")"

# --output: fio writes only to the file: stdout stays empty
timeout 30 "$NFSTORM" run "$T/p.fio" --local 1 --quiet --output="$T/o.txt" --output-format=terse,json \
  >"$T/stdout" 2>&1 || fail "output: $(cat "$T/stdout")"
[ ! -s "$T/stdout" ] || fail "--output left text on stdout: $(head -c 300 "$T/stdout")"
[ "$(grep -c '^3;nfstorm' "$T/o.txt")" -eq 2 ] || fail "--output: terse lines: $(head -c 300 "$T/o.txt")"
grep -q '"jobs"' "$T/o.txt" || fail "--output: no JSON after the terse lines"

# job options with the job file: before --name they sit beneath [global]
# (the file's bs=8k wins, numjobs=2 applies); --name=extra is a job of its own
timeout 30 "$NFSTORM" run "$T/p.fio" --local 1 --quiet --json "$T/c.json" --bs=64k --numjobs=2 \
  --name=extra --ioengine=null --size=2M --rw=read >/dev/null 2>"$T/err" || fail "cmdline+file: $(cat "$T/err")"
py "$T/c.json" <<'PY'
import json, sys
ph = json.load(open(sys.argv[1]))["phases"]
assert [p["name"] for p in ph] == ["extra", "writer"], [p["name"] for p in ph]
assert ph[0]["njobs"] == 2 and ph[0]["numjobs"] == 4, (ph[0]["njobs"], ph[0]["numjobs"])
r = ph[0]["ops"]["read"]
# extra: 2 threads x 2M at 64k = 64 ops; reader: 2 threads x 1M at 8k = 256 ops
assert r["ops"] == 64 + 256 and r["bytes"] == 2 * (2 << 20) + 2 * (1 << 20), r
w = ph[1]["ops"]["write"]
assert w["ops"] == 2 * 128 and ph[1]["bs"] == 8192, (w, ph[1]["bs"])
PY

# --status-interval: a status line per 500 ms of a 2-s phase on stdout
printf '[t]\nioengine=null\nsize=1M\nrw=read\ntime_based=1\nruntime=2\nrate_iops=100\n' >"$T/t.fio"
timeout 30 "$NFSTORM" run "$T/t.fio" --local 1 --quiet --interval 500ms --status-interval=500ms \
  >"$T/st" 2>&1 || fail "status-interval: $(cat "$T/st")"
n=$(grep -c "^status: phase 1/1 't' at " "$T/st")
[ "$n" -ge 3 ] && [ "$n" -le 4 ] || fail "status-interval: $n status lines: $(cat "$T/st")"
# 100 ops by 1.0 s at 100 IOPS; a starved agent (load 20) had 96
grep -Eq "^status: phase 1/1 't' at 1.0s: read ops=(9[0-9]|10[0-9]) iops=(9[0-9]|10[0-9])" "$T/st" || fail "status at 1.0s: $(cat "$T/st")"
# with a JSON report on stdout, each status point is a whole JSON document
# there, as fio writes it, and no status line of nfstorm's own anywhere
# (issue 22, item 11; t1554 checks the documents' figures)
timeout 30 "$NFSTORM" run "$T/t.fio" --local 1 --quiet --interval 500ms --status-interval=500ms \
  --output-format=json >"$T/stj" 2>"$T/stj.err" || fail "status-interval with json: $(cat "$T/stj.err")"
! grep -q "status:" "$T/stj" "$T/stj.err" || fail "a status line with json: $(grep -h "status:" "$T/stj" "$T/stj.err")"
[ "$(grep -c '^{$' "$T/stj")" -ge 4 ] || fail "not a JSON document per status point: $(grep -c '^{$' "$T/stj")"
echo "fio's command-line options"
