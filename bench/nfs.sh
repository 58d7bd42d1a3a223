#!/usr/bin/env bash
# bench/nfs.sh: the nfs engine against a loopback nfs-ganesha (NFSv3).
# 4k randread/randwrite at iodepth 1, 16, 64 with numjobs 1 and 4, and 1M
# sequential read/write; one local agent.  For each: IOPS, bandwidth, p99,
# and CPU seconds per million ops of the agent (getrusage, from the JSON)
# next to ganesha's (/proc/PID/stat utime+stime before and after the run).
# The point: at iodepth >= 16 the server, not nfstorm, should be the
# bottleneck, i.e. ganesha burns far more CPU per op than the agent.
# Not a test: it prints numbers and exits 0 when every run worked.
# Usage: bench/nfs.sh [RUNTIME_SECONDS]   (default 3)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
RUNTIME=${1:-3}
command -v ganesha.nfsd >/dev/null 2>&1 || { echo "bench/nfs.sh: nfs-ganesha is not installed" >&2; exit 1; }
source tests/nfs_server.sh
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nfstorm-bench-nfs.XXXXXX")
trap 'nfs_server_stop; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$WORK/export"
nfs_server_start "$WORK/export" || { echo "bench/nfs.sh: NFS server did not start" >&2; exit 1; }
TCK=$(getconf CLK_TCK)

# CPU seconds ganesha has used so far (utime + stime)
ganesha_cpu() {
  awk -v t="$TCK" '{ sub(/^.*\) /, ""); printf "%.3f\n", ($12 + $13) / t }' "/proc/$NFS_PID/stat"
}

printf '%-22s %9s %11s %9s %16s %18s\n' "workload" "IOPS" "BW(MiB/s)" "p99(us)" "agent cpu s/Mop" "ganesha cpu s/Mop"
run() {   # label rw bs iodepth numjobs
  local label=$1 rw=$2 bs=$3 depth=$4 nj=$5 c0 c1
  # files: laid out (1M writes) by a first, unmeasured run of the same job
  c0=$(ganesha_cpu)
  "$ROOT/bin/nfstorm" run --local 1 --quiet --json "$WORK/r.json" --name="b$nj" --ioengine=nfs \
    "--nfs_url=$NFS_URL3" --rw="$rw" --bs="$bs" --size=64m --iodepth="$depth" --numjobs="$nj" \
    --runtime="$RUNTIME" --time_based >"$WORK/out" 2>&1 || { echo "$label: run failed: $(tail -n 2 "$WORK/out")" >&2; exit 1; }
  c1=$(ganesha_cpu)
  python3 - "$WORK/r.json" "$label" "$c0" "$c1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); ph = r["phases"][0]
ops = sum(o["ops"] for o in ph["ops"].values()); errs = sum(o["errors"] for o in ph["ops"].values())
o = max(ph["ops"].values(), key=lambda x: x["ops"])
a = ph["agents"][0]["cpu"]; acpu = a["user_s"] + a["sys_s"]
gcpu = float(sys.argv[4]) - float(sys.argv[3])
mop = ops / 1e6
print("%-22s %9.0f %11.1f %9.0f %16.2f %18.2f%s" % (sys.argv[2], o["iops"], o["bw_bytes"] / 2**20,
      o["lat_ns"]["p99"] / 1e3, acpu / mop, gcpu / mop, "  (%d errors)" % errs if errs else ""))
PY
}

for nj in 1 4; do
  # lay out the files of this numjobs once (sequential 1M writes, not shown)
  "$ROOT/bin/nfstorm" run --local 1 --quiet --name="b$nj" --ioengine=nfs "--nfs_url=$NFS_URL3" \
    --rw=write --bs=1m --size=64m --iodepth=16 --numjobs="$nj" >/dev/null 2>&1
  for rw in randread randwrite; do
    for d in 1 16 64; do
      run "4k $rw d$d j$nj" $rw 4k $d $nj
    done
  done
  run "1M read d16 j$nj" read 1m 16 $nj
  run "1M write d16 j$nj" write 1m 16 $nj
done
echo "(NFSv3 over 127.0.0.1, $(nproc) cores shared by agent and server; runtime ${RUNTIME}s per row)"
