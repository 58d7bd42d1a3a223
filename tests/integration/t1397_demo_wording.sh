#!/usr/bin/env bash
# The README says what `make demo` runs: its first half is psync on the
# --local agents' temporary directory (examples/seed-matrix.fio names no
# engine, directory or file), not a "kernel mount" of anything; its second
# half is libnfs.  The words and the demo are checked against each other.
source "$(dirname "$0")/lib.sh"
line=$(grep '^make demo' "$ROOT/README.md") || fail "README: no 'make demo' line"
grep -Eq '^[[:space:]]*(ioengine|directory|filename)[[:space:]]*=' "$ROOT/examples/seed-matrix.fio" &&
  fail "seed-matrix.fio names an engine or a place: the README's wording must follow it"
grep -q -- '--local 2 .*examples/seed-matrix.fio' "$ROOT/scripts/demo.sh" || fail "demo.sh's first run changed"
case "$line" in
  *"kernel mount"*) fail "README calls the demo's first half a kernel mount: $line" ;;
  *"psync on a local temporary directory, then libnfs"*) ;;
  *) fail "README's demo line does not say what runs: $line" ;;
esac
grep -q "kernel-mount\|kernel mount" "$ROOT/scripts/demo.sh" && fail "demo.sh's banner says kernel mount"
echo "demo wording true"
