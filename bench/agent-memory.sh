#!/usr/bin/env bash
# Benchmark (not a test): the agent's peak memory with many job threads.
# One agent (loopback) runs a null-engine randread job for RUNTIME_S with
# numjobs 64, 256 and 1024; the agent's peak RSS (VmHWM from /proc, a fresh
# agent per run) is printed per numjobs, with KiB per job thread.
# Usage: bench/agent-memory.sh [BIN_DIR] [RUNTIME_S]
#          BIN_DIR holds nfstorm and nfstorm-agent (default bin/)
#        bench/agent-memory.sh --base REV [RUNTIME_S]
#          builds REV in a temporary git worktree and prints REV's figures,
#          then this tree's, for a before/after comparison.
set -eu
cd "$(dirname "$0")/.."

peak() {   # BIN_DIR NUMJOBS RUNTIME_S
    local bindir=$1 n=$2 runtime=$3 dir apid cpid addr hwm=0 v rc=0
    dir=$(mktemp -d)
    "$bindir/nfstorm-agent" --listen 127.0.0.1:0 --insecure --allow "$dir" >"$dir/agent.out" 2>"$dir/agent.log" &
    apid=$!
    for _ in $(seq 50); do grep -q '^listening on ' "$dir/agent.out" 2>/dev/null && break; sleep 0.1; done
    addr=$(sed -n 's/^listening on //p' "$dir/agent.out")
    [ -n "$addr" ] || { echo "agent did not start"; kill $apid; rm -rf "$dir"; return 1; }
    "$bindir/nfstorm" run --agents "$addr" --quiet --name=m --ioengine=null --rw=randread --bs=4k \
        --size=1m --numjobs="$n" --runtime="$runtime" --time_based >"$dir/out" 2>&1 &
    cpid=$!
    while kill -0 "$cpid" 2>/dev/null; do
        v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$apid/status" 2>/dev/null || true)
        [ -n "$v" ] && hwm=$v
        sleep 0.2
    done
    wait "$cpid" || rc=$?
    v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$apid/status" 2>/dev/null || true)
    [ -n "$v" ] && hwm=$v
    kill "$apid" 2>/dev/null; wait "$apid" 2>/dev/null || true
    if [ "$rc" -ne 0 ]; then
        echo "numjobs=$n: run failed (exit $rc): $(tail -n 1 "$dir/out")"; rm -rf "$dir"; return 0
    fi
    rm -rf "$dir"
    printf 'agent peak RSS, numjobs=%-5s %8s KiB  (%s KiB per job thread)  %s\n' "$n" "$hwm" \
        "$((hwm / n))" "$bindir"
}

all() {   # BIN_DIR RUNTIME_S
    for n in 64 256 1024; do peak "$1" "$n" "$2"; done
}

if [ "${1:-}" = "--base" ]; then
    REV=${2:?--base needs a revision}
    RUNTIME=${3:-3}
    WT=$(mktemp -d /tmp/nfstorm-base.XXXXXX)
    trap 'git worktree remove --force "$WT" >/dev/null 2>&1 || true; rm -rf "$WT"' EXIT
    git worktree add --detach "$WT" "$REV" >/dev/null
    [ -d deps ] && ln -s "$PWD/deps" "$WT/deps"
    make -C "$WT" -j"$(nproc)" all >"$WT/build.log" 2>&1 || { tail -n 20 "$WT/build.log"; exit 1; }
    make -j"$(nproc)" all >/dev/null
    echo "before ($REV):"; all "$WT/bin" "$RUNTIME"
    echo "after (this tree):"; all bin "$RUNTIME"
    exit 0
fi

BIN=${1:-bin}
[ -x "$BIN/nfstorm-agent" ] || { echo "no $BIN/nfstorm-agent (make all)"; exit 1; }
all "$BIN" "${2:-3}"
