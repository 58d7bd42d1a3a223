#!/usr/bin/env bash
# A time-based phase that would send more intervals than a phase keeps
# (RESULT_MAX_INTERVALS, 604800) is refused before the run, exit 2 with one
# line: log_avg_msec=10 (or --interval 10ms) with runtime=2h used to run for
# 1.7 hours and then fail on the agent's "interval beyond the run's limit".
# A runtime that fits exactly (6048 s at 10 ms) still starts.
source "$(dirname "$0")/lib.sh"
msg="phase 'a': 7200 s at 10-ms intervals is 720000 intervals, more than the 604800 a phase keeps; raise --interval (or log_avg_msec) or shorten the runtime"
for how in "--write_bw_log=$T/lg --log_avg_msec=10" "--interval 10ms"; do
  # shellcheck disable=SC2086
  timeout 20 "$NFSTORM" run --local 1 --quiet --name=a --rw=read --size=1m --ioengine=null \
    --runtime=2h --time_based $how >"$T/o" 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "$how: exit $rc, want 2: $(tail -n2 "$T/o")"
  [ "$(grep -v '^nfstorm: warning: fio logs' "$T/o")" = "nfstorm: $msg" ] || fail "$how: $(cat "$T/o")"
done
ls "$T"/lg* >/dev/null 2>&1 && fail "a refused run created its log files"
# 6048 s (+ no ramp) at 10 ms is 604800 intervals: allowed; stopped once it runs
"$NFSTORM" run --local 1 --quiet --name=a --rw=read --size=1m --ioengine=null --runtime=6048 \
  --time_based --interval 10ms --json "$T/f.json" >"$T/o" 2>&1 &
c=$!; PIDS+=("$c")
for _ in $(seq 50); do [ -s "$T/f.json.journal" ] && grep -q phase_start "$T/f.json.journal" && break; sleep 0.1; done
wait_intervals "$T/f.json.journal" 10 || fail "no 10 intervals of 10 ms: $(tail -n2 "$T/o")"
kill -INT $c; wait $c; rc=$?
[ $rc -eq 130 ] || fail "6048 s at 10 ms: exit $rc, want 130 (started, then SIGINT): $(tail -n2 "$T/o")"
py "$T/f.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]
assert p["ran"] and p["ops"]["read"]["ops"] > 0, p["ops"]
PY
echo "a phase longer than its intervals allow is refused up front; one that fits runs"
