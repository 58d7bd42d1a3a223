#!/usr/bin/env bash
# Benchmark (not a test): nfstorm's io_uring engine against Debian's fio
# (--ioengine=io_uring, its defaults: no registered files or buffers, no SQ
# polling) on tmpfs, 4k random I/O at iodepth 16, one job, alternating
# runs, side by side.  Prints IOPS of each, the ratio nfstorm/fio, and CPU
# seconds per million ops (all processes: fio's, or nfstorm's coordinator
# plus its --local agent).  Exits 77 where the kernel refuses io_uring.
# Usage: bench/uring-vs-fio.sh [RUNTIME_S] [ROUNDS]
set -eu
cd "$(dirname "$0")/.."
command -v fio >/dev/null || { echo "fio is not installed (scripts/install-deps.sh)"; exit 1; }
RUNTIME=${1:-5}
ROUNDS=${2:-2}
DIR=$(mktemp -d /dev/shm/nfstorm-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
python3 - "$DIR" "$RUNTIME" "$ROUNDS" <<'PY'
import json, os, resource, subprocess, sys
d, runtime, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
workloads = [  # name, rw, bs, iodepth, numjobs, size
    ("4k randread  qd16 x1", "randread", "4k", 16, 1, "256m"),
    ("4k randwrite qd16 x1", "randwrite", "4k", 16, 1, "256m"),
]

def timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        if "io_uring refused" in out.stderr + out.stdout:
            print("skipping: the kernel refuses io_uring"); sys.exit(77)
        sys.exit("failed: %s\n%s" % (" ".join(cmd), (out.stderr + out.stdout)[-500:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out.stdout, cpu

def job_args(prefix, rw, bs, qd, nj, size, name):
    return ["%sname=%s" % (prefix, name), "%srw=%s" % (prefix, rw), "%sbs=%s" % (prefix, bs),
            "%sioengine=io_uring" % prefix, "%siodepth=%d" % (prefix, qd),
            "%ssize=%s" % (prefix, size), "%snumjobs=%d" % (prefix, nj),
            "%sruntime=%d" % (prefix, runtime), "%stime_based" % prefix, "%sdirectory=%s" % (prefix, d)]

def run_fio(rw, bs, qd, nj, size):
    out, cpu = timed(["fio", "--group_reporting", "--output-format=json"]
                     + job_args("--", rw, bs, qd, nj, size, "fio"))
    j = json.loads(out[out.index("{"):])["jobs"][0]
    op = "read" if "read" in rw else "write"
    return j[op]["iops"], j[op]["total_ios"], cpu

def run_nfstorm(rw, bs, qd, nj, size):
    res = os.path.join(d, "r.json")
    _, cpu = timed(["bin/nfstorm", "run", "--local", "1", "--quiet", "--json", res]
                   + job_args("--", rw, bs, qd, nj, size, "nfs"))
    p = json.load(open(res))["phases"][0]
    op = "read" if "read" in rw else "write"
    return p["ops"][op]["iops"], p["ops"][op]["ops"], cpu

print("%-21s %12s %12s %7s %14s %14s" % ("workload", "fio IOPS", "nfstorm IOPS", "ratio",
                                         "fio CPUs/Mop", "nfstorm CPUs/Mop"))
for name, rw, bs, qd, nj, size in workloads:
    f = [0, 0, 0.0]; n = [0, 0, 0.0]
    for _ in range(rounds):           # alternate so drift hits both alike
        for acc, fn in ((f, run_fio), (n, run_nfstorm)):
            iops, ops, cpu = fn(rw, bs, qd, nj, size)
            acc[0] += iops / rounds; acc[1] += ops; acc[2] += cpu
        for x in os.listdir(d):
            if x != "r.json":
                os.unlink(os.path.join(d, x))
    print("%-21s %12.0f %12.0f %7.2f %14.2f %14.2f" % (name, f[0], n[0], n[0] / f[0],
          f[2] / f[1] * 1e6, n[2] / n[1] * 1e6))
PY
