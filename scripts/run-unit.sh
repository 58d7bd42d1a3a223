#!/usr/bin/env bash
# Run the cmocka unit test binaries given as arguments; fail if any fails.
# A binary that ran no case (none, or every one skipped) also fails, unless
# it printed a line "unit: no cases: WHY" (e.g. a test that needs a real
# NFS server, which an integration test gives it): a test that silently
# tests nothing must not pass.
set -u
fail=0; n=0
out=$(mktemp "${TMPDIR:-/tmp}/nfstorm-unit.XXXXXX")
trap 'rm -f "$out"' EXIT
for t in "$@"; do
  n=$((n + 1))
  "$t" >"$out" 2>&1; rc=$?
  cat "$out"
  if [ $rc -ne 0 ]; then echo "FAILED: $t" >&2; fail=$((fail + 1)); continue; fi
  ran=$(sed -n 's/^\[==========\] \([0-9]*\) test(s) run\.$/\1/p' "$out" | awk '{s += $1} END {print s + 0}')
  skipped=$(sed -n 's/^ *\([0-9]*\) SKIPPED TEST(S)$/\1/p' "$out" | awk '{s += $1} END {print s + 0}')
  if [ $((ran - skipped)) -le 0 ]; then
    why=$(sed -n 's/^unit: no cases: //p' "$out" | head -n 1)
    if [ -n "$why" ]; then
      echo "unit: $(basename "$t") ran no case: $why"
    else
      echo "FAILED: $t ran no case ($ran run, $skipped skipped) and did not say why" >&2
      fail=$((fail + 1))
    fi
  fi
done
echo "unit: $((n - fail)) passed, $fail failed"
[ $fail -eq 0 ]
