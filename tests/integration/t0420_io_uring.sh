#!/usr/bin/env bash
# ioengine=io_uring, iodepth=16: 2 local agents x 2 jobs, 4k randwrite then
# randread for 2 s.  The agents really drive an io_uring (each holds a ring
# fd while the phase runs); the merged report is the exact sum of the agents
# and of the intervals; bytes = ops x bs; no errors; files of planned size.
# Skips (77) where the kernel refuses io_uring.
source "$(dirname "$0")/lib.sh"
D=$T/data; mkdir -p "$D"
for rw in randwrite randread; do
  timeout 60 "$NFSTORM" run --local 2 --quiet --json "$T/$rw.json" --name=t --rw=$rw --bs=4k \
    --size=8m --numjobs=2 --runtime=2 --time_based --directory="$D" \
    --ioengine=io_uring --iodepth=16 >"$T/$rw.out" 2>&1 &
  run=$!
  PIDS+=("$run")
  # while the phase runs, count the agents (children of the coordinator)
  # that have an io_uring fd open, until both have (or the run is over)
  for _ in $(seq 100); do
    rings=0
    for c in $(pgrep -P "$(pgrep -P "$run" | head -n1)" 2>/dev/null); do
      ls -l "/proc/$c/fd" 2>/dev/null | grep -q 'io_uring' && rings=$((rings + 1))
    done
    [ "$rings" -ge 2 ] && break
    kill -0 "$run" 2>/dev/null || break
    sleep 0.1
  done
  wait "$run"; rc=$?
  if [ $rc -ne 0 ]; then
    grep -q 'io_uring refused by the kernel' "$T/$rw.out" && skip "$(grep -m1 'io_uring refused' "$T/$rw.out")"
    fail "$rw: $(tail -n3 "$T/$rw.out")"
  fi
  [ "$rings" -eq 2 ] || fail "$rw: $rings agents had an io_uring open, want 2"
  check_merge "$T/$rw.json" $rw 4096 1000 1.9 3.0
done
# 2 agents x 2 jobs, one 8 MiB file each, named <name>.<agent>.<job>.<file>
for a in 0 1; do for j in 0 1; do
  f=$D/t.$a.$j.0
  [ -f "$f" ] || fail "missing $f"
  [ "$(stat -c %s "$f")" -eq $((8 << 20)) ] || fail "$f has $(stat -c %s "$f") bytes, want 8 MiB"
done; done
[ "$(ls "$D" | wc -l)" -eq 4 ] || fail "want 4 files, have: $(ls "$D")"
echo "io_uring exact"
