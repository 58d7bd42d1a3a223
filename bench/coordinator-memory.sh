#!/usr/bin/env bash
# Benchmark (not a test): the coordinator's peak memory on a run with many
# intervals.  20 s at 10 ms intervals on two --local null-engine agents is
# 2000 merged intervals, the shape of an hour at 1 s or of the seeds' long
# dd runs.  Prints the coordinator's peak RSS (VmHWM from /proc, sampled
# while it runs, so the agents it spawns are not counted).
# Usage: bench/coordinator-memory.sh [NFSTORM_BINARY] [RUNTIME_S]
set -eu
cd "$(dirname "$0")/.."
BIN=${1:-bin/nfstorm}
RUNTIME=${2:-20}
[ -x "$BIN" ] || { echo "no $BIN (make all)"; exit 1; }
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

"$BIN" run --local 2 --interval 10ms --name=m --ioengine=null --rw=randread --bs=4k \
    --size=1g --runtime="$RUNTIME" --time_based --quiet >"$DIR/out" 2>&1 &
pid=$!
hwm=0
while kill -0 "$pid" 2>/dev/null; do
    v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$v" ] && hwm=$v
    sleep 0.1
done
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 0 ] || { echo "run failed (exit $rc):"; tail -n 20 "$DIR/out"; exit 1; }
echo "coordinator peak RSS: $hwm KiB, ${RUNTIME} s at 10 ms intervals ($BIN)"
