#!/usr/bin/env bash
# nfstorm run --fio-compat-report: every key a plan sets, in order, with the
# file:line it came from (an include's own file and line, ${VAR} expanded),
# what nfstorm does with it (implemented, alias of X, accepted, ignored: why,
# refused: why, a refused value with the reason), the counts and a verdict;
# exit 0 when the plan would run, 2 when not (a refused key, or a plan that
# fails for no single key: size missing), 2 with one line for a missing
# file; the command-line form; and the same lines at the end of --dry-run.
source "$(dirname "$0")/lib.sh"
cat >"$T/inc.fio" <<'F'
cpus_allowed=0
F
cat >"$T/p.fio" <<'F'
[global]
name=default
include inc.fio
thread
[j]
size=${NFSTORM_T1502_SIZE}
nr_files=2
rw=randread
ioengine=windowsaio
zonemode=zbd
F
NFSTORM_T1502_SIZE=1m "$NFSTORM" run --fio-compat-report "$T/p.fio" >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "refused plan: exit $rc"
sed "s|$T/||g" "$T/out" >"$T/got"
cat >"$T/want" <<'W'
fio compatibility of p.fio: 8 keys: 3 implemented, 1 alias, 1 accepted, 1 ignored, 2 refused
  p.fio:2    name=default         implemented
  inc.fio:1  cpus_allowed=0       ignored: placement and priority of the load generator's own threads
  p.fio:4    thread               accepted: nfstorm always runs a job's clones as threads
  p.fio:6    size=1m              implemented
  p.fio:7    nr_files=2           alias of nrfiles
  p.fio:8    rw=randread          implemented
  p.fio:9    ioengine=windowsaio  refused: bad value (fio's windowsaio engine is not implemented by nfstorm; use libaio or io_uring)
  p.fio:10   zonemode=zbd         refused: zoned block devices; nfstorm works on files
verdict: nfstorm refuses this plan: 2 keys refused; the run would stop at: p.fio:9: bad value for 'ioengine': 'windowsaio' (fio's windowsaio engine is not implemented by nfstorm; use libaio or io_uring)
W
diff "$T/want" "$T/got" >"$T/d" || fail "report differs: $(cat "$T/d")"

# without the refused keys it runs: exit 0, the verdict counts the warning
head -n 8 "$T/p.fio" >"$T/ok.fio"
NFSTORM_T1502_SIZE=1m "$NFSTORM" run --fio-compat-report "$T/ok.fio" >"$T/out" 2>&1 || fail "runnable plan: exit $?"
[ "$(tail -n1 "$T/out")" = "verdict: nfstorm runs this plan (1 ignored key, each with a warning)" ] \
  || fail "verdict: $(tail -n1 "$T/out")"
# ... and --dry-run ends with the same key lines
NFSTORM_T1502_SIZE=1m "$NFSTORM" run --dry-run "$T/ok.fio" >"$T/dry" 2>/dev/null || fail "dry run failed"
head -n -1 "$T/out" >"$T/lines"
tail -n "$(wc -l <"$T/lines")" "$T/dry" | diff "$T/lines" - >"$T/d" || fail "dry-run section: $(cat "$T/d")"

# the variable unset: size= is empty, its line refused, the verdict says why
unset NFSTORM_T1502_SIZE
"$NFSTORM" run --fio-compat-report "$T/ok.fio" >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unset size: exit $rc"
grep -Eq "^  ok.fio:6 +size +refused: bad value \(want a size such as 4k, 1m or 2g, or a percentage of the existing files such as 50%\)$" <(sed "s|$T/||g" "$T/out") || fail "$(cat "$T/out")"
grep -q "^verdict: nfstorm refuses this plan: 1 key refused; the run would stop at: .*/ok.fio:6: bad value for 'size': '' (environment variable 'NFSTORM_T1502_SIZE' is not set)$" \
  "$T/out" || fail "verdict: $(tail -n1 "$T/out")"
# no key is refused but the plan is: no size at all
printf '[j]\nrw=read\n' >"$T/nosize.fio"
"$NFSTORM" run --fio-compat-report "$T/nosize.fio" >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "no size: exit $rc"
grep -q "^verdict: nfstorm refuses this plan: .*job 'j': size is required" "$T/out" \
  || fail "verdict: $(tail -n1 "$T/out")"

# the command-line form
"$NFSTORM" run --fio-compat-report --name=c --size=1m --nr_files=2 --bs_is_seq_rand >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "options: exit $rc"
grep -q "^  argument 4  bs_is_seq_rand  refused: not yet implemented: block sizes by sequential/random instead of read/write$" \
  "$T/out" || fail "options: $(cat "$T/out")"
"$NFSTORM" run --fio-compat-report --name=c --size=1m --nr_files=2 >"$T/out" 2>&1 || fail "options ok: exit $?"

# options beside a job file are listed too (they apply to it), first, and count in the verdict
NFSTORM_T1502_SIZE=1m "$NFSTORM" run --fio-compat-report "$T/ok.fio" --ramp_time=1 --bs=4q >"$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "file and options: exit $rc"
head -n1 "$T/out" | grep -q "^fio compatibility of the options and the job file: 8 keys:" || fail "file and options: $(head -n1 "$T/out")"
grep -Eq "^  argument 1 +ramp_time=1 +implemented$" "$T/out" || fail "file and options: $(cat "$T/out")"
grep -Eq "^  argument 2 +bs=4q +refused: bad value \(want a size, or fio's reads,writes form such as 4k,64k\)$" "$T/out" ||
  fail "file and options: $(cat "$T/out")"

# a missing file: one line, exit 2
expect_fail "missing" "^nfstorm: $T/none.fio: cannot open" "$NFSTORM" run --fio-compat-report "$T/none.fio"
[ "$(grep -c . "$T/out")" -eq 1 ] || fail "missing file: $(cat "$T/out")"
echo "fio compatibility report: per key, verdicts and exit statuses hold"
