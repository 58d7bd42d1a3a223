#!/usr/bin/env bash
# Benchmark (not a test): the coordinator's peak memory on a run with many
# intervals.  20 s at 10 ms intervals on two --local null-engine agents is
# 2000 merged intervals, the shape of an hour at 1 s or of the seeds' long
# dd runs.  Prints the coordinator's peak RSS (VmHWM from /proc, sampled
# while it runs, so the agents it spawns are not counted).
# Usage: bench/coordinator-memory.sh [NFSTORM_BINARY] [RUNTIME_S]
#        bench/coordinator-memory.sh --base REV [RUNTIME_S]
#          builds REV in a temporary git worktree and prints REV's figure,
#          then this tree's (bin/nfstorm), for a before/after comparison.
set -eu
cd "$(dirname "$0")/.."

PHASES=${PHASES:-200}

watch_hwm() {   # PID: prints the peak VmHWM (KiB) seen while PID runs
    local pid=$1 hwm=0 v
    while kill -0 "$pid" 2>/dev/null; do
        v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        [ -n "$v" ] && hwm=$v
        sleep 0.1
    done
    echo "$hwm"
}

peak_phases() {   # BINARY
    local bin=$1 dir pid hwm rc=0 i
    dir=$(mktemp -d)
    { printf '[global]\nioengine=null\nrw=randread\nbs=4k\nsize=64k\n'
      for i in $(seq "$PHASES"); do printf '[p%d]\nstonewall\n' "$i"; done; } >"$dir/p.fio"
    "$bin" run --local 2 --quiet "$dir/p.fio" >"$dir/out" 2>&1 &
    pid=$!
    hwm=$(watch_hwm "$pid")
    wait "$pid" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "run failed (exit $rc):"; tail -n 20 "$dir/out"; rm -rf "$dir"; return 1
    fi
    rm -rf "$dir"
    echo "coordinator peak RSS: $hwm KiB, $PHASES phases x 2 agents ($bin)"
}

peak() {   # BINARY RUNTIME_S
    local bin=$1 runtime=$2 dir pid hwm=0 v rc=0
    dir=$(mktemp -d)
    "$bin" run --local 2 --interval 10ms --name=m --ioengine=null --rw=randread --bs=4k \
        --size=1g --runtime="$runtime" --time_based --quiet >"$dir/out" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        [ -n "$v" ] && hwm=$v
        sleep 0.1
    done
    wait "$pid" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "run failed (exit $rc):"; tail -n 20 "$dir/out"; rm -rf "$dir"; return 1
    fi
    rm -rf "$dir"
    echo "coordinator peak RSS: $hwm KiB, ${runtime} s at 10 ms intervals ($bin)"
}

if [ "${1:-}" = "--base" ]; then
    REV=${2:?--base needs a revision}
    RUNTIME=${3:-20}
    WT=$(mktemp -d /tmp/nfstorm-base.XXXXXX)
    trap 'git worktree remove --force "$WT" >/dev/null 2>&1 || true; rm -rf "$WT"' EXIT
    git worktree add --detach "$WT" "$REV" >/dev/null
    [ -d deps ] && ln -s "$PWD/deps" "$WT/deps"
    make -C "$WT" -j"$(nproc)" all >"$WT/build.log" 2>&1 || { tail -n 20 "$WT/build.log"; exit 1; }
    make -j"$(nproc)" all >/dev/null
    peak "$WT/bin/nfstorm" "$RUNTIME"
    peak bin/nfstorm "$RUNTIME"
    peak_phases "$WT/bin/nfstorm"
    peak_phases bin/nfstorm
    exit 0
fi

BIN=${1:-bin/nfstorm}
[ -x "$BIN" ] || { echo "no $BIN (make all)"; exit 1; }
peak "$BIN" "${2:-20}"
peak_phases "$BIN"
