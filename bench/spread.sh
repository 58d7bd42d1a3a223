#!/usr/bin/env bash
# bench/spread.sh: the run-to-run spread of the seeds' workload shape on
# this machine (issue 13): 4k randread/randwrite and 1m/32m sequential
# read/write, --local 2, --repeat N (default 5), once with psync on a local
# directory and once with libnfs on a throw-away ganesha on 127.0.0.1.
# Prints mean, sd and CV (sd / mean) of IOPS per phase from each repeat
# set's summary; keeps the sets in OUT (default a temp dir, printed) and
# removes the data files (about 3 GB) when it ends.
#   bench/spread.sh [REPEAT] [RUNTIME_S]
# Not a test: it asserts nothing about speed, it measures noise.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NFSTORM=$ROOT/bin/nfstorm
REPEAT=${1:-5}
RUNTIME=${2:-2}
OUT=${OUT:-$(mktemp -d /tmp/nfstorm-spread.XXXXXX)}
mkdir -p "$OUT/local" "$OUT/export"
source "$ROOT/tests/nfs_server.sh"
trap 'nfs_server_stop; rm -rf "$OUT/local" "$OUT/export"' EXIT

plan() {   # plan ENGINE_LINES...: the six seed-shaped phases
  printf '[global]\n'
  printf '%s\n' "$@"
  printf 'size=64m\nnumjobs=2\ngroup_reporting\ntime_based\nruntime=%s\n' "$RUNTIME"
  for p in randread:4k randwrite:4k read:1m write:1m read:32m write:32m; do
    printf '\n[%s-%s]\nstonewall\nrw=%s\nbs=%s\n' "${p%:*}" "${p#*:}" "${p%:*}" "${p#*:}"
  done
}
plan ioengine=psync "directory=$OUT/local" >"$OUT/psync.fio"
plan ioengine=nfs 'nfs_url=${NFS_URL}' iodepth=8 >"$OUT/nfs.fio"

"$NFSTORM" run "$OUT/psync.fio" --local 2 --quiet --repeat "$REPEAT" --target psync-local \
  --json "$OUT/psync.json" >"$OUT/psync.out" 2>&1 || echo "psync run: exit $? (see $OUT/psync.out)" >&2
nfs_server_start "$OUT/export" || { echo "ganesha did not start" >&2; exit 1; }
NFS_URL=$NFS_URL3 "$NFSTORM" run "$OUT/nfs.fio" --local 2 --quiet --repeat "$REPEAT" --target libnfs-ganesha \
  --json "$OUT/nfs.json" >"$OUT/nfs.out" 2>&1 || echo "nfs run: exit $? (see $OUT/nfs.out)" >&2

python3 - "$OUT/psync.json" "$OUT/nfs.json" <<'PY'
import json, sys
print("%-16s %-14s %10s %10s %6s  %s" % ("target", "phase", "mean IOPS", "sd", "CV", "per repetition"))
for path in sys.argv[1:]:
    try:
        S = json.load(open(path))
    except (OSError, ValueError) as e:
        print("%s: %s" % (path, e)); continue
    for ph in S["summary"]["phases"]:
        for op, m in ph["ops"].items():
            s = m["iops"]
            cv = s["sd"] / s["mean"] if s["sd"] is not None and s["mean"] else float("nan")
            print("%-16s %-14s %10.1f %10.1f %5.1f%%  %s" % (S["target"], ph["name"], s["mean"], s["sd"] or 0,
                  100 * cv, " ".join("%.0f" % v for v in s["values"])))
PY
echo "sets in $OUT"
