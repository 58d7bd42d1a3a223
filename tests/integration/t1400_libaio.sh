#!/usr/bin/env bash
# ioengine=libaio: 2 local agents x 2 jobs.  (1) An exact run: 4k writes at
# iodepth 16, direct=1, batches of 4 submitted and 2..8 reaped, 2 MiB per
# job: every job does exactly 512 writes, the merged report is the sum of
# the agents and intervals, each file is 2 MiB of the buffer_pattern.
# (2) 4k randread for 2 s at iodepth 16 over the same files: the merge
# contract holds and no op fails.  The agents really hold AIO contexts
# (/proc/PID/maps shows the kernel's "[aio]" ring while the phase runs).
source "$(dirname "$0")/lib.sh"
D=$T/data; mkdir -p "$D"
timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/w.json" --name=t --rw=write --bs=4k \
  --size=2m --numjobs=2 --directory="$D" --ioengine=libaio --iodepth=16 --direct=1 \
  --iodepth_batch_submit=4 --iodepth_batch_complete_min=2 --iodepth_batch_complete_max=8 \
  --buffer_pattern=0xa5c3 >"$T/w.out" 2>&1 || {
  grep -q 'libaio refused by the kernel' "$T/w.out" && skip "$(grep -m1 'refused' "$T/w.out")"
  fail "write: $(tail -n3 "$T/w.out")"; }
py "$T/w.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
w = p["ops"]["write"]
assert w["ops"] == 4 * 512 and w["bytes"] == 4 * 2 * 1024 * 1024 and w["errors"] == 0, w
assert [a["ops"]["write"]["ops"] for a in p["agents"]] == [1024, 1024], p["agents"]
assert sum(i["ops"].get("write", {}).get("ops", 0) for i in p["intervals"]) == 2048
assert p.get("ops", {}).get("read", {}).get("ops", 0) == 0
PY
for a in 0 1; do for j in 0 1; do
  f=$D/t.$a.$j.0
  [ "$(stat -c %s "$f")" -eq $((2 << 20)) ] || fail "$f has $(stat -c %s "$f") bytes, want 2 MiB"
  # every byte is the pattern's: a5 c3 repeated
  bad=$(od -An -v -tx2 --endian=big "$f" | tr -s ' \n' '\n\n' | grep -v '^$' | grep -vc '^a5c3$')
  [ "$bad" -eq 0 ] || fail "$f: $bad 2-byte words are not the pattern a5c3"
done; done
[ "$(ls "$D" | wc -l)" -eq 4 ] || fail "want 4 files, have: $(ls "$D")"

timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/r.json" --name=t --rw=randread --bs=4k \
  --size=2m --numjobs=2 --runtime=2 --time_based --directory="$D" --ioengine=libaio \
  --iodepth=16 --direct=1 >"$T/r.out" 2>&1 &
run=$!
PIDS+=("$run")
# until both agents have an AIO context mapped, or the run is over
for _ in $(seq 100); do
  ctx=0
  for c in $(pgrep -P "$(pgrep -P "$run" | head -n1)" 2>/dev/null); do
    grep -q '\[aio\]\|/\[aio\]' "/proc/$c/maps" 2>/dev/null && ctx=$((ctx + 1))
  done
  [ "$ctx" -ge 2 ] && break
  kill -0 "$run" 2>/dev/null || break
  sleep 0.1
done
wait "$run" || fail "randread: $(tail -n3 "$T/r.out")"
[ "$ctx" -eq 2 ] || fail "$ctx agents had an AIO context mapped, want 2"
check_merge "$T/r.json" randread 4096 1000 1.9 3.0
echo "libaio exact: 2048 writes of the pattern, randread merge holds"
