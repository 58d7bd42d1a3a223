#!/usr/bin/env bash
# Benchmark (not a test): a mixed job on a fresh file, nfstorm against fio on
# the same command line, on this machine's disk (not tmpfs: the point is
# what the file system does with a file that was never written).  fio lays
# a file out with data for any job that reads; so must nfstorm, or its reads
# meet unwritten extents the file system answers without I/O (issue 21:
# ~497k IOPS at 1 us against fio's ~17k at 40 us).  Each run starts from a
# new file; runs alternate.  Prints both IOPS, the ratio nfstorm/fio (goal
# 0.5x-2x) and the unwritten extents filefrag -v finds in each file after
# its run (goal 0).
# Usage: bench/mixed-layout-vs-fio.sh [RUNTIME_S] [ROUNDS] [DIR (default: a new dir in /var/tmp)]
set -eu
cd "$(dirname "$0")/.."
command -v fio >/dev/null || { echo "fio is not installed (scripts/install-deps.sh)"; exit 1; }
command -v filefrag >/dev/null || { echo "filefrag is not installed (e2fsprogs)"; exit 1; }
RUNTIME=${1:-3}
ROUNDS=${2:-2}
DIR=$(mktemp -d "${3:-/var/tmp}/nfstorm-bench.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
echo "on $(df --output=source,fstype "$DIR" | tail -n1) ($DIR)"
python3 - "$DIR" "$RUNTIME" "$ROUNDS" <<'PY'
import json, os, subprocess, sys
d, runtime, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
workloads = [  # name, the job's options (both tools take them as --key=value)
    ("randrw mix=100 4k", ["--rw=randrw", "--rwmixread=100", "--bs=4k"]),
    ("rw mix=100 4k",     ["--rw=rw", "--rwmixread=100", "--bs=4k"]),
]
common = ["--size=64m", "--direct=1", "--ioengine=libaio", "--runtime=%d" % runtime, "--time_based"]

def run(cmd):
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), out.stderr[-500:]))
    return out.stdout

def unwritten(path):
    return sum(1 for l in run(["filefrag", "-v", path]).splitlines() if "unwritten" in l)

def run_fio(opts, f):
    out = run(["fio", "--name=t", "--output-format=json", "--filename=" + f] + opts + common)
    return json.loads(out[out.index("{"):])["jobs"][0]["read"]["iops"]

def run_nfstorm(opts, f):
    res = os.path.join(d, "r.json")
    run(["bin/nfstorm", "run", "--local", "1", "--quiet", "--json", res, "--name=t", "--filename=" + f]
        + opts + common)
    return json.load(open(res))["phases"][0]["ops"]["read"]["iops"]

print("%-18s %12s %12s %7s %18s %18s" % ("workload", "fio IOPS", "nfstorm IOPS", "ratio",
                                         "fio unwritten ext", "nfstorm unwritten"))
for name, opts in workloads:
    iops = {"fio": 0.0, "nfstorm": 0.0}
    unw = {"fio": 0, "nfstorm": 0}
    for _ in range(rounds):          # alternate so drift hits both alike
        for tool, fn in (("fio", run_fio), ("nfstorm", run_nfstorm)):
            f = os.path.join(d, tool + ".bin")
            if os.path.exists(f):
                os.unlink(f)         # a fresh file every run
            iops[tool] += fn(opts, f) / rounds
            unw[tool] = max(unw[tool], unwritten(f))
    print("%-18s %12.0f %12.0f %7.2f %18d %18d" % (name, iops["fio"], iops["nfstorm"],
          iops["nfstorm"] / iops["fio"], unw["fio"], unw["nfstorm"]))
PY
