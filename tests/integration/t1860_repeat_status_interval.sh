#!/usr/bin/env bash
# --status-interval with --repeat: the status reports of every repetition
# are made from that repetition's own record (its start, its job options).
# The status writer outlives the repetitions; the record it reads must too
# (it once pointed at the first repetition's stack frame: ASan's
# detect_stack_use_after_return sees that on a SANITIZE=1 build).
source "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_stack_use_after_return=1
printf '[t]\nioengine=null\nsize=1M\nrw=read\ntime_based=1\nruntime=2\nrate_iops=200\n' >"$T/t.fio"
timeout 40 "$NFSTORM" run "$T/t.fio" --local 1 --quiet --repeat 2 --status-interval=1 \
  --output-format=json --json "$T/r.json" >"$T/r.out" 2>"$T/r.err" || fail "run: $(cat "$T/r.err")"
! grep -q "AddressSanitizer" "$T/r.err" || fail "$(grep -m3 -A3 AddressSanitizer "$T/r.err")"
py "$T" <<'PY'
import json, sys
T = sys.argv[1]
s, d, i, ds = open(T + "/r.out").read(), json.JSONDecoder(), 0, []
while True:
    while i < len(s) and s[i].isspace():
        i += 1
    if i == len(s):
        break
    o, i = d.raw_decode(s, i)
    ds.append(o)
reps = json.load(open(T + "/r.json"))["repetitions"]
assert len(reps) == 2, len(reps)
# each repetition: its status reports (1 s, 2 s) and its final report
assert 4 <= len(ds) <= 6, len(ds)
ts = [o["timestamp_ms"] for o in ds]
starts = sorted(set(ts))
assert len(starts) == 2, ts                       # two repetitions, two starts
# the record's start (ms) and the result's "started" (s) are two clock
# readings a few ms apart: across a second's boundary they differ by one
assert all(abs(t // 1000 - r["started"]) <= 1 for t, r in zip(starts, reps)), \
    (starts, [r["started"] for r in reps])
assert starts[1] - starts[0] >= 1500, starts     # the second's own start, 2 s later
assert ts == sorted(ts), ts                       # the second's reports carry the second's start
for o in ds:
    opts = o["jobs"][0]["job options"]
    assert opts.get("rw") == "read" and opts.get("rate_iops") == "200", opts
print("status documents", len(ds), "starts", starts)
PY
echo "--status-interval with --repeat: each repetition's reports from its own record"
