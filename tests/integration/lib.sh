# Shared helpers for integration tests: sourced by each tNNNN_*.sh.
# Tests exit 0 (pass), 1 (fail) or 77 (skip), and always clean up what they
# started (agents, temp dirs) through the EXIT trap.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NFSTORM=$ROOT/bin/nfstorm
AGENT=$ROOT/bin/nfstorm-agent
T=$(mktemp -d /tmp/nfstorm-test.XXXXXX)
PIDS=()

cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && wait "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

# start_agent ALLOWDIR [more agent args]: sets AGENT_ADDR and AGENT_PID
start_agent() {
  local log=$T/agent.$RANDOM.log
  "$AGENT" --listen 127.0.0.1:0 ${AGENT_AUTH:---insecure} --allow "$@" >"$log.out" 2>"$log" &
  AGENT_PID=$!
  PIDS+=("$AGENT_PID")
  for _ in $(seq 50); do
    grep -q '^listening on ' "$log.out" 2>/dev/null && break
    sleep 0.1
  done
  AGENT_ADDR=$(sed -n 's/^listening on //p' "$log.out")
  [ -n "$AGENT_ADDR" ] || fail "agent did not start: $(cat "$log")"
}

# expect_fail NAME REGEX CMD...: CMD exits non-zero (not a timeout) and its
# output matches REGEX
expect_fail() {
  local name=$1 re=$2 rc; shift 2
  timeout 30 "$@" >"$T/out" 2>&1; rc=$?
  [ $rc -ne 0 ] || fail "$name: exit status 0; output: $(head -c 300 "$T/out")"
  [ $rc -ne 124 ] || fail "$name: hung (killed after 30 s)"
  grep -Eq -- "$re" "$T/out" || fail "$name: output does not match /$re/: $(head -c 300 "$T/out")"
  # (the pre-run notice of what the run will write is not part of the error)
  [ "$(grep -v '^nfstorm: about to write ' "$T/out" | grep -c .)" -le 3 ] || fail "$name: error is not short: $(head -c 300 "$T/out")"
}

# wait_grep FILE REGEX [SECONDS]: wait until a line of FILE matches the
# extended REGEX (default 30 s); 1 on timeout.  For "after the phase
# started" (a run without --quiet prints "phase 1/N NAME: started on"),
# instead of a sleep that a loaded machine outlasts.
wait_grep() {
  local f=$1 re=$2 n=$(( ${3:-30} * 20 ))
  while [ $n -gt 0 ]; do
    grep -Eq -- "$re" "$f" 2>/dev/null && return 0
    sleep 0.05; n=$((n - 1))
  done
  return 1
}

# wait_intervals JOURNAL N [SECONDS]: until the run's journal (--json F
# writes F.journal) holds N interval lines (default 60 s); 1 on timeout.
# One line per agent per interval: with one agent, "N intervals into the
# phase", for a fault injected mid-phase; with A agents, about N/A.
wait_intervals() {
  local j=$1 want=$2 n k=$(( ${3:-60} * 20 ))
  while [ $k -gt 0 ]; do
    n=$(grep -c '"type":"interval"' "$j" 2>/dev/null)
    [ "${n:-0}" -ge "$want" ] && return 0
    sleep 0.05; k=$((k - 1))
  done
  return 1
}

# measure_baseline: BASE_MS, the wall time of the smallest real run here
# and now (one local agent, the null engine, one 4 KiB read: processes
# started, the handshake, clock sync, a phase, teardown).  Time bounds are
# a goal plus a few of these (bound_s, bound_ms), so a loaded machine,
# which stretches every run, stretches the bound alike, and a quiet one
# keeps it tight.  Call it in the test's own shell, before the bounds.
measure_baseline() {
  local s rc
  s=$(date +%s%N)
  ( cd "$T" && timeout 60 "$NFSTORM" run --local 1 --quiet --name=baseline --ioengine=null --rw=read \
      --bs=4k --size=4k >/dev/null 2>&1 ); rc=$?
  [ $rc -eq 0 ] || fail "the baseline run failed (exit $rc)"
  BASE_MS=$(( ($(date +%s%N) - s) / 1000000 ))
}
# bound_s GOAL_S [K]: GOAL_S plus K (default 2) baselines, in whole seconds
# rounded up; bound_ms GOAL_MS [K]: the same in ms.
bound_ms() { echo $(( $1 + ${2:-2} * ${BASE_MS:?measure_baseline first} )); }
bound_s() { echo $(( $1 + (${2:-2} * ${BASE_MS:?measure_baseline first} + 999) / 1000 )); }

# wait_phase_intervals JOURNAL PHASE N [SECONDS]: as wait_intervals, counting
# only phase PHASE's interval lines (0-based, as in the journal).
wait_phase_intervals() {
  local j=$1 re="\"type\":\"interval\",\"phase\":$2[,}]" want=$3 n k=$(( ${4:-60} * 20 ))
  while [ $k -gt 0 ]; do
    n=$(grep -c "$re" "$j" 2>/dev/null)
    [ "${n:-0}" -ge "$want" ] && return 0
    sleep 0.05; k=$((k - 1))
  done
  return 1
}

# files_sig DIR: a signature of every file below DIR (modification time to
# the nanosecond, size, blocks): it changes with any write, including a
# rewrite of a file that does not grow or was preallocated at full size
files_sig() { find "$1" -type f -printf '%p %T@ %s %b\n' | sort | md5sum | cut -d' ' -f1; }

# slow_unlink_build: $T/slow.so, the shim of c/slow_unlink.c (skips the
# test without a C compiler); start_slow_agent DIR [ARGS]: an agent whose
# unlinks beneath DIR take 2 ms each
slow_unlink_build() {
  command -v cc >/dev/null || skip "no C compiler for the slow-unlink shim"
  cc -shared -fPIC -Wall -o "$T/slow.so" "$ROOT/tests/integration/c/slow_unlink.c" -ldl \
    || fail "cannot build the slow-unlink shim (tests/integration/c/slow_unlink.c)"
}
start_slow_agent() {
  [ -e "$T/slow.so" ] || slow_unlink_build
  # (an ASan-built agent wants its runtime first in the library list: the
  # shim comes before it here, which is harmless, so the check is off)
  SLOW_UNLINK_DIR=$1 LD_PRELOAD=$T/slow.so \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" start_agent "$@"
}

# py: run python3 with the script on stdin and args; fails the test on error
# (py/ is on the path: iv_agents reads intervals' per-agent columns)
py() { PYTHONPATH="$(dirname "${BASH_SOURCE[0]}")/py${PYTHONPATH:+:$PYTHONPATH}" python3 - "$@" || fail "assertion failed (see above)"; }

# check_merge RESULT.json RW BS [MIN_OPS [MIN_S MAX_S]]: the merge contract
# (py/check_merge.py); fails the test if it does not hold
check_merge() { python3 "$ROOT/tests/integration/py/check_merge.py" "$@" || fail "merge contract broken in $1"; }
