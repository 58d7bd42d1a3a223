#!/usr/bin/env bash
# nfstorm-test: serial (CPU-heavy fuzzing)
# nfstorm-test: soak (72 s of mutation; make test keeps every corpus through its harness under valgrind, t1767, and `make fuzz-smoke` runs this alone)
# Fuzz smoke: every libFuzzer harness (tests/fuzz/) replays its seed corpus
# and mutates for a fixed number of runs with a fixed seed.  Any crash,
# sanitizer report, leak, timeout or failed check fails the test.
# Skips without clang (the harnesses need its libFuzzer).
source "$(dirname "$0")/lib.sh"
command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1 || skip "clang not installed"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$T/probe.c"
"${FUZZ_CC:-clang}" -fsanitize=fuzzer,address,undefined -o "$T/probe" "$T/probe.c" >/dev/null 2>&1 ||
  skip "clang cannot build libFuzzer targets (libclang-rt-14-dev missing?)"
cd "$ROOT" || fail "no $ROOT"
# it runs alone (serial): build the harnesses on every CPU
timeout 300 make -s -j"$(nproc 2>/dev/null || echo 2)" fuzz-smoke >"$T/out" 2>&1; rc=$?
cat "$T/out"
[ $rc -eq 0 ] || fail "make fuzz-smoke exited $rc"
for h in frame_msg plan journal run session; do
  grep -qE "^fuzz-smoke: fuzz_$h ok \([0-9]{4,} runs\)" "$T/out" ||
    fail "fuzz_$h did not report its runs as clean"
  ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "build/fuzz/$h.log" ||
    fail "fuzz_$h: sanitizer report in build/fuzz/$h.log"
done
exit 0
