#!/usr/bin/env bash
# rw=write:-8k (fio's backwards I/O) on a real agent: 4k writes into a new
# 32k file go 0, 24k, 20k, ... 4k, 0 (8 ops, 32k): the block at 28k is never
# written (the agent sized the file with one byte at its end, so it reads
# as zeros), every block below it is; a forward write, or a hole, would
# differ.  The dry run and the compatibility report show the step back;
# a bad step is one line, exit 2.
source "$(dirname "$0")/lib.sh"
D=$T/d; mkdir -p "$D"
timeout 30 "$NFSTORM" run --local 1 --quiet --directory="$D" --name=bk --rw=write:-8k --bs=4k --size=32k \
  --json "$T/r.json" >"$T/out" 2>&1 || fail "run: $(tail -n 2 "$T/out")"
py "$T/r.json" "$D/bk.0.0.0" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["phases"][0]["ops"]["write"]
assert w["ops"] == 8 and w["bytes"] == 32768 and w["errors"] == 0, w
data = open(sys.argv[2], "rb").read()
assert len(data) == 32768, len(data)
blocks = [data[i:i + 4096] for i in range(0, 32768, 4096)]
assert blocks[7][:-1] == bytes(4095), "the block at 28k was written"
for i in range(7):
    assert blocks[i] != bytes(4096), "block %d (at %dk) was not written" % (i, 4 * i)
PY
"$NFSTORM" run --dry-run --directory="$D" --name=bk --rw=read:-8k --bs=4k --size=32k >"$T/dry" 2>&1 \
  || fail "dry run: $(cat "$T/dry")"
grep -q "job bk: rw=read:-8KiB bs=4KiB" "$T/dry" || fail "dry run: $(grep 'job bk' "$T/dry")"
"$NFSTORM" run --fio-compat-report --name=bk --rw=read:-8k --size=32k >"$T/rep" 2>&1 || fail "report: exit $?"
grep -Eq "^  argument 2  rw=read:-8k +implemented$" "$T/rep" || fail "report: $(cat "$T/rep")"
expect_fail "bad step" "^nfstorm: --rw: bad value 'read:-0' \(want read:-SIZE, the step back after each op\)$" \
  "$NFSTORM" run --dry-run --name=bk --rw=read:-0 --size=32k
echo "rw=write:-8k writes backwards as fio; dry run, report and errors say so"
