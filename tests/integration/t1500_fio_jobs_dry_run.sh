#!/usr/bin/env bash
# The fio job suite (tests/fio-jobs, written for nfstorm in the way fio's
# examples and users' jobs use fio's keys) through --dry-run and
# --fio-compat-report: each file accepted, warned or refused exactly as its
# MANIFEST line says (exit status, number of warnings, the refused key named
# in the one-line error), the report's verdict and exit status agreeing with
# the dry run, and the counts of the whole suite.
source "$(dirname "$0")/lib.sh"
J=$ROOT/tests/fio-jobs
export NFSTORM_JOB_BS=8k NFSTORM_JOB_SIZE=512k
unset NFSTORM_JOB_NOT_SET
acc=0 warned=0 refused=0 n=0
# every job file has a manifest line and every line a file
ls "$J"/*.fio | xargs -n1 basename | sort >"$T/files"
grep -v '^#' "$J/MANIFEST" | awk 'NF {print $1}' | sort >"$T/listed"
diff "$T/files" "$T/listed" >"$T/d" || fail "MANIFEST and tests/fio-jobs differ: $(cat "$T/d")"
while read -r f status nwarn expect; do
  case "$f" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  (cd "$J" && timeout 10 "$NFSTORM" run --dry-run "$f") >"$T/out" 2>"$T/err"; rc=$?
  w=$(grep -c '^nfstorm: warning: ' "$T/err")
  (cd "$J" && timeout 10 "$NFSTORM" run --fio-compat-report "$f") >"$T/rep" 2>&1; rrc=$?
  case "$status" in
  accepted|warned)
    [ $rc -eq 0 ] || fail "$f: want $status, dry run exit $rc: $(head -c 300 "$T/err")"
    [ "$w" -eq "$nwarn" ] || fail "$f: want $nwarn warnings, got $w: $(cat "$T/err")"
    [ $rrc -eq 0 ] || fail "$f: --fio-compat-report exit $rrc: $(tail -n 3 "$T/rep")"
    grep -q '^verdict: nfstorm runs this plan' "$T/rep" || fail "$f: verdict: $(tail -n1 "$T/rep")"
    # the dry run ends with the same key lines
    grep -q "^fio compatibility of $f: " "$T/out" || fail "$f: no compatibility section in --dry-run"
    if [ "$status" = accepted ] && grep -q ' ignored: ' "$T/rep"; then
      fail "$f: report lists an ignored key for a plan with no warning"
    fi
    [ "$status" = accepted ] && acc=$((acc + 1)) || warned=$((warned + 1))
    ;;
  refused)
    [ $rc -eq 2 ] || fail "$f: want refused (exit 2), got $rc"
    [ "$(grep -c . "$T/err")" -eq 1 ] || fail "$f: error is not one line: $(cat "$T/err")"
    grep -Eq "'$expect'|[ :]$expect=" "$T/err" || fail "$f: error does not name '$expect': $(cat "$T/err")"
    [ $rrc -eq 2 ] || fail "$f: --fio-compat-report exit $rrc, want 2"
    grep -Eq "^  [^ ]+ +$expect(=[^ ]*)? +(alias of [a-z_]+, )?refused: " "$T/rep" \
      || fail "$f: report has no refused line for $expect: $(cat "$T/rep")"
    grep -q '^verdict: nfstorm refuses this plan' "$T/rep" || fail "$f: verdict: $(tail -n1 "$T/rep")"
    refused=$((refused + 1))
    ;;
  *) fail "MANIFEST: bad status '$status' for $f" ;;
  esac
done <"$J/MANIFEST"
echo "fio job suite: $n files: $acc accepted, $warned warned, $refused refused"
[ $n -ge 30 ] || fail "only $n job files"
[ "$acc/$warned/$refused" = "59/2/2" ] || fail "counts $acc/$warned/$refused, want 59/2/2"
