#!/usr/bin/env bash
# Benchmark (not a test): how well and how fast a sweep's search finds a
# known capacity.  NAGENTS local agents run ioengine=null's model server at
# CAP IOPS each (the fleet's true capacity is NAGENTS x CAP); the sweep
# searches from CAP/5 up to 8 x the true capacity with an SLO of p99<=2ms.
# Prints the capacity found against the true one, the points used (and how
# many were invalid) and the total time.
# Usage: bench/sweep.sh [NAGENTS] [CAP] [POINT_TIME]   (default 2 50k 2s)
set -eu
cd "$(dirname "$0")/.."
n=${1:-2} cap=${2:-50k} point=${3:-2s}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
capn=$(python3 -c "import sys; s=sys.argv[1].lower(); m={'k':1000,'m':1000000}.get(s[-1],1); print(int(float(s.rstrip('km'))*m))" "$cap")
true_cap=$((capn * n))
t0=$(date +%s.%N)
bin/nfstorm run --local "$n" --quiet --json "$tmp/s.json" --interval 250ms --name=bench --ioengine=null \
    --rw=randread --bs=4k --size=64m --null_capacity_iops="$cap" --null_latency=100us --sweep=rate_iops \
    --sweep_start=$((capn / 5)) --sweep_max=$((true_cap * 8)) --sweep_slo='p99<=2ms' \
    --sweep_point_time="$point" >"$tmp/out" 2>&1 || { echo "sweep failed:"; tail -n5 "$tmp/out"; exit 1; }
t1=$(date +%s.%N)
python3 - "$tmp/s.json" "$true_cap" "$t0" "$t1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sweeps"][0]
true, secs = int(sys.argv[2]), float(sys.argv[4]) - float(sys.argv[3])
cap = s["capacity"]
pts = s["points"]
err = 100.0 * (cap["value"] - true) / true
print("true capacity %d IOPS, found %s%d IOPS (%+.1f%%), %d points (%d invalid), %.1f s in all"
      % (true, "" if cap["bracketed"] else ">= ", cap["value"], err, len(pts),
         sum(1 for p in pts if not p["valid"]), secs))
PY
