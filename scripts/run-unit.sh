#!/usr/bin/env bash
# Run the cmocka unit test binaries given as arguments; fail if any fails.
set -u
fail=0; n=0
for t in "$@"; do
  n=$((n + 1))
  if ! "$t"; then echo "FAILED: $t" >&2; fail=$((fail + 1)); fi
done
echo "unit: $((n - fail)) passed, $fail failed"
[ $fail -eq 0 ]
