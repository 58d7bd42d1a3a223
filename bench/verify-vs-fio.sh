#!/usr/bin/env bash
# Benchmark (not a test): a write+verify workload (write the file, then read
# back and check every block: fio's do_verify, nfstorm's read-back) through
# Debian's fio and through nfstorm (psync, one --local agent) on tmpfs, for
# verify=crc32c, md5 and sha256, alternating runs, side by side.  IOPS count
# the writes and the verifying reads over the time both passes took (fio:
# its write and read runtimes; nfstorm: the phase's duration); CPU is
# microseconds per op of all processes (fio's, or nfstorm's coordinator plus
# its agent), start-up included.  Goal: nfstorm >= 1.0x fio's IOPS.
# Usage: bench/verify-vs-fio.sh [SIZE] [ROUNDS]     (default 256m per job, 2)
set -eu
cd "$(dirname "$0")/.."
command -v fio >/dev/null || { echo "fio is not installed (scripts/install-deps.sh)"; exit 1; }
SIZE=${1:-256m}
ROUNDS=${2:-2}
DIR=$(mktemp -d /dev/shm/nfstorm-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
python3 - "$DIR" "$SIZE" "$ROUNDS" <<'PY'
import json, os, resource, subprocess, sys
d, size, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
workloads = [  # name, verify, rw, bs
    ("crc32c 4k seq", "crc32c", "write", "4k"),
    ("crc32c 4k rand", "crc32c", "randwrite", "4k"),
    ("md5 4k seq", "md5", "write", "4k"),
    ("sha256 4k seq", "sha256", "write", "4k"),
    ("crc32c 64k seq", "crc32c", "write", "64k"),
    ("sha256 64k seq", "sha256", "write", "64k"),
]

def timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), out.stdout[-500:], out.stderr[-500:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out.stdout, cpu

def job_args(verify, rw, bs, name):
    return ["--name=%s" % name, "--rw=%s" % rw, "--bs=%s" % bs, "--size=%s" % size,
            "--verify=%s" % verify, "--directory=%s" % d]

def run_fio(verify, rw, bs):
    # (no verify state file: fio would leave one in the working directory)
    out, cpu = timed(["fio", "--ioengine=psync", "--output-format=json", "--verify_state_save=0"]
                     + job_args(verify, rw, bs, "fio"))
    j = json.loads(out[out.index("{"):])["jobs"][0]
    if j["error"]:
        sys.exit("fio job error %s" % j["error"])
    ops = j["write"]["total_ios"] + j["read"]["total_ios"]
    secs = (j["write"]["runtime"] + j["read"]["runtime"]) / 1000.0
    return ops / secs, ops, cpu

def run_nfstorm(verify, rw, bs):
    res = os.path.join(d, "r.json")
    _, cpu = timed(["bin/nfstorm", "run", "--local", "1", "--quiet", "--json", res]
                   + job_args(verify, rw, bs, "nfs"))
    p = json.load(open(res))["phases"][0]
    if p["verify"]["ok"] != p["verify"]["checked"] or p["verify"]["checked"] == 0:
        sys.exit("nfstorm verify found problems: %s" % p["verify"])
    ops = p["ops"]["write"]["ops"] + p["ops"]["read"]["ops"]
    return ops / p["duration_s"], ops, cpu

print("%-15s %11s %12s %6s %13s %13s" % ("workload", "fio IOPS", "nfstorm IOPS", "ratio",
                                         "fio CPU us/op", "nfstorm us/op"))
for name, verify, rw, bs in workloads:
    f = [0, 0, 0.0]; n = [0, 0, 0.0]
    for _ in range(rounds):           # alternate so drift hits both alike
        for acc, fn in ((f, run_fio), (n, run_nfstorm)):
            iops, ops, cpu = fn(verify, rw, bs)
            acc[0] += iops / rounds; acc[1] += ops; acc[2] += cpu
            for x in os.listdir(d):
                if x != "r.json":
                    os.unlink(os.path.join(d, x))
    print("%-15s %11.0f %12.0f %5.2fx %13.2f %13.2f" % (name, f[0], n[0], n[0] / f[0],
          f[2] / f[1] * 1e6, n[2] / n[1] * 1e6))
PY
