#!/usr/bin/env bash
# t1851: scripts/run-unit.sh (make test's unit step) fails a unit binary
# that ran no case (none, or every case skipped) unless it printed
# "unit: no cases: WHY"; a binary with a case that ran passes, and the real
# test_engine_nfs without a server says why.
source "$(dirname "$0")/lib.sh"
RUN=$ROOT/scripts/run-unit.sh
mk() {  # mk NAME BODY: a stand-in binary printing cmocka's summary lines
  printf '#!/bin/sh\n%s\nexit 0\n' "$2" >"$T/$1"; chmod +x "$T/$1"
}
mk none   'echo "[==========] 0 test(s) run."; echo "[  PASSED  ] 0 test(s)."'
mk skips  'echo "[==========] 2 test(s) run."; echo "[  PASSED  ] 0 test(s)."; echo " 2 SKIPPED TEST(S)"'
mk said   'echo "unit: no cases: no server here"; echo "[==========] 1 test(s) run."; echo " 1 SKIPPED TEST(S)"'
mk one    'echo "[==========] 2 test(s) run."; echo "[  PASSED  ] 1 test(s)."; echo " 1 SKIPPED TEST(S)"'

for b in none skips; do
  out=$("$RUN" "$T/$b" 2>&1) && fail "$b: run-unit.sh passed a binary that ran no case: $out"
  grep -q "FAILED: $T/$b ran no case .*did not say why" <<<"$out" || fail "$b: no reason given: $out"
  grep -q 'unit: 0 passed, 1 failed' <<<"$out" || fail "$b: summary: $out"
done
out=$("$RUN" "$T/said" "$T/one" 2>&1) || fail "a binary that said why, or ran a case, failed: $out"
grep -q 'unit: said ran no case: no server here' <<<"$out" || fail "the reason is not shown: $out"
grep -q 'unit: 2 passed, 0 failed' <<<"$out" || fail "summary: $out"

BIN=$(cd "$ROOT" && make --no-print-directory -s unit-bin-test_engine_nfs 2>"$T/make.log") || fail "build: $(tail -3 "$T/make.log")"
out=$(env -u NFSTORM_TEST_NFS_URL "$RUN" "$ROOT/$BIN" 2>&1) || fail "test_engine_nfs without a server: $out"
grep -q 'ran no case: NFSTORM_TEST_NFS_URL is not set' <<<"$out" || fail "test_engine_nfs does not say why: $out"
echo "t1851: ok"
