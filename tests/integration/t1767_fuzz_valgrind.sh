#!/usr/bin/env bash
# nfstorm-test: serial (valgrind is CPU-heavy)
# Issue 23 item 10: every fuzz corpus (tests/fuzz/corpus/*) through its
# harness under valgrind, built by cc without sanitizers with a plain
# driver (tests/fuzz/replay.c; `make replay`).  ASan and UBSan do not see
# a read of an uninitialised value; memcheck does: the run corpus's
# bad-ready seed made run.c print a phase number it never decoded.  Every
# input must run (the driver counts them) and valgrind report no error.
source "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || skip "valgrind is not installed"
R=$ROOT/build/rel/tests
if [ ! -x "$R/replay_session" ] || [ ! -x "$R/replay_run" ]; then
  make -C "$ROOT" -s replay SANITIZE= >"$T/make.log" 2>&1 || fail "make replay: $(tail -n 3 "$T/make.log")"
fi
SECONDS=0
total=0
for h in frame_msg plan journal run session; do
  dir=$ROOT/tests/fuzz/corpus/$h
  n=$(find "$dir" -maxdepth 1 -type f | wc -l)
  [ "$n" -gt 0 ] || fail "the $h corpus is empty"
  valgrind -q --error-exitcode=99 --track-origins=yes "$R/replay_$h" "$dir" >"$T/$h.log" 2>&1; rc=$?
  [ $rc -eq 0 ] || fail "$h corpus under valgrind: exit status $rc: $(grep -m 8 '==[0-9]*==' "$T/$h.log")"
  grep -qx "replay: $n inputs" "$T/$h.log" || fail "$h: not all $n inputs ran: $(tail -n 3 "$T/$h.log")"
  total=$((total + n))
done
[ -f "$ROOT/tests/fuzz/corpus/run/bad-ready" ] || fail "the run corpus lost its bad-ready seed"
echo "$total corpus inputs under valgrind, no errors (${SECONDS}s)"
