#!/usr/bin/env bash
# ioengine=posixaio (issue 22, item 4): 8 ops in flight through glibc's POSIX
# AIO; every block written is read back and verified (crc32c); a run stopped with SIGINT
# while ops are in flight ends at once and the agent serves the next run.
source "$(dirname "$0")/lib.sh"
measure_baseline      # time bounds below are a goal + 2 of it (lib.sh)
D=$T/d; mkdir -p "$D"
start_agent "$D"
job=(--agents "$AGENT_ADDR" --quiet --ioengine=posixaio --iodepth=8 --filename="$D/f")
timeout 60 "$NFSTORM" run "${job[@]}" --json "$T/w.json" --name=w --rw=randwrite --bs=16k --size=4m \
  --verify=crc32c --do_verify=0 >"$T/o" 2>&1 || fail "write: $(cat "$T/o")"
timeout 60 "$NFSTORM" run "${job[@]}" --json "$T/r.json" --name=w --rw=read --bs=16k --size=4m \
  --verify=crc32c --verify_only=1 >"$T/o" 2>&1 || fail "verify: $(cat "$T/o")"
py "$T/w.json" "$T/r.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["phases"][0]; r = json.load(open(sys.argv[2]))["phases"][0]
assert w["ops"]["write"]["ops"] == 256 and w["ops"]["write"]["bytes"] == 4 << 20, w["ops"]
v = r["verify"]
assert v["checked"] == 256 and v["ok"] == 256, v
PY
# SIGINT with 8 ops in flight: the run ends within seconds, the agent is idle again
timeout 60 "$NFSTORM" run "${job[@]}" --json "$T/i.json" --name=i --rw=randrw --bs=4k --size=4m \
  --runtime=60 --time_based >"$T/io" 2>&1 &
RUN=$!
wait_intervals "$T/i.json.journal" 1 30 || fail "no interval of the time-based run: $(cat "$T/io")"
kill -INT $RUN
t0=$(date +%s%N)
wait $RUN
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $ms -lt "$(bound_ms 10000)" ] || fail "SIGINT took $ms ms to end the run (goal 10 s + 2 baselines of ${BASE_MS} ms)"
timeout 60 "$NFSTORM" run "${job[@]}" --name=n --rw=read --bs=4k --size=64k >"$T/o" 2>&1 || fail "next run: $(cat "$T/o")"
echo "ok: posixaio wrote and verified 256 blocks at iodepth 8; stopped by SIGINT in $ms ms; the agent served the next run"
