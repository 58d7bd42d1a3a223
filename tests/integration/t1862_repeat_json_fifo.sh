#!/usr/bin/env bash
# --repeat with --json naming a FIFO nobody reads: the set cannot be written,
# and the line says why in the words every other output uses ("a FIFO with
# no reader", not the raw "No such device or address"), exit 1, no hang.
source "$(dirname "$0")/lib.sh"
mkfifo "$T/fifo"
timeout -k 2 20 "$NFSTORM" run --local 1 --quiet --name=t --ioengine=null --rw=read --bs=4k --size=1m \
  --runtime=300ms --time_based --repeat 2 --json "$T/fifo" >"$T/out" 2>&1
rc=$?
[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "--repeat --json to a FIFO with no reader hung"
[ $rc -eq 1 ] || fail "exit $rc, want 1: $(cat "$T/out")"
grep -q "^nfstorm: $T/fifo: cannot write the repeat set: a FIFO with no reader$" "$T/out" \
  || fail "no clear line: $(grep nfstorm: "$T/out")"
grep -q "completed 2\|2 of 2\|repeat verdict" "$T/out" || fail "the set's summary is missing: $(cat "$T/out")"
echo "--repeat --json to a FIFO with no reader: one clear line, exit 1"
